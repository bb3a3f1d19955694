// A Partition: the high watermark and last stable offset it owns, the
// acks=all waiters they complete, fetches woken when they move, and
// leadership changes as OffsetForLeaderEpoch, ListOffsets and Fetch see them.
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <memory>
#include <optional>
#include <tuple>

#include "broker/partitions/replica_manager.h"
#include "broker/partitions/test/async_util.h"
#include "broker/partitions/test/local_replicas.h"
#include "broker/storage/test/storage_test_util.h"

namespace weir::partitions {
namespace {

using test::drained;
using test::poll;
using test::run_until;
using test::single_node_leader;
using test::spawn;

using test::kLocal;
constexpr std::int32_t kFollowerA = 2;
constexpr std::int32_t kFollowerB = 3;
constexpr auto kFar = std::chrono::seconds(60);

struct PartitionTest : ::testing::Test {
    storage::test::TempDir tmp;
    boost::asio::io_context io;
    std::optional<test::LocalReplicas> local;
    TopicPartition tp{"t", 0};

    void SetUp() override {
        local.emplace(
            io.get_executor(), std::vector{tmp.path()}, [](const std::string&) { return LogConfig{}; }, kLocal);
    }

    ReplicaManager& replicas() { return local->replicas(); }
    std::shared_ptr<Partition> lead(std::int32_t epoch = 0, std::vector<std::int32_t> isr = {kLocal}) {
        std::vector<std::int32_t> assigned{kLocal, kFollowerA, kFollowerB};
        return replicas().apply(tp, {kLocal, epoch, assigned, std::move(isr)});
    }

