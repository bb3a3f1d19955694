#include "cli/dumplog/snapshot_dump.h"

#include <gtest/gtest.h>

#include "broker/storage/producer_snapshot_file.h"
#include "cli/dumplog/test/dumplog_test_util.h"

namespace weir::cli::dumplog {
namespace {

using namespace test;

TEST(SnapshotDump, OneLinePerProducer) {
    TempDir dir;
    storage::ProducerSnapshotEntry idle;
    idle.producer_id = 1000;
    idle.epoch = 3;
    idle.last_sequence = 9;
    idle.last_offset = 41;
    idle.offset_delta = 4;
    idle.timestamp = kTs;
    storage::ProducerSnapshotEntry in_txn = idle;
    in_txn.producer_id = 2000;
    in_txn.coordinator_epoch = 7;
    in_txn.current_txn_first_offset = 30;
    storage::write_producer_snapshot(dir.path(), 42, {idle, in_txn});
    const auto file = (dir.path() / "00000000000000000042.snapshot").string();

    const auto r = run({file});
    EXPECT_EQ(r.code, 0) << r.err;
    const auto lines = r.lines();
    ASSERT_EQ(lines.size(), 3u) << r.out;
    EXPECT_EQ(lines[1],
              "producerId: 1000 producerEpoch: 3 coordinatorEpoch: -1 currentTxnFirstOffset: OptionalLong.empty "
              "lastTimestamp: 1700000000000 firstSequence: 5 lastSequence: 9 lastOffset: 41 offsetDelta: 4 "
              "timestamp: 1700000000000");
    EXPECT_EQ(lines[2],
              "producerId: 2000 producerEpoch: 3 coordinatorEpoch: 7 currentTxnFirstOffset: OptionalLong[30] "
              "lastTimestamp: 1700000000000 firstSequence: 5 lastSequence: 9 lastOffset: 41 offsetDelta: 4 "
              "timestamp: 1700000000000");
    const auto v = run({"--verify", file});
    EXPECT_EQ(v.code, 0);
    EXPECT_EQ(v.out, file + ": 2 producers, ok\n");
}

TEST(SnapshotDump, CorruptSnapshotIsAProblem) {
    TempDir dir;
    storage::write_producer_snapshot(dir.path(), 5, {storage::ProducerSnapshotEntry{}});
    const auto file = dir.path() / "00000000000000000005.snapshot";
    poke(file, 12, "\x01");
    const auto v = run({"--verify", file.string()});
    EXPECT_EQ(v.code, 1);
    EXPECT_TRUE(v.has(file.string() + ": Not a valid producer snapshot: ")) << v.out;
    write_file(file, "x");
    EXPECT_TRUE(run({file.string()}).has("Not a valid producer snapshot"));
}

}  // namespace
}  // namespace weir::cli::dumplog
