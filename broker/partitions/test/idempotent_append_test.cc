// Idempotent producers through a Partition: a retried batch is answered with
// its first offsets and never stored twice, on the leader, on a replica that
// becomes leader, and after a restart (from the snapshot a clean stop writes,
// or from the log after a crash).
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <optional>

#include "broker/partitions/replica_manager.h"
#include "broker/partitions/test/local_replicas.h"
#include "broker/storage/log_names.h"
#include "broker/storage/producer_snapshot_file.h"
#include "broker/storage/test/storage_test_util.h"

namespace weir::partitions {
namespace {

using test::single_node_leader;

using test::kLocal;
constexpr std::int64_t kPid = 1000;

wire::Bytes idempotent_batch(std::int32_t first_seq, int count, std::int16_t epoch = 0) {
    records::BatchBuilderOptions options;
    options.base_timestamp = 1000;
    options.producer_id = kPid;
    options.producer_epoch = epoch;
    options.base_sequence = first_seq;
    std::vector<records::Record> recs;
    for (int i = 0; i < count; ++i) {
        records::Record r;
        r.offset_delta = i;
        r.value = wire::Bytes(8, static_cast<std::uint8_t>('a' + i));
        recs.push_back(std::move(r));
    }
    return records::build_batch(options, recs);
}

struct IdempotentAppendTest : ::testing::Test {
    storage::test::TempDir tmp;
    boost::asio::io_context io;
    std::optional<test::LocalReplicas> local;
    TopicPartition tp{"t", 0};
    LogConfig config;

