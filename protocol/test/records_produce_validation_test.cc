// Kafka's LogValidator rules for the batches clients produce: offset range
// and record count (INVALID_RECORD), and for CreateTime topics a header
// maxTimestamp taken from the records, as Sarama 1.22 sends -1 there.
#include <gtest/gtest.h>

#include <string_view>

#include "protocol/records/record_batch.h"
#include "protocol/test/record_test_inputs.h"

namespace weir::records {
namespace {

using wire::DecodeError;

// Sarama 1.22.1 (Debian's golang-github-shopify-sarama-dev), Config.Version
// V2_0_0_0, three messages key-i / sarama-value-i with Timestamp
// 1700000000000+i and headers seq=i, empty="", one AsyncProducer flush, as
// stored by a broker that kept the bytes (base offset 0 and leader epoch 0 are
// also what Sarama sent). Sarama never fills in RecordBatch.MaxTimestamp, so
// the header says -1 (bytes 35..42) while the records go up to ...002.
const Bytes kSaramaPlain = {
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xa6, 0x00, 0x00, 0x00, 0x00, 0x02, 0xec,
    0x31, 0xac, 0x50, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x00, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x4c, 0x00, 0x00, 0x00, 0x0a, 0x6b, 0x65, 0x79, 0x2d, 0x30, 0x1c,
    0x73, 0x61, 0x72, 0x61, 0x6d, 0x61, 0x2d, 0x76, 0x61, 0x6c, 0x75, 0x65, 0x2d, 0x30, 0x04, 0x06, 0x73, 0x65,
    0x71, 0x02, 0x30, 0x0a, 0x65, 0x6d, 0x70, 0x74, 0x79, 0x00, 0x4c, 0x00, 0x02, 0x02, 0x0a, 0x6b, 0x65, 0x79,
    0x2d, 0x31, 0x1c, 0x73, 0x61, 0x72, 0x61, 0x6d, 0x61, 0x2d, 0x76, 0x61, 0x6c, 0x75, 0x65, 0x2d, 0x31, 0x04,
    0x06, 0x73, 0x65, 0x71, 0x02, 0x31, 0x0a, 0x65, 0x6d, 0x70, 0x74, 0x79, 0x00, 0x4c, 0x00, 0x04, 0x04, 0x0a,
    0x6b, 0x65, 0x79, 0x2d, 0x32, 0x1c, 0x73, 0x61, 0x72, 0x61, 0x6d, 0x61, 0x2d, 0x76, 0x61, 0x6c, 0x75, 0x65,
    0x2d, 0x32, 0x04, 0x06, 0x73, 0x65, 0x71, 0x02, 0x32, 0x0a, 0x65, 0x6d, 0x70, 0x74, 0x79, 0x00,
};

const Bytes kSaramaLz4 = {
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x9f, 0x00, 0x00, 0x00, 0x00, 0x02, 0xe9, 0x20,
    0xa3, 0xc7, 0x00, 0x03, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x00, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x03, 0x04, 0x22, 0x4d, 0x18, 0x64, 0x70, 0xb9, 0x5b, 0x00, 0x00, 0x00, 0xfa, 0x22, 0x4c, 0x00,
    0x00, 0x00, 0x0a, 0x6b, 0x65, 0x79, 0x2d, 0x30, 0x1c, 0x73, 0x61, 0x72, 0x61, 0x6d, 0x61, 0x2d, 0x76, 0x61, 0x6c,
    0x75, 0x65, 0x2d, 0x30, 0x04, 0x06, 0x73, 0x65, 0x71, 0x02, 0x30, 0x0a, 0x65, 0x6d, 0x70, 0x74, 0x79, 0x00, 0x4c,
    0x00, 0x02, 0x02, 0x0a, 0x6b, 0x65, 0x79, 0x2d, 0x31, 0x27, 0x00, 0x12, 0x31, 0x27, 0x00, 0x15, 0x31, 0x27, 0x00,
    0x88, 0x04, 0x04, 0x0a, 0x6b, 0x65, 0x79, 0x2d, 0x32, 0x27, 0x00, 0xf0, 0x02, 0x65, 0x2d, 0x32, 0x04, 0x06, 0x73,
    0x65, 0x71, 0x02, 0x32, 0x0a, 0x65, 0x6d, 0x70, 0x74, 0x79, 0x00, 0x00, 0x00, 0x00, 0x00, 0x3f, 0x4b, 0x14, 0x25,
};

constexpr std::int64_t kSaramaFirstTimestamp = 1'700'000'000'000;
constexpr std::size_t kMaxTimestampAt = 35;

std::vector<Record> sarama_records() {
    std::vector<Record> out(3);
    for (std::size_t i = 0; i < out.size(); ++i) {
        auto n = std::to_string(i);
        out[i].offset_delta = static_cast<std::int32_t>(i);
        out[i].timestamp_delta = static_cast<std::int64_t>(i);
        out[i].key = b("key-" + n);
        out[i].value = b("sarama-value-" + n);
        out[i].headers = {{"seq", b(n)}, {"empty", Bytes{}}};
    }
    return out;
}

std::vector<BatchHeader> validate(Bytes& batch, TimestampType type = TimestampType::create_time) {
    return validate_produced_batches(batch, type);
}

// Every byte but the CRC and maxTimestamp.
void expect_same_except_max_timestamp(const Bytes& before, const Bytes& after) {
    ASSERT_EQ(before.size(), after.size());
    for (std::size_t i = 0; i < before.size(); ++i) {
        bool crc = i >= kCrcOffset && i < kCrcOffset + 4;
        bool max_ts = i >= kMaxTimestampAt && i < kMaxTimestampAt + 8;
        if (!crc && !max_ts) {
            EXPECT_EQ(before[i], after[i]) << "byte " << i;
        }
    }
}

TEST(ProducedBatches, SaramaMaxTimestampIsTakenFromTheRecords) {
    for (const Bytes* golden : {&kSaramaPlain, &kSaramaLz4}) {
        Bytes batch = *golden;
        ASSERT_TRUE(crc_valid(batch));
        auto before = parse_batch_header(batch);
        ASSERT_EQ(before.max_timestamp, -1);
        ASSERT_EQ(before.base_timestamp, kSaramaFirstTimestamp);
        ASSERT_EQ(decode_records(batch), sarama_records());

        auto headers = validate(batch);
        ASSERT_EQ(headers.size(), 1u);
        EXPECT_EQ(headers[0].max_timestamp, kSaramaFirstTimestamp + 2);
        EXPECT_EQ(headers[0].timestamp_type(), TimestampType::create_time);
        EXPECT_EQ(headers[0].compression(), before.compression());
        EXPECT_EQ(headers[0].record_count, 3);
        EXPECT_TRUE(crc_valid(batch));
        EXPECT_EQ(parse_batch_header(batch), headers[0]);
        expect_same_except_max_timestamp(*golden, batch);
        EXPECT_EQ(decode_records(batch), sarama_records());

        // Validating again changes nothing.
        Bytes again = batch;
        validate(again);
        EXPECT_EQ(again, batch);
    }
}

TEST(ProducedBatches, MaxTimestampIsTheLargestRecordTimestampNotTheLast) {
    std::vector<Record> records(4);
    const std::int64_t deltas[] = {0, 7, -3, 2};
    for (std::size_t i = 0; i < records.size(); ++i) {
        records[i].offset_delta = static_cast<std::int32_t>(i);
        records[i].timestamp_delta = deltas[i];
        records[i].value = b("v");
    }
    for (auto c : {Compression::none, Compression::gzip, Compression::snappy, Compression::lz4, Compression::zstd}) {
        Bytes batch = build_batch({.compression = c, .base_timestamp = 5000}, records);
        ASSERT_TRUE(set_max_timestamp(batch, TimestampType::create_time, 4999));  // a producer's wrong claim
        EXPECT_EQ(validate(batch).at(0).max_timestamp, 5007) << static_cast<int>(c);
        EXPECT_TRUE(crc_valid(batch));
    }
}

TEST(ProducedBatches, CorrectHeaderIsLeftByteForByte) {
    Bytes batch = build_batch({.compression = Compression::gzip, .base_timestamp = 1000}, sarama_records());
    const Bytes original = batch;
    EXPECT_EQ(validate(batch).at(0).max_timestamp, 1002);
    EXPECT_EQ(batch, original);
}

TEST(ProducedBatches, RecordsWithoutTimestampsKeepMinusOne) {
    // Up-converted magic-0 messages: base timestamp -1, every delta 0.
    auto records = sarama_records();
    for (auto& r : records) r.timestamp_delta = 0;
    Bytes batch = build_batch({.base_timestamp = -1}, records);
    ASSERT_EQ(parse_batch_header(batch).max_timestamp, -1);
    const Bytes original = batch;
    EXPECT_EQ(validate(batch).at(0).max_timestamp, -1);
    EXPECT_EQ(batch, original);
}

TEST(ProducedBatches, EachOfSeveralBatchesIsFixed) {
    Bytes buf;
    for (std::int64_t i = 0; i < 3; ++i) {
        Bytes one =
            build_batch({.compression = Compression::lz4, .base_timestamp = 10'000 * (i + 1)}, sarama_records());
        set_max_timestamp(one, TimestampType::create_time, -1);
        buf.insert(buf.end(), one.begin(), one.end());
    }
    auto headers = validate(buf);
    ASSERT_EQ(headers.size(), 3u);
    std::size_t pos = 0;
    for (std::size_t i = 0; i < headers.size(); ++i) {
        EXPECT_EQ(headers[i].max_timestamp, 10'000 * static_cast<std::int64_t>(i + 1) + 2);
        ByteSpan one = ByteSpan(buf).subspan(pos, headers[i].total_size());
        EXPECT_TRUE(crc_valid(one));
        EXPECT_EQ(parse_batch_header(one), headers[i]);
        pos += headers[i].total_size();
    }
}

TEST(ProducedBatches, LogAppendTimeTopicLeavesStampingToTheLog) {
    Bytes batch = kSaramaLz4;
    validate(batch, TimestampType::log_append_time);
    EXPECT_EQ(batch, kSaramaLz4);
}

TEST(ProducedBatches, CreateTimeTopicClearsAProducersLogAppendTimeBit) {
    // As Kafka's setMaxTimestamp(CREATE_TIME, max) does; such records read as
    // the batch's maxTimestamp before and as their own deltas after.
    Bytes batch =
        build_batch({.timestamp_type = TimestampType::log_append_time, .base_timestamp = 100}, sarama_records());
    ASSERT_TRUE(set_max_timestamp(batch, TimestampType::log_append_time, 900));
    auto h = validate(batch).at(0);
    EXPECT_EQ(h.timestamp_type(), TimestampType::create_time);
    EXPECT_EQ(h.max_timestamp, 900);
    EXPECT_TRUE(crc_valid(batch));
}

TEST(ProducedBatches, SetMaxTimestampWritesOnlyOnChange) {
    Bytes batch = kSaramaPlain;
    EXPECT_FALSE(set_max_timestamp(batch, TimestampType::create_time, -1));
    EXPECT_EQ(batch, kSaramaPlain);
    EXPECT_TRUE(set_max_timestamp(batch, TimestampType::log_append_time, -1));  // the type alone
    EXPECT_EQ(parse_batch_header(batch).timestamp_type(), TimestampType::log_append_time);
    EXPECT_TRUE(crc_valid(batch));
    EXPECT_TRUE(set_max_timestamp(batch, TimestampType::create_time, -1));
    EXPECT_EQ(batch, kSaramaPlain);
}

// Re-seals a hand-edited batch's CRC.
void reseal_batch(Bytes& batch) {
    std::uint32_t crc = crc32c(ByteSpan(batch).subspan(kAttributesOffset));
    for (int i = 0; i < 4; ++i)
        batch[kCrcOffset + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(crc >> (24 - 8 * i));
}

void put32(Bytes& batch, std::size_t at, std::int32_t v) {
    auto u = static_cast<std::uint32_t>(v);
    for (int i = 0; i < 4; ++i) batch[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(u >> (24 - 8 * i));
    reseal_batch(batch);
}

TEST(ProducedBatches, OffsetRangeMustMatchRecordCount) {
    constexpr std::size_t kLastOffsetDeltaAt = 23;
    constexpr std::size_t kRecordCountAt = 57;
    for (std::int32_t last_offset_delta : {-1, 0, 1, 3, 100}) {
        Bytes batch = kSaramaLz4;
        put32(batch, kLastOffsetDeltaAt, last_offset_delta);
        EXPECT_THROW(validate(batch), InvalidRecordError) << last_offset_delta;
    }
    Bytes empty = build_batch({}, {});
    EXPECT_THROW(validate(empty), InvalidRecordError);
    Bytes zero = kSaramaPlain;
    put32(zero, kRecordCountAt, 0);
    put32(zero, kLastOffsetDeltaAt, -1);
    EXPECT_THROW(validate(zero), InvalidRecordError);
}

TEST(ProducedBatches, OffsetDeltasMustBeZeroToNMinusOne) {
    auto records = sarama_records();
    records[1].offset_delta = 2;  // 0, 2, 2: lastOffsetDelta 2 agrees with the count
    for (auto c : {Compression::none, Compression::lz4}) {
        Bytes batch = build_batch({.compression = c}, records);
        ASSERT_EQ(parse_batch_header(batch).last_offset_delta, 2);
        EXPECT_THROW(validate(batch), InvalidRecordError) << static_cast<int>(c);
    }
}

TEST(ProducedBatches, CorruptionIsNotAnInvalidRecord) {
    Bytes bad_crc = kSaramaLz4;
    bad_crc.back() ^= 0x01;
    try {
        validate(bad_crc);
        ADD_FAILURE() << "no exception";
    } catch (const InvalidRecordError& e) {
        ADD_FAILURE() << "CRC mismatch reported as an invalid record: " << e.what();
    } catch (const DecodeError&) {
    }
    Bytes truncated(kSaramaPlain.begin(), kSaramaPlain.end() - 1);
    EXPECT_THROW(validate(truncated), DecodeError);
}

}  // namespace
}  // namespace weir::records
