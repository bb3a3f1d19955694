#include "cli/dumplog/index_file_dump.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "broker/storage/index_file.h"
#include "cli/dumplog/test/dumplog_test_util.h"

namespace weir::cli::dumplog {
namespace {

using namespace test;

std::string be32(std::uint32_t v) {
    std::string s(4, '\0');
    storage::be::put32(reinterpret_cast<std::uint8_t*>(s.data()), v);
    return s;
}

std::string be64(std::uint64_t v) {
    std::string s(8, '\0');
    storage::be::put64(reinterpret_cast<std::uint8_t*>(s.data()), v);
    return s;
}

// The batch whose last offset is `offset`.
std::size_t batch_ending_at(const WrittenSegment& w, std::int64_t offset) {
    for (std::size_t i = 0; i < w.headers.size(); ++i)
        if (w.headers[i].last_offset() == offset) return i;
    ADD_FAILURE() << "no batch ends at " << offset;
    return 0;
}

TEST(IndexFileDump, OffsetIndexEntriesPointAtBatchStarts) {
    TempDir dir;
    const auto w = write_segment(dir.path());
    const auto r = run({w.index.string()});
    EXPECT_EQ(r.code, 0) << r.err;
    const auto lines = r.lines();
    ASSERT_GE(lines.size(), 4u) << "the segment should have several index entries: " << r.out;
    EXPECT_EQ(lines[0], "Dumping " + w.index.string());
    for (std::size_t i = 1; i < lines.size(); ++i) {
        std::int64_t offset = 0;
        std::uint64_t position = 0;
        ASSERT_EQ(std::sscanf(lines[i].c_str(), "offset: %ld position: %lu", &offset, &position), 2) << lines[i];
        EXPECT_EQ(w.positions[batch_ending_at(w, offset)], position) << lines[i];
    }
    EXPECT_FALSE(r.has("Mismatches"));
    const auto v = run({"--verify", w.index.string()});
    EXPECT_EQ(v.code, 0);
    EXPECT_TRUE(v.has(fmt::format("{}: {} entries, offsets ", w.index.string(), lines.size() - 1))) << v.out;
    EXPECT_TRUE(v.has(", ok\n"));
}

TEST(IndexFileDump, WrongEntryIsAMismatch) {
    TempDir dir;
    const auto w = write_segment(dir.path());
    TempDir copy;
    std::filesystem::copy(w.log, copy.path() / w.log.filename());
    const auto index = copy.path() / w.index.filename();
    std::filesystem::copy(w.index, index);
    const auto entry1 = read_file(index).substr(8, 8);
    const auto offset =
        static_cast<std::int64_t>(storage::be::get32(reinterpret_cast<const std::uint8_t*>(entry1.data())));
    // Entry 1 now claims one offset more for the same batch.
    poke(index, 8, be32(static_cast<std::uint32_t>(offset + 1)));

    const auto r = run({index.string()});
    EXPECT_EQ(r.code, 0);
    EXPECT_TRUE(r.has("Mismatches in :" + index.string() + "\n")) << r.out;
    EXPECT_TRUE(r.has(fmt::format("  Index offset: {}, log offset: {}\n", offset + 1, offset))) << r.out;

    const auto v = run({"--verify", index.string()});
    EXPECT_EQ(v.code, 1);
    EXPECT_TRUE(v.has(fmt::format("{}: Index offset: {}, log offset: {}\n", index.string(), offset + 1, offset)))
        << v.out;
    EXPECT_TRUE(v.has(", 1 problem\n")) << v.out;

    // A position inside a batch, one past the log, and going backwards.
    poke(index, 8, be32(static_cast<std::uint32_t>(offset)) + be32(static_cast<std::uint32_t>(w.positions[3] + 1)));
    EXPECT_TRUE(run({index.string()}).has(fmt::format("position {} is not the start of a batch", w.positions[3] + 1)));
    const auto log_size = std::filesystem::file_size(w.log);
    poke(index, 12, be32(static_cast<std::uint32_t>(log_size)));
    EXPECT_TRUE(run({index.string()}).has(fmt::format("is beyond the end of the log ({} bytes)", log_size)));
    poke(index, 8, be32(0) + be32(1));
    const auto back = run({"--verify", index.string()});
    EXPECT_TRUE(back.has("not above the previous entry's offset")) << back.out;
    EXPECT_EQ(back.code, 1);
}

TEST(IndexFileDump, IndexWithoutItsLogIsAProblemAndNothingIsCreated) {
    TempDir dir;
    const auto w = write_segment(dir.path());
    TempDir alone;
    const auto index = alone.path() / w.index.filename();
    std::filesystem::copy(w.index, index);
    const auto v = run({"--verify", index.string()});
    EXPECT_EQ(v.code, 1);
    EXPECT_TRUE(v.has("does not exist")) << v.out;
    EXPECT_FALSE(std::filesystem::exists(alone.path() / w.log.filename()));
}

TEST(IndexFileDump, PreallocatedZeroTailIsNotedNotChecked) {
    TempDir dir;
    const auto w = write_segment(dir.path(), false);
    const auto size = std::filesystem::file_size(w.index);
    ASSERT_GT(size, 4096u) << "an active index is preallocated";
    const auto r = run({w.index.string()});
    EXPECT_TRUE(r.has("trailing zero entries: preallocated index space")) << r.out.substr(0, 2000);
    EXPECT_FALSE(r.has("Mismatches"));
    EXPECT_EQ(run({"--verify", w.index.string(), w.timeindex.string()}).code, 0);
    EXPECT_EQ(std::filesystem::file_size(w.index), size) << "dumping must not trim the file";

    // An active segment too small for any entry: all zeros.
    TempDir empty;
    storage::Segment segment(empty.path(), 0, storage::SegmentOptions{1 << 20, 4096}, 0);
    segment.make_active();
    segment.append(make_batch({}, 1));
    segment.release();
    const auto index = empty.path() / w.index.filename();
    const auto v = run({"--verify", index.string(), (empty.path() / w.timeindex.filename()).string()});
    EXPECT_EQ(v.code, 0) << v.out;
    EXPECT_TRUE(v.has(index.string() + ": 0 entries, ok\n")) << v.out;
}

TEST(IndexFileDump, LengthNotAMultipleOfTheEntrySize) {
    TempDir dir;
    const auto w = write_segment(dir.path());
    auto bytes = read_file(w.index);
    write_file(w.index, bytes + "xyz");
    const auto v = run({"--verify", w.index.string()});
    EXPECT_EQ(v.code, 1);
    EXPECT_TRUE(v.has("not a multiple of its 8-byte entries")) << v.out;
}

TEST(IndexFileDump, TimeIndexHoldsTheMaxTimestampSoFar) {
    TempDir dir;
    const auto w = write_segment(dir.path());
    const auto r = run({w.timeindex.string()});
    EXPECT_EQ(r.code, 0) << r.err;
    const auto lines = r.lines();
    ASSERT_GE(lines.size(), 3u) << r.out;
    std::int64_t previous = -1;
    for (std::size_t i = 1; i < lines.size(); ++i) {
        std::int64_t timestamp = 0, offset = 0;
        ASSERT_EQ(std::sscanf(lines[i].c_str(), "timestamp: %ld offset: %ld", &timestamp, &offset), 2) << lines[i];
        EXPECT_GT(timestamp, previous);
        previous = timestamp;
        // Independently of the dumper: the max over batches up to the one ending at `offset`.
        std::int64_t max = -1;
        for (std::size_t b = 0; b <= batch_ending_at(w, offset); ++b) max = std::max(max, w.headers[b].max_timestamp);
        EXPECT_EQ(timestamp, max) << lines[i];
    }
    EXPECT_EQ(run({"--verify", w.timeindex.string()}).code, 0);

    // Entry 0 with a later timestamp than its batches had.
    const auto entry0 = read_file(w.timeindex).substr(0, 12);
    const auto ts = static_cast<std::int64_t>(storage::be::get64(reinterpret_cast<const std::uint8_t*>(entry0.data())));
    poke(w.timeindex, 0, be64(static_cast<std::uint64_t>(ts + 1)));
    const auto bad = run({w.timeindex.string()});
    EXPECT_TRUE(bad.has("Found timestamp mismatch in :" + w.timeindex.string() + "\n")) << bad.out;
    EXPECT_TRUE(bad.has(fmt::format("  Index timestamp: {}, log timestamp: {}\n", ts + 1, ts))) << bad.out;
    EXPECT_EQ(run({"--verify", w.timeindex.string()}).code, 1);

    // Out of order, and an offset that is no batch's last.
    poke(w.timeindex, 0, be64(static_cast<std::uint64_t>(kTs + 999'999)));
    EXPECT_TRUE(run({w.timeindex.string()}).has("Found out of order timestamp in :"));
    poke(w.timeindex, 0, be64(static_cast<std::uint64_t>(ts)) + be32(1));
    const auto off = run({w.timeindex.string()});
    EXPECT_TRUE(
        off.has("The following indexed offsets are not found in the log.\nIndexed offset: 1, found log offset: 2\n"))
        << off.out;
}

}  // namespace
}  // namespace weir::cli::dumplog