    void SetUp() override { open(); }
    void open() {
        local.emplace(
            io.get_executor(), std::vector{tmp.path()}, [this](const std::string&) { return config; }, kLocal);
    }
    std::shared_ptr<Partition> lead(std::int32_t epoch = 0) {
        return local->replicas().apply(tp, single_node_leader(kLocal, epoch));
    }
    static AppendResult append(Partition& p, std::int32_t first_seq, int count, std::int16_t epoch = 0) {
        auto batch = idempotent_batch(first_seq, count, epoch);
        return p.append(batch);
    }
    std::filesystem::path dir() const { return tmp.path() / "t-0"; }
};

TEST_F(IdempotentAppendTest, ARetriedBatchGetsItsFirstOffsetsAndIsNotStoredTwice) {
    auto p = lead();
    ASSERT_EQ(append(*p, 0, 3).base_offset, 0);
    ASSERT_EQ(append(*p, 3, 2).base_offset, 3);
    auto retry = append(*p, 0, 3);
    EXPECT_EQ(retry.error, ErrorCode::none);
    EXPECT_EQ(retry.base_offset, 0);
    EXPECT_EQ(retry.last_offset, 2);
    EXPECT_EQ(p->log_end_offset(), 5);
    EXPECT_EQ(append(*p, 6, 1).error, ErrorCode::out_of_order_sequence_number);
    EXPECT_EQ(p->log_end_offset(), 5);
    EXPECT_EQ(append(*p, 5, 1).base_offset, 5);
}

TEST_F(IdempotentAppendTest, AClientBatchWithAProducerButNoSequenceIsInvalid) {
    auto p = lead();
    auto batch = idempotent_batch(-1, 1);
    ProduceLimits limits;
    limits.produce_version = 9;
    auto r = local->replicas().produce(tp, batch, limits);
    EXPECT_EQ(r.error, ErrorCode::invalid_record);
    EXPECT_EQ(p->log_end_offset(), 0);
}

TEST_F(IdempotentAppendTest, ACleanStopWritesNoSnapshotOfALogNeverWritten) {
    lead();
    local.reset();
    EXPECT_TRUE(storage::list_producer_snapshots(dir()).empty());
    open();
    auto p = lead();
    EXPECT_EQ(append(*p, 0, 2).base_offset, 0);
    EXPECT_EQ(append(*p, 0, 2).base_offset, 0);  // a duplicate
    EXPECT_EQ(p->log_end_offset(), 2);
}

TEST_F(IdempotentAppendTest, ACleanStopSnapshotsTheStateAtTheLogEnd) {
    {
        auto p = lead();
        append(*p, 0, 3);
        append(*p, 3, 3);
    }
    local.reset();
    EXPECT_EQ(storage::list_producer_snapshots(dir()), std::vector<std::int64_t>{6});
    open();
    auto p = lead();
    EXPECT_EQ(append(*p, 3, 3).base_offset, 3);  // a duplicate after the restart
    EXPECT_EQ(p->log_end_offset(), 6);
    EXPECT_EQ(append(*p, 6, 1).base_offset, 6);
}

TEST_F(IdempotentAppendTest, AfterACrashTheStateIsRebuiltFromTheLog) {
    {
        auto p = lead();
        append(*p, 0, 3);
        append(*p, 3, 3);
    }
    local.reset();
    // What a kill leaves: no snapshot at the log end, no clean-shutdown marker.
    for (auto offset : storage::list_producer_snapshots(dir())) storage::delete_producer_snapshot(dir(), offset);
    std::filesystem::remove(tmp.path() / std::string(storage::kCleanShutdownFile));
    open();
    auto p = lead();
    EXPECT_EQ(append(*p, 0, 3).base_offset, 0);
    EXPECT_EQ(append(*p, 7, 1).error, ErrorCode::out_of_order_sequence_number);
    EXPECT_EQ(p->log_end_offset(), 6);
}

TEST_F(IdempotentAppendTest, ACleanLogWithoutSnapshotsPredatesProducerStateAndIsNotScanned) {
    {
        auto p = lead();
        append(*p, 0, 3);
    }
    local.reset();
    // As a log written before producer state existed looks after a clean stop.
    for (auto offset : storage::list_producer_snapshots(dir())) storage::delete_producer_snapshot(dir(), offset);
    ASSERT_TRUE(std::filesystem::exists(tmp.path() / std::string(storage::kCleanShutdownFile)));
    open();
    auto p = lead();
    EXPECT_EQ(p->producer_state().size(), 0u);
    EXPECT_EQ(append(*p, 0, 3).base_offset, 3);  // unknown producer: appended again
}

TEST_F(IdempotentAppendTest, ASnapshotIsWrittenAtEachRollAndRecoveryReadsTheLogAfterIt) {
    config.segment_bytes = 200;
    auto p = lead();
    for (int i = 0; i < 6; ++i) ASSERT_EQ(append(*p, i * 2, 2).error, ErrorCode::none);
    auto snapshots = storage::list_producer_snapshots(dir());
    ASSERT_FALSE(snapshots.empty());
    auto segments = p->segment_base_offsets();
    EXPECT_EQ(snapshots.back(), segments.back());
    // The newest snapshot is behind the log end: state after it comes from the log.
    auto reloaded = storage::read_producer_snapshot(dir(), snapshots.back());
    ASSERT_EQ(reloaded.size(), 1u);
    EXPECT_LT(reloaded[0].last_offset, p->log_end_offset() - 1);
    EXPECT_EQ(append(*p, 10, 2).base_offset, 10);  // the last batch, a duplicate
}

TEST_F(IdempotentAppendTest, AReplicaLearnsTheProducersAndDedupsOnceItLeads) {
    // The leader's batches, with offsets and epochs as a follower fetches them.
    auto first = idempotent_batch(0, 2);
    auto second = idempotent_batch(2, 2);
    records::set_base_offset(first, 0);
    records::set_base_offset(second, 2);
    wire::Bytes both = first;
    both.insert(both.end(), second.begin(), second.end());
    auto p = local->replicas().apply(tp, {2, 0, {2, kLocal}, {2, kLocal}});
    ASSERT_FALSE(p->is_leader());
    ASSERT_EQ(p->append_as_follower(both).error, ErrorCode::none);
    ASSERT_EQ(local->replicas().apply(tp, {kLocal, 1, {2, kLocal}, {kLocal}}), p);
    ASSERT_TRUE(p->is_leader());
    auto retry = append(*p, 2, 2);
    EXPECT_EQ(retry.base_offset, 2);
    EXPECT_EQ(p->log_end_offset(), 4);
    EXPECT_EQ(append(*p, 4, 1).base_offset, 4);
}

TEST_F(IdempotentAppendTest, TruncationRebuildsTheState) {
    auto p = local->replicas().apply(tp, {2, 0, {2, kLocal}, {2, kLocal}});
    auto first = idempotent_batch(0, 2);
    auto second = idempotent_batch(2, 2);
    records::set_base_offset(first, 0);
    records::set_base_offset(second, 2);
    ASSERT_EQ(p->append_as_follower(first).error, ErrorCode::none);
    ASSERT_EQ(p->append_as_follower(second).error, ErrorCode::none);
    p->truncate_to(2);
    ASSERT_EQ(local->replicas().apply(tp, {kLocal, 1, {2, kLocal}, {kLocal}}), p);
    // The truncated batch is not in the log: its retry is appended, not a duplicate.
    auto retry = append(*p, 2, 2);
    EXPECT_EQ(retry.error, ErrorCode::none);
    EXPECT_EQ(retry.base_offset, 2);
    EXPECT_EQ(p->log_end_offset(), 4);
}

TEST_F(IdempotentAppendTest, IdleProducersExpire) {
    auto p = lead();
    append(*p, 0, 1);  // timestamp 1000
    local->replicas().remove_expired_producers(1000);
    EXPECT_EQ(p->producer_state().size(), 0u);
    // Forgotten: the producer may start anywhere again.
    EXPECT_EQ(append(*p, 9, 1).error, ErrorCode::none);
}

// As Kafka's ReplicaManager: a refused sequence or epoch is answered with the
// log start offset; a corrupt batch (known before the log is read) with -1.
TEST_F(IdempotentAppendTest, ARefusedProduceReportsTheLogStartOffsetUnlessTheBatchIsBad) {
    auto p = lead();
    ProduceLimits limits;
    limits.produce_version = 9;
    ASSERT_EQ(p->append_records_as_leader(idempotent_batch(0, 3), limits).error, ErrorCode::none);
    ASSERT_EQ(p->delete_records_before(2).error, ErrorCode::none);
    const auto gap = p->append_records_as_leader(idempotent_batch(7, 1), limits);
    EXPECT_EQ(gap.error, ErrorCode::out_of_order_sequence_number);
    EXPECT_EQ(gap.log_start_offset, 2);
    auto corrupt = idempotent_batch(3, 1);
    corrupt.back() ^= 1;
    const auto bad = p->append_records_as_leader(corrupt, limits);
    EXPECT_EQ(bad.error, ErrorCode::corrupt_message);
    EXPECT_EQ(bad.log_start_offset, -1);
}

}  // namespace
}  // namespace weir::partitions
