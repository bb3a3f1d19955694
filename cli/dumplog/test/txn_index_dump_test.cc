#include "cli/dumplog/txn_index_dump.h"

#include <gtest/gtest.h>

#include "broker/storage/txn_index.h"
#include "cli/dumplog/test/dumplog_test_util.h"

namespace weir::cli::dumplog {
namespace {

using namespace test;

TEST(TxnIndexDump, OneLinePerAbortedTransaction) {
    TempDir dir;
    const auto path = dir.path() / "00000000000000000000.txnindex";
    {
        storage::TxnIndex index(path, 1 << 20);
        index.append({1000, 3, 9, 3});
        index.append({2000, 10, 14, 15});
        index.flush();
    }
    const auto file = path.string();
    const auto r = run({file});
    EXPECT_EQ(r.code, 0) << r.err;
    const auto lines = r.lines();
    ASSERT_EQ(lines.size(), 3u) << r.out;
    EXPECT_EQ(lines[1], "version: 0 producerId: 1000 firstOffset: 3 lastOffset: 9 lastStableOffset: 3");
    EXPECT_EQ(lines[2], "version: 0 producerId: 2000 firstOffset: 10 lastOffset: 14 lastStableOffset: 15");
    const auto v = run({"--verify", file});
    EXPECT_EQ(v.code, 0);
    EXPECT_EQ(v.out, file + ": 2 aborted transactions, offsets 3-14, ok\n");

    // A torn tail (a crash mid-append) is a problem for --verify.
    std::filesystem::resize_file(path, std::filesystem::file_size(path) - 5);
    const auto torn = run({"--verify", file});
    EXPECT_EQ(torn.code, 1);
    EXPECT_TRUE(torn.has("29 bytes at the end")) << torn.out;
}

}  // namespace
}  // namespace weir::cli::dumplog
