// The ReplicaManager: the produce path (Kafka's LogValidator checks with
// Kafka's error codes, a header maxTimestamp taken from the records, so that
// the time index and ListOffsets work for producers that leave it at -1, as
// Sarama 1.22 does), partitions following the metadata, and parked fetches.
#include "broker/partitions/replica_manager.h"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <memory>
#include <optional>

#include "broker/partitions/test/async_util.h"
#include "broker/partitions/test/local_replicas.h"
#include "broker/storage/test/storage_test_util.h"

namespace weir::partitions {
namespace {

using records::Compression;
using test::drained;
using test::poll;
using test::run_until;
using test::single_node_leader;
using test::spawn;

constexpr std::int64_t kTs = 1'700'000'000'000;
constexpr std::int32_t kBroker = 1;

// What Sarama 1.22 sends: offsets and record timestamps right, maxTimestamp -1.
wire::Bytes sarama_batch(int count, std::int64_t first_timestamp, Compression compression = Compression::none) {
    auto batch = storage::test::make_batch(count, 200, first_timestamp, compression);
    records::set_max_timestamp(batch, records::TimestampType::create_time, -1);
    return batch;
}

wire::Bytes batch_with_offset_deltas(std::vector<std::int32_t> deltas) {
    std::vector<records::Record> recs(deltas.size());
    for (std::size_t i = 0; i < deltas.size(); ++i) {
        recs[i].offset_delta = deltas[i];
        recs[i].timestamp_delta = static_cast<std::int64_t>(i);
        recs[i].value = wire::Bytes(10, 'v');
    }
    return records::build_batch({.compression = Compression::lz4, .base_timestamp = kTs}, recs);
}

wire::Bytes batch_with_keys(const std::vector<std::optional<std::string>>& keys) {
    std::vector<records::Record> recs(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
        recs[i].offset_delta = static_cast<std::int32_t>(i);
        if (keys[i]) recs[i].key = wire::Bytes(keys[i]->begin(), keys[i]->end());
        recs[i].value = wire::Bytes{'v'};
    }
    return records::build_batch({.base_timestamp = kTs}, recs);
}

struct Replicas : ::testing::Test {
    storage::test::TempDir tmp;
    boost::asio::io_context io;
    LogConfig config = [] {
        LogConfig c;
        c.index_interval_bytes = 300;  // an index entry every few batches
        c.flush_on_roll = false;
        return c;
    }();
    std::optional<test::LocalReplicas> local;
    TopicPartition tp{"sarama", 0};

    void SetUp() override {
        local.emplace(
            io.get_executor(), std::vector{tmp.path()}, [this](const std::string&) { return config; }, kBroker);
    }

    ReplicaManager& replicas() { return local->replicas(); }
    std::shared_ptr<Partition> partition() { return replicas().apply(tp, single_node_leader(kBroker)); }

    ProduceResult produce(const wire::Bytes& batch, std::int16_t version = 3) {
        partition();
        return replicas().produce(tp, batch, {.produce_version = version});
    }