    // Appends `count` records; the offset after the last.
    static std::int64_t append(Partition& partition, int count) {
        auto batch = storage::test::make_batch(count);
        auto r = partition.append(batch);
        EXPECT_EQ(r.error, ErrorCode::none) << r.error_message;
        return r.last_offset + 1;
    }
    static std::size_t visible_batches(const Partition& partition, FetchIsolation isolation) {
        return storage::test::headers_of(partition.read(0, {.isolation = isolation}).records.bytes()).size();
    }
};

TEST_F(PartitionTest, OnOneNodeTheHighWatermarkIsTheLogEnd) {
    auto p = replicas().apply(tp, single_node_leader(kLocal));
    EXPECT_EQ(p->high_watermark(), 0);
    EXPECT_EQ(append(*p, 5), 5);
    EXPECT_EQ(p->high_watermark(), 5);
    EXPECT_EQ(p->last_stable_offset(), 5);
    EXPECT_EQ(visible_batches(*p, FetchIsolation::high_watermark), 1u);
    EXPECT_EQ(visible_batches(*p, FetchIsolation::txn_committed), 1u);
}

TEST_F(PartitionTest, TheHighWatermarkIsTheSmallestLogEndOfTheIsr) {
    auto p = lead(0, {kLocal, kFollowerA, kFollowerB});
    append(*p, 5);
    append(*p, 5);
    EXPECT_EQ(p->log_end_offset(), 10);
    EXPECT_EQ(p->high_watermark(), 0);
    EXPECT_EQ(p->last_stable_offset(), 0);
    EXPECT_EQ(visible_batches(*p, FetchIsolation::high_watermark), 0u);
    EXPECT_EQ(visible_batches(*p, FetchIsolation::log_end), 2u);

    EXPECT_TRUE(p->update_follower_position(kFollowerA, 10));
    EXPECT_EQ(p->high_watermark(), 0);  // B has not fetched yet
    EXPECT_TRUE(p->update_follower_position(kFollowerB, 5));
    EXPECT_EQ(p->high_watermark(), 5);
    EXPECT_EQ(p->last_stable_offset(), 5);
    EXPECT_EQ(visible_batches(*p, FetchIsolation::high_watermark), 1u);
    EXPECT_TRUE(p->update_follower_position(kFollowerB, 3));  // never moves back
    EXPECT_EQ(p->high_watermark(), 5);
    EXPECT_FALSE(p->update_follower_position(7, 10));  // not a replica
    EXPECT_EQ(p->high_watermark(), 5);

    // B leaves the ISR: only A holds the high watermark back.
    ASSERT_EQ(p->make_leader({kLocal, 0, {kLocal, kFollowerA, kFollowerB}, {kLocal, kFollowerA}}), ErrorCode::none);
    EXPECT_EQ(p->high_watermark(), 10);
    EXPECT_EQ(visible_batches(*p, FetchIsolation::high_watermark), 2u);
}

TEST_F(PartitionTest, DeleteRecordsStopsAtTheHighWatermark) {
    auto p = lead(0, {kLocal, kFollowerA});
    append(*p, 10);
    EXPECT_EQ(p->delete_records_before(5).error, ErrorCode::offset_out_of_range);
    p->update_follower_position(kFollowerA, 8);
    auto deleted = p->delete_records_before(5);
    EXPECT_EQ(deleted.error, ErrorCode::none);
    EXPECT_EQ(deleted.low_watermark, 5);
    deleted = p->delete_records_before(kDeleteUpToHighWatermark);
    EXPECT_EQ(deleted.error, ErrorCode::none);
    EXPECT_EQ(deleted.low_watermark, 8);
    EXPECT_EQ(p->delete_records_before(-7).error, ErrorCode::offset_out_of_range);
}

TEST_F(PartitionTest, AcksAllWaiterCompletesWhenTheHighWatermarkReachesIt) {
    auto p = lead(0, {kLocal, kFollowerA});
    auto end = append(*p, 5);
    auto acked = spawn(io, p->wait_for_high_watermark(end, std::chrono::steady_clock::now() + kFar));
    poll(io);
    EXPECT_FALSE(acked->has_value());
    p->update_follower_position(kFollowerA, end - 1);
    poll(io);
    EXPECT_FALSE(acked->has_value()) << "completed before the high watermark reached it";
    p->update_follower_position(kFollowerA, end);
    ASSERT_TRUE(run_until(io, [&] { return acked->has_value(); }));
    EXPECT_EQ(**acked, ErrorCode::none);
    EXPECT_TRUE(drained(io));
}

TEST_F(PartitionTest, AcksAllWaiterTimesOut) {
    auto p = lead(0, {kLocal, kFollowerA});
    auto end = append(*p, 5);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
    auto acked = spawn(io, p->wait_for_high_watermark(end, deadline));
    ASSERT_TRUE(run_until(io, [&] { return acked->has_value(); }));
    EXPECT_GE(std::chrono::steady_clock::now(), deadline);
    EXPECT_EQ(**acked, ErrorCode::request_timed_out);
    // A follower catching up later completes nothing that is gone.
    p->update_follower_position(kFollowerA, end);
    EXPECT_TRUE(drained(io));
}

TEST_F(PartitionTest, AcksAllWaiterFailsWhenLeadershipMoves) {
    auto p = lead(0, {kLocal, kFollowerA});
    auto end = append(*p, 5);
    auto acked = spawn(io, p->wait_for_high_watermark(end, std::chrono::steady_clock::now() + kFar));
    poll(io);
    ASSERT_FALSE(acked->has_value());
    ASSERT_EQ(p->make_follower({kFollowerA, 1, {kLocal, kFollowerA, kFollowerB}, {kLocal, kFollowerA}}),
              ErrorCode::none);
    ASSERT_TRUE(run_until(io, [&] { return acked->has_value(); }));
    EXPECT_EQ(**acked, ErrorCode::not_leader_or_follower);
    auto batch = storage::test::make_batch(1);
    EXPECT_EQ(p->append(batch).error, ErrorCode::not_leader_or_follower);
    EXPECT_TRUE(drained(io));
}

TEST_F(PartitionTest, ParkedFetchWakesWhenTheHighWatermarkMoves) {
    auto p = lead(0, {kLocal, kFollowerA});
    auto end = append(*p, 5);
    std::vector<FetchPartition> reads{{p, 0, 1 << 20, kNoLeaderEpoch}};
    FetchParams params{.min_bytes = 1, .max_bytes = 1 << 20, .deadline = std::chrono::steady_clock::now() + kFar};
    auto fetched = spawn(io, replicas().fetch(params, reads, {}));
    poll(io);
    EXPECT_FALSE(fetched->has_value()) << "read data above the high watermark";
    p->update_follower_position(kFollowerA, end);
    ASSERT_TRUE(run_until(io, [&] { return fetched->has_value(); }));
    const auto& result = (**fetched).partitions.at(0);
    EXPECT_EQ(result.error, ErrorCode::none);
    EXPECT_EQ(result.high_watermark, end);
    ASSERT_TRUE(result.records);
    EXPECT_EQ(storage::test::headers_of(result.records->bytes()).size(), 1u);
    EXPECT_TRUE(drained(io));
}

TEST_F(PartitionTest, ANewEpochFencesOlderOnesAndStartsInTheHistory) {
    auto p = replicas().apply(tp, single_node_leader(kLocal, 0));
    append(*p, 5);  // epoch 0: offsets 0..4
    ASSERT_EQ(replicas().apply(tp, single_node_leader(kLocal, 1)), p);
    EXPECT_EQ(p->leader_epoch(), 1);
    append(*p, 3);  // epoch 1: offsets 5..7
    // The batches carry the epoch they were written in.
    auto headers = storage::test::headers_of(p->read(0).records.bytes());
    ASSERT_EQ(headers.size(), 2u);
    EXPECT_EQ(headers[0].partition_leader_epoch, 0);
    EXPECT_EQ(headers[1].partition_leader_epoch, 1);

    // Kafka's checkCurrentLeaderEpoch.
    EXPECT_EQ(p->check_leader_epoch(0), ErrorCode::fenced_leader_epoch);
    EXPECT_EQ(p->check_leader_epoch(2), ErrorCode::unknown_leader_epoch);
    EXPECT_EQ(p->check_leader_epoch(1), ErrorCode::none);
    EXPECT_EQ(p->check_leader_epoch(kNoLeaderEpoch), ErrorCode::none);

    // Fetch.
    EXPECT_EQ(p->read(0, {.current_leader_epoch = 0}).error, ErrorCode::fenced_leader_epoch);
    EXPECT_EQ(p->read(0, {.current_leader_epoch = 0}).high_watermark, -1);
    EXPECT_EQ(p->read(0, {.current_leader_epoch = 2}).error, ErrorCode::unknown_leader_epoch);
    EXPECT_EQ(p->read(0, {.current_leader_epoch = 1}).error, ErrorCode::none);

    // ListOffsets.
    auto latest = [&](std::int32_t epoch) {
        return p->fetch_offset_for_timestamp(kLatestTimestamp, FetchIsolation::high_watermark, epoch, true);
    };
    EXPECT_EQ(latest(0).error, ErrorCode::fenced_leader_epoch);
    EXPECT_EQ(latest(2).error, ErrorCode::unknown_leader_epoch);
    EXPECT_EQ(latest(1).found, (TimestampAndOffset{8, -1, 1}));
    auto first = p->fetch_offset_for_timestamp(0, FetchIsolation::high_watermark, kNoLeaderEpoch, true);
    EXPECT_EQ(first.found, (TimestampAndOffset{0, 1000, 0}));  // its batch's epoch

    // OffsetForLeaderEpoch: epoch 0 ended where epoch 1 started.
    auto end_of = [&](std::int32_t current, std::int32_t epoch) {
        auto r = p->last_offset_for_leader_epoch(current, epoch, true);
        return std::tuple{r.error, r.leader_epoch, r.end_offset};
    };
    EXPECT_EQ(end_of(kNoLeaderEpoch, 0), std::tuple(ErrorCode::none, 0, std::int64_t{5}));
    EXPECT_EQ(end_of(1, 1), std::tuple(ErrorCode::none, 1, std::int64_t{8}));
    EXPECT_EQ(end_of(1, 4), std::tuple(ErrorCode::none, 1, std::int64_t{8}));
    EXPECT_EQ(end_of(1, kNoLeaderEpoch), std::tuple(ErrorCode::none, -1, std::int64_t{-1}));
    EXPECT_EQ(end_of(0, 0), std::tuple(ErrorCode::fenced_leader_epoch, -1, std::int64_t{-1}));
    EXPECT_EQ(end_of(2, 0), std::tuple(ErrorCode::unknown_leader_epoch, -1, std::int64_t{-1}));

    // An older epoch arriving late changes nothing.
    EXPECT_EQ(p->make_leader(single_node_leader(kLocal, 0)), ErrorCode::stale_controller_epoch);
    EXPECT_EQ(p->leader_epoch(), 1);
}

TEST_F(PartitionTest, AParkedFetchSeesTheEpochMove) {
    auto p = replicas().apply(tp, single_node_leader(kLocal, 3));
    std::vector<FetchPartition> reads{{p, 0, 1 << 20, 3}};
    FetchParams params{.min_bytes = 1, .max_bytes = 1 << 20, .deadline = std::chrono::steady_clock::now() + kFar};
    auto fetched = spawn(io, replicas().fetch(params, reads, {}));
    poll(io);
    ASSERT_FALSE(fetched->has_value());
    replicas().apply(tp, single_node_leader(kLocal, 4));
    ASSERT_TRUE(run_until(io, [&] { return fetched->has_value(); }));
    EXPECT_EQ((**fetched).partitions.at(0).error, ErrorCode::fenced_leader_epoch);
    EXPECT_TRUE(drained(io));
}

// Kafka's HostedPartition.Offline: once an append meets a failed disk (here
// its dir is gone, so the segment rolled to cannot be created), the partition
// answers KAFKA_STORAGE_ERROR to everything, without touching the log again.
TEST_F(PartitionTest, APartitionWhoseDiskFailedAnswersStorageErrors) {
    storage::test::TempDir dir;
    test::LocalReplicas failing(
        io.get_executor(), std::vector{dir.path()}, [](const std::string&) { return storage::test::small_segments(); },
        kLocal);
    auto p = failing.replicas().apply(tp, single_node_leader(kLocal));
    append(*p, 3);
    std::filesystem::remove_all(dir.path());
    ErrorCode error = ErrorCode::none;
    for (int i = 0; i < 20 && error == ErrorCode::none; ++i) {  // until a roll needs a new file
        auto batch = storage::test::make_batch(20);
        error = p->append(batch).error;
    }
    EXPECT_EQ(error, ErrorCode::kafka_storage_error);
    EXPECT_TRUE(p->offline());
    auto batch = storage::test::make_batch(1);
    EXPECT_EQ(p->append(batch).error, ErrorCode::kafka_storage_error);
    EXPECT_EQ(p->read(0).error, ErrorCode::kafka_storage_error);
    EXPECT_EQ(
        p->fetch_offset_for_timestamp(kEarliestTimestamp, FetchIsolation::high_watermark, kNoLeaderEpoch, true).error,
        ErrorCode::kafka_storage_error);
    EXPECT_EQ(p->append_as_follower(batch).error, ErrorCode::kafka_storage_error);
}

}  // namespace
}  // namespace weir::partitions
