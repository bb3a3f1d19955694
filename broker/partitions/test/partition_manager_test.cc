// The produce path: Kafka's LogValidator checks with Kafka's error codes, and
// a header maxTimestamp taken from the records, so that the time index and
// ListOffsets work for producers that leave it at -1 (Sarama 1.22).
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <memory>

#include "broker/partitions/partition_manager.h"
#include "broker/storage/test/storage_test_util.h"

namespace weir::partitions {
namespace {

using records::Compression;
using storage::FoundRecord;

constexpr std::int64_t kTs = 1'700'000'000'000;

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

struct Produce : ::testing::Test {
    storage::test::TempDir tmp;
    boost::asio::io_context io;
    storage::LogConfig config = [] {
        storage::LogConfig c;
        c.index_interval_bytes = 300;  // an index entry every few batches
        c.flush_on_roll = false;
        return c;
    }();
    std::unique_ptr<storage::LogManager> logs;
    std::unique_ptr<PartitionManager> partitions;
    TopicPartition tp{"sarama", 0};

    void SetUp() override {
        auto lookup = [this](const std::string&) { return config; };
        storage::LogManagerOptions options;
        options.log_dirs = {tmp.path()};
        options.config_for_topic = lookup;
        logs = std::make_unique<storage::LogManager>(std::move(options));
        partitions = std::make_unique<PartitionManager>(io.get_executor(), *logs, lookup);
    }

    std::shared_ptr<storage::PartitionLog> log() { return partitions->ensure(tp); }

    ProduceResult produce(const wire::Bytes& batch, std::int16_t version = 3) {
        log();
        return partitions->produce(tp, batch, {.max_message_bytes = 1 << 20, .produce_version = version});
    }
};

TEST_F(Produce, CreateTimeMaxTimestampComesFromTheRecords) {
    const Compression codecs[] = {Compression::none, Compression::gzip, Compression::snappy, Compression::lz4,
                                  Compression::zstd};
    for (int i = 0; i < 30; ++i) {
        auto codec = codecs[i % 5];
        auto r = produce(sarama_batch(5, kTs + i * 10, codec), codec == Compression::zstd ? 7 : 3);
        ASSERT_EQ(r.error, ErrorCode::none) << "batch " << i << ": " << r.error_message;
        EXPECT_EQ(r.base_offset, i * 5);
        EXPECT_EQ(r.log_append_time, -1);
    }
    EXPECT_EQ(log()->log_end_offset(), 150);
    auto stored = log()->read(0, {.max_bytes = 1 << 20}).records;
    auto batches = records::split_batches(stored, false);
    ASSERT_EQ(batches.size(), 30u);
    for (std::size_t i = 0; i < batches.size(); ++i) {
        auto h = records::parse_batch_header(batches[i]);
        EXPECT_EQ(h.max_timestamp, kTs + static_cast<std::int64_t>(i) * 10 + 4) << i;
        EXPECT_EQ(h.timestamp_type(), records::TimestampType::create_time);
        EXPECT_TRUE(records::crc_valid(batches[i])) << i;
    }
    EXPECT_EQ(log()->offset_for_timestamp(kTs + 123), (FoundRecord{63, kTs + 123, 0}));
    EXPECT_EQ(log()->max_timestamp(), (FoundRecord{149, kTs + 294, 0}));
}

TEST_F(Produce, LogAppendTimeReplacesTheMissingMaxTimestamp) {
    config.message_timestamp_type = records::TimestampType::log_append_time;
    for (int i = 0; i < 10; ++i) {
        auto r = produce(sarama_batch(5, kTs, Compression::lz4));
        ASSERT_EQ(r.error, ErrorCode::none) << r.error_message;
        ASSERT_GT(r.log_append_time, 0);
        auto h = records::parse_batch_header(log()->read(r.base_offset).records);
        EXPECT_EQ(h.timestamp_type(), records::TimestampType::log_append_time);
        EXPECT_EQ(h.max_timestamp, r.log_append_time);
    }
}

TEST_F(Produce, OffsetsThatDisagreeWithTheRecordCountAreInvalidRecords) {
    for (const auto& deltas : std::vector<std::vector<std::int32_t>>{{0, 1, 5}, {0, 2, 2}, {1, 2, 3}}) {
        auto r = produce(batch_with_offset_deltas(deltas));
        EXPECT_EQ(r.error, ErrorCode::invalid_record) << deltas[1] << " " << r.error_message;
    }
    auto empty = records::build_batch({}, {});
    EXPECT_EQ(produce(empty).error, ErrorCode::invalid_record);
    auto corrupt = sarama_batch(3, kTs);
    corrupt.back() ^= 0x01;
    EXPECT_EQ(produce(corrupt).error, ErrorCode::corrupt_message);
    EXPECT_EQ(log()->log_end_offset(), 0);
}

}  // namespace
}  // namespace weir::partitions