    std::optional<TimestampAndOffset> offset_for(std::int64_t timestamp) {
        return partition()
            ->fetch_offset_for_timestamp(timestamp, FetchIsolation::high_watermark, kNoLeaderEpoch, true)
            .found;
    }
};

TEST_F(Replicas, CreateTimeMaxTimestampComesFromTheRecords) {
    const Compression codecs[] = {Compression::none, Compression::gzip, Compression::snappy, Compression::lz4,
                                  Compression::zstd};
    for (int i = 0; i < 30; ++i) {
        auto codec = codecs[i % 5];
        auto r = produce(sarama_batch(5, kTs + i * 10, codec), codec == Compression::zstd ? 7 : 3);
        ASSERT_EQ(r.error, ErrorCode::none) << "batch " << i << ": " << r.error_message;
        EXPECT_EQ(r.base_offset, i * 5);
        EXPECT_EQ(r.last_offset, i * 5 + 4);
        EXPECT_EQ(r.log_append_time, -1);
    }
    EXPECT_EQ(partition()->log_end_offset(), 150);
    auto stored = partition()->read(0, {.max_bytes = 1 << 20}).records;
    auto batches = records::split_batches(stored.bytes(), false);
    ASSERT_EQ(batches.size(), 30u);
    for (std::size_t i = 0; i < batches.size(); ++i) {
        auto h = records::parse_batch_header(batches[i]);
        EXPECT_EQ(h.max_timestamp, kTs + static_cast<std::int64_t>(i) * 10 + 4) << i;
        EXPECT_EQ(h.timestamp_type(), records::TimestampType::create_time);
        EXPECT_TRUE(records::crc_valid(batches[i])) << i;
    }
    EXPECT_EQ(offset_for(kTs + 123), (TimestampAndOffset{63, kTs + 123, 0}));
    EXPECT_EQ(offset_for(kMaxTimestamp), (TimestampAndOffset{149, kTs + 294, 0}));
}

TEST_F(Replicas, LogAppendTimeReplacesTheMissingMaxTimestamp) {
    config.message_timestamp_type = records::TimestampType::log_append_time;
    for (int i = 0; i < 10; ++i) {
        auto r = produce(sarama_batch(5, kTs, Compression::lz4));
        ASSERT_EQ(r.error, ErrorCode::none) << r.error_message;
        ASSERT_GT(r.log_append_time, 0);
        auto h = records::parse_batch_header(partition()->read(r.base_offset).records.bytes());
        EXPECT_EQ(h.timestamp_type(), records::TimestampType::log_append_time);
        EXPECT_EQ(h.max_timestamp, r.log_append_time);
    }
}

TEST_F(Replicas, OffsetsThatDisagreeWithTheRecordCountAreInvalidRecords) {
    for (const auto& deltas : std::vector<std::vector<std::int32_t>>{{0, 1, 5}, {0, 2, 2}, {1, 2, 3}}) {
        auto r = produce(batch_with_offset_deltas(deltas));
        EXPECT_EQ(r.error, ErrorCode::invalid_record) << deltas[1] << " " << r.error_message;
    }
    auto empty = records::build_batch({}, {});
    EXPECT_EQ(produce(empty).error, ErrorCode::invalid_record);
    auto corrupt = sarama_batch(3, kTs);
    corrupt.back() ^= 0x01;
    EXPECT_EQ(produce(corrupt).error, ErrorCode::corrupt_message);
    EXPECT_EQ(partition()->log_end_offset(), 0);
}

TEST_F(Replicas, CompactedTopicsRefuseRecordsWithoutKeys) {
    config.cleanup_compact = true;
    auto r = produce(batch_with_keys({"a", std::nullopt}));
    EXPECT_EQ(r.error, ErrorCode::invalid_record);
    ASSERT_EQ(r.record_errors.size(), 1u);
    EXPECT_EQ(r.record_errors[0].batch_index, 1);
    EXPECT_EQ(r.record_errors[0].message,
              "Compacted topic cannot accept message without key in topic partition sarama-0.");
    EXPECT_EQ(r.log_start_offset, 0);
    EXPECT_EQ(produce(batch_with_keys({"a", "b"})).error, ErrorCode::none);
}

TEST_F(Replicas, PartitionsFollowTheMetadata) {
    EXPECT_EQ(replicas().produce(tp, sarama_batch(1, kTs), {.produce_version = 3}).error,
              ErrorCode::unknown_topic_or_partition);
    // Not assigned to this broker: not hosted.
    EXPECT_EQ(replicas().apply({"elsewhere", 0}, {2, 0, {2}, {2}}), nullptr);
    EXPECT_EQ(replicas().get({"elsewhere", 0}), nullptr);
    // Assigned, led elsewhere: hosted, refuses leader work.
    auto follower = replicas().apply({"followed", 0}, {2, 0, {2, kBroker}, {2, kBroker}});
    ASSERT_NE(follower, nullptr);
    EXPECT_FALSE(follower->is_leader());
    EXPECT_EQ(replicas().produce({"followed", 0}, sarama_batch(1, kTs), {.produce_version = 3}).error,
              ErrorCode::not_leader_or_follower);
    EXPECT_EQ(follower->read(0).error, ErrorCode::not_leader_or_follower);

    auto leader = partition();
    EXPECT_EQ(replicas().get(tp), leader);
    EXPECT_TRUE(leader->is_leader());
    EXPECT_EQ(replicas().apply(tp, single_node_leader(kBroker)), leader);  // the same again: no change
    ASSERT_EQ(produce(sarama_batch(2, kTs)).error, ErrorCode::none);

    auto dir = leader->dir();
    replicas().remove_topic("sarama");
    EXPECT_EQ(replicas().get(tp), nullptr);
    EXPECT_TRUE(leader->stopped());
    EXPECT_EQ(leader->read(0).error, ErrorCode::unknown_topic_or_partition);
    EXPECT_FALSE(std::filesystem::exists(dir));
}

TEST_F(Replicas, AcksAllOnOneNodeNeverWaits) {
    auto r = produce(sarama_batch(3, kTs));
    ASSERT_EQ(r.error, ErrorCode::none);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    auto acked = spawn(io, replicas().wait_for_high_watermark(tp, r.last_offset + 1, deadline));
    poll(io);  // no timer may be involved: done without waiting
    ASSERT_TRUE(acked->has_value());
    EXPECT_EQ(**acked, ErrorCode::none);
    auto unknown = spawn(io, replicas().wait_for_high_watermark({"nope", 0}, 1, deadline));
    poll(io);
    ASSERT_TRUE(unknown->has_value());
    EXPECT_EQ(**unknown, ErrorCode::unknown_topic_or_partition);
}

TEST_F(Replicas, ParkedFetchWakesOnAppend) {
    auto leader = partition();
    const auto start = std::chrono::steady_clock::now();
    std::vector<FetchPartition> reads{{leader, 0, 1 << 20, kNoLeaderEpoch}};
    auto fetched =
        spawn(io, replicas().fetch({.min_bytes = 1, .max_bytes = 1 << 20, .deadline = start + std::chrono::seconds(30)},
                                   reads, {}));
    poll(io);
    EXPECT_FALSE(fetched->has_value()) << "nothing to read: the fetch parks";
    ASSERT_EQ(produce(sarama_batch(3, kTs)).error, ErrorCode::none);
    ASSERT_TRUE(run_until(io, [&] { return fetched->has_value(); }));
    const auto& result = (**fetched).partitions.at(0);
    EXPECT_EQ(result.error, ErrorCode::none);
    ASSERT_TRUE(result.records);
    EXPECT_EQ(storage::test::headers_of(result.records->bytes()).size(), 1u);
    EXPECT_EQ(result.high_watermark, 3);
    EXPECT_TRUE(drained(io));
}

TEST_F(Replicas, ParkedFetchAnswersEmptyAtItsDeadline) {
    auto leader = partition();
    std::vector<FetchPartition> reads{{leader, 0, 1 << 20, kNoLeaderEpoch}};
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
    auto fetched = spawn(io, replicas().fetch({.min_bytes = 1, .max_bytes = 1 << 20, .deadline = deadline}, reads, {}));
    ASSERT_TRUE(run_until(io, [&] { return fetched->has_value(); }));
    EXPECT_GE(std::chrono::steady_clock::now(), deadline);
    const auto& result = (**fetched).partitions.at(0);
    EXPECT_EQ(result.error, ErrorCode::none);
    ASSERT_TRUE(result.records);
    EXPECT_TRUE(result.records->empty());
    EXPECT_TRUE(drained(io));
}

TEST_F(Replicas, RemovalWakesParkedFetchesAndAcksWithAnError) {
    // Two in-sync replicas, the other one silent: nothing becomes visible.
    auto leader = replicas().apply(tp, {kBroker, 0, {kBroker, 2}, {kBroker, 2}});
    auto r = replicas().produce(tp, sarama_batch(3, kTs), {.produce_version = 3});
    ASSERT_EQ(r.error, ErrorCode::none);
    const auto far = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    auto acked = spawn(io, replicas().wait_for_high_watermark(tp, r.last_offset + 1, far));
    std::vector<FetchPartition> reads{{leader, 0, 1 << 20, kNoLeaderEpoch}};
    auto fetched = spawn(io, replicas().fetch({.min_bytes = 1, .max_bytes = 1 << 20, .deadline = far}, reads, {}));
    poll(io);
    ASSERT_FALSE(acked->has_value());
    ASSERT_FALSE(fetched->has_value());

    EXPECT_TRUE(replicas().remove(tp));
    ASSERT_TRUE(run_until(io, [&] { return acked->has_value() && fetched->has_value(); }));
    EXPECT_EQ(**acked, ErrorCode::unknown_topic_or_partition);
    EXPECT_EQ((**fetched).partitions.at(0).error, ErrorCode::unknown_topic_or_partition);
    EXPECT_FALSE((**fetched).partitions.at(0).records);
    EXPECT_TRUE(drained(io)) << "a timer outlived its waiter";
}

TEST_F(Replicas, ShutdownWakesEverythingAndParksNothingMore) {
    auto leader = replicas().apply(tp, {kBroker, 0, {kBroker, 2}, {kBroker, 2}});
    auto r = replicas().produce(tp, sarama_batch(3, kTs), {.produce_version = 3});
    const auto far = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    auto acked = spawn(io, replicas().wait_for_high_watermark(tp, r.last_offset + 1, far));
    std::vector<FetchPartition> reads{{leader, 0, 1 << 20, kNoLeaderEpoch}};
    auto fetched = spawn(io, replicas().fetch({.min_bytes = 1, .max_bytes = 1 << 20, .deadline = far}, reads, {}));
    poll(io);
    ASSERT_FALSE(fetched->has_value());

    replicas().wake_all();
    ASSERT_TRUE(run_until(io, [&] { return acked->has_value() && fetched->has_value(); }));
    EXPECT_EQ(**acked, ErrorCode::request_timed_out);
    EXPECT_EQ((**fetched).partitions.at(0).error, ErrorCode::none);
    auto again = spawn(io, replicas().fetch({.min_bytes = 1, .max_bytes = 1 << 20, .deadline = far}, reads, {}));
    auto acked_again = spawn(io, replicas().wait_for_high_watermark(tp, r.last_offset + 1, far));
    poll(io);
    EXPECT_TRUE(again->has_value());
    ASSERT_TRUE(acked_again->has_value());
    EXPECT_EQ(**acked_again, ErrorCode::request_timed_out);
    EXPECT_TRUE(drained(io));
}

TEST_F(Replicas, RetentionKeepsWhatTheHighWatermarkHasNotPassed) {
    config.segment_bytes = 1000;
    config.retention_bytes = 0;
    auto leader = replicas().apply(tp, {kBroker, 0, {kBroker, 2}, {kBroker, 2}});
    for (int i = 0; i < 10; ++i)
        ASSERT_EQ(replicas().produce(tp, sarama_batch(3, kTs), {.produce_version = 3}).error, ErrorCode::none);
    ASSERT_GT(leader->segment_base_offsets().size(), 3u);
    EXPECT_EQ(leader->high_watermark(), 0);
    EXPECT_EQ(local->enforce_retention(), 0u);
    leader->update_follower_position(2, leader->log_end_offset());
    EXPECT_EQ(leader->high_watermark(), 30);
    EXPECT_GT(local->enforce_retention(), 0u);
    EXPECT_EQ(leader->segment_base_offsets().size(), 1u);
}

}  // namespace
}  // namespace weir::partitions
