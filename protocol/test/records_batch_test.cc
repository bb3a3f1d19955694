// v2 record batches: client-built golden bytes, build/parse/decode round trips
// for every codec, and rejection of corrupt, truncated or hostile input.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "protocol/records/compression.h"
#include "protocol/records/record_batch.h"
#include "protocol/test/record_test_inputs.h"
#include "protocol/wire/writer.h"

namespace weir::records {
namespace {

using wire::DecodeError;

// Made with Debian's python3-kafka 2.0.2 (kafka/record/default_records.py):
//   b = DefaultRecordBatchBuilder(magic=2, compression_type=0, is_transactional=0,
//         producer_id=1000, producer_epoch=3, base_sequence=7, batch_size=1<<20)
//   b.append(0, timestamp=1700000000000, key=b'key-0', value=b'value-0',
//            headers=[('h1', b'v1'), ('h2', None)])
//   b.append(1, timestamp=1700000000005, key=None, value=b'value-1', headers=[])
//   b.append(2, timestamp=1700000000003, key=b'key-2', value=None, headers=[])
//   b.build()
const Bytes kPythonPlain = {
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x68, 0x00, 0x00, 0x00, 0x00, 0x02,
    0x98, 0x74, 0xb6, 0x4b, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68,
    0x00, 0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xe8,
    0x00, 0x03, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x03, 0x38, 0x00, 0x00, 0x00, 0x0a, 0x6b, 0x65,
    0x79, 0x2d, 0x30, 0x0e, 0x76, 0x61, 0x6c, 0x75, 0x65, 0x2d, 0x30, 0x04, 0x04, 0x68, 0x31, 0x04, 0x76,
    0x31, 0x04, 0x68, 0x32, 0x01, 0x1a, 0x00, 0x0a, 0x02, 0x01, 0x0e, 0x76, 0x61, 0x6c, 0x75, 0x65, 0x2d,
    0x31, 0x00, 0x16, 0x00, 0x06, 0x04, 0x0a, 0x6b, 0x65, 0x79, 0x2d, 0x32, 0x01, 0x00,
};

// Same tool, gzip (compression_type=1, producer fields -1), five records:
//   for i in range(5): b.append(i, timestamp=1700000000000+i, key=None,
//                               value=b'gzip-value-%d-' % i + b'x'*40, headers=[])
const Bytes kPythonGzip = {
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x7c, 0x00, 0x00, 0x00, 0x00, 0x02,
    0x37, 0xea, 0x24, 0xee, 0x00, 0x01, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68,
    0x00, 0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x04, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x05, 0x1f, 0x8b, 0x08, 0x00, 0x08, 0xdd, 0x0f,
    0x6b, 0x02, 0xff, 0x2b, 0x63, 0x60, 0x60, 0x60, 0xcc, 0x4a, 0xaf, 0xca, 0x2c, 0xd0, 0x2d, 0x4b, 0xcc,
    0x29, 0x4d, 0xd5, 0x35, 0xd0, 0xad, 0x20, 0x12, 0x30, 0x94, 0x31, 0x30, 0x31, 0xa1, 0xe8, 0x35, 0x24,
    0x45, 0x2f, 0x0b, 0x0b, 0x8a, 0x5e, 0x23, 0x52, 0xf4, 0xb2, 0xb1, 0xa1, 0xe8, 0x35, 0x26, 0x45, 0x2f,
    0x07, 0x07, 0x8a, 0x5e, 0x13, 0xe2, 0xf5, 0x02, 0x00, 0x13, 0xe7, 0x9d, 0x1c, 0x2c, 0x01, 0x00, 0x00,
};

std::vector<Record> python_plain_records() {
    std::vector<Record> r(3);
    r[0].offset_delta = 0;
    r[0].timestamp_delta = 0;
    r[0].key = b("key-0");
    r[0].value = b("value-0");
    r[0].headers = {{"h1", b("v1")}, {"h2", std::nullopt}};
    r[1].offset_delta = 1;
    r[1].timestamp_delta = 5;
    r[1].value = b("value-1");
    r[2].offset_delta = 2;
    r[2].timestamp_delta = 3;
    r[2].key = b("key-2");
    return r;
}

TEST(RecordBatch, ParsesClientHeader) {
    BatchHeader h = parse_batch_header(kPythonPlain);
    EXPECT_EQ(h.base_offset, 0);
    EXPECT_EQ(h.batch_length, 0x68);
    EXPECT_EQ(h.total_size(), kPythonPlain.size());
    EXPECT_EQ(h.partition_leader_epoch, 0);
    EXPECT_EQ(h.magic, 2);
    EXPECT_EQ(h.crc, 0x9874B64Bu);
    EXPECT_EQ(h.compression(), Compression::none);
    EXPECT_EQ(h.timestamp_type(), TimestampType::create_time);
    EXPECT_FALSE(h.is_transactional());
    EXPECT_FALSE(h.is_control());
    EXPECT_EQ(h.last_offset_delta, 2);
    EXPECT_EQ(h.base_timestamp, 1700000000000);
    EXPECT_EQ(h.max_timestamp, 1700000000005);
    EXPECT_EQ(h.producer_id, 1000);
    EXPECT_EQ(h.producer_epoch, 3);
    EXPECT_EQ(h.base_sequence, 7);
    EXPECT_EQ(h.record_count, 3);
}

TEST(RecordBatch, DecodesClientRecords) { EXPECT_EQ(decode_records(kPythonPlain), python_plain_records()); }

TEST(RecordBatch, BuildsClientBytesExactly) {
    BatchBuilderOptions o;
    o.base_timestamp = 1700000000000;
    o.producer_id = 1000;
    o.producer_epoch = 3;
    o.base_sequence = 7;
    o.partition_leader_epoch = 0;
    EXPECT_EQ(build_batch(o, python_plain_records()), kPythonPlain);
}

TEST(RecordBatch, DecodesClientGzipBatch) {
    auto headers = validate_batches(kPythonGzip, {.deep = true});
    ASSERT_EQ(headers.size(), 1u);
    EXPECT_EQ(headers[0].compression(), Compression::gzip);
    auto records = decode_records(kPythonGzip);
    ASSERT_EQ(records.size(), 5u);
    for (int i = 0; i < 5; ++i) {
        EXPECT_EQ(records[static_cast<std::size_t>(i)].offset_delta, i);
        EXPECT_EQ(records[static_cast<std::size_t>(i)].timestamp_delta, i);
        EXPECT_FALSE(records[static_cast<std::size_t>(i)].key);
        EXPECT_EQ(records[static_cast<std::size_t>(i)].value,
                  b("gzip-value-" + std::to_string(i) + "-" + std::string(40, 'x')));
    }
}

std::vector<Record> sample_records(std::size_t n) {
    std::vector<Record> out(n);
    for (std::size_t i = 0; i < n; ++i) {
        auto& r = out[i];
        r.offset_delta = static_cast<std::int32_t>(i);
        r.timestamp_delta = static_cast<std::int64_t>(i * 3 % 11);
        if (i % 5 != 1) r.key = b("key-" + std::to_string(i));
        if (i % 7 != 2) r.value = b("value-" + std::to_string(i) + std::string(i % 50, 'v'));
        if (i % 3 == 0) r.headers.push_back({"trace", b("id-" + std::to_string(i))});
        if (i % 4 == 0) r.headers.push_back({"null-header", std::nullopt});
        if (i % 9 == 0) r.headers.push_back({"", Bytes{}});
    }
    return out;
}

class BatchCodecTest : public ::testing::TestWithParam<Compression> {};

TEST_P(BatchCodecTest, RoundTripOneAndThousand) {
    for (std::size_t n : {1u, 1000u}) {
        auto records = sample_records(n);
        BatchBuilderOptions o;
        o.base_offset = 5000;
        o.compression = GetParam();
        o.base_timestamp = 1700000000000;
        o.producer_id = 77;
        o.producer_epoch = 1;
        o.base_sequence = 10;
        Bytes batch = build_batch(o, records);
        auto headers = validate_batches(batch, {.deep = true});
        ASSERT_EQ(headers.size(), 1u);
        const auto& h = headers[0];
        EXPECT_EQ(h.compression(), GetParam());
        EXPECT_EQ(h.base_offset, 5000);
        EXPECT_EQ(h.record_count, static_cast<std::int32_t>(n));
        EXPECT_EQ(h.last_offset(), 5000 + static_cast<std::int64_t>(n) - 1);
        EXPECT_EQ(h.max_timestamp, n == 1 ? 1700000000000 : 1700000000010);
        EXPECT_EQ(h.producer_id, 77);
        EXPECT_TRUE(crc_valid(batch));
        EXPECT_EQ(decode_records(batch), records);
        EXPECT_NO_THROW(validate_batches(batch, ValidateOptions{.deep = true, .require_dense_offsets = true}));
    }
}

INSTANTIATE_TEST_SUITE_P(AllCodecs, BatchCodecTest,
                         ::testing::Values(Compression::none, Compression::gzip, Compression::snappy, Compression::lz4,
                                           Compression::zstd),
                         [](const auto& p) { return std::string(compression_name(p.param)); });

TEST(RecordBatch, DecompressionBombIsBounded) {
    for (auto codec : {Compression::gzip, Compression::snappy, Compression::lz4, Compression::zstd}) {
        std::vector<Record> records(1);
        records[0].value = Bytes(4u << 20, 'a');
        Bytes batch = build_batch({.compression = codec}, records);
        ASSERT_LT(batch.size(), 1u << 20);
        EXPECT_THROW(validate_batches(batch, ValidateOptions{.deep = true, .max_decompressed_size = 1u << 20}),
                     DecodeError);
        EXPECT_THROW(decode_records(batch, 1u << 20), DecodeError);
        EXPECT_NO_THROW(validate_batches(batch, ValidateOptions{.deep = true, .max_decompressed_size = 8u << 20}));
    }
}

TEST(RecordBatch, SnappyXerialBatchFromJavaDecodes) {
    // The Java producer frames snappy the xerial way; build such a batch by
    // compressing the record body ourselves.
    auto records = sample_records(20);
    Bytes plain = build_batch({}, records);
    Bytes body(plain.begin() + kBatchHeaderSize, plain.end());
    Bytes framed = compress(Compression::snappy, body, {.snappy_xerial = true});
    Bytes batch(plain.begin(), plain.begin() + kBatchHeaderSize);
    batch.insert(batch.end(), framed.begin(), framed.end());
    batch[kAttributesOffset + 1] |= static_cast<std::uint8_t>(Compression::snappy);
    auto len = static_cast<std::uint32_t>(batch.size() - kLogOverhead);
    for (int i = 0; i < 4; ++i) batch[8 + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(len >> (24 - 8 * i));
    std::uint32_t crc = crc32c(ByteSpan(batch).subspan(kAttributesOffset));
    for (int i = 0; i < 4; ++i)
        batch[kCrcOffset + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(crc >> (24 - 8 * i));
    EXPECT_EQ(decode_records(batch), records);
}

TEST(RecordBatch, EmptyBatchAndFlags) {
    BatchBuilderOptions o;
    o.transactional = true;
    o.control = true;
    o.timestamp_type = TimestampType::log_append_time;
    o.base_timestamp = 42;
    Bytes batch = build_batch(o, {});
    auto h = parse_batch_header(batch);
    EXPECT_TRUE(h.is_transactional());
    EXPECT_TRUE(h.is_control());
    EXPECT_EQ(h.timestamp_type(), TimestampType::log_append_time);
    EXPECT_EQ(h.record_count, 0);
    EXPECT_EQ(batch.size(), kBatchHeaderSize);
    EXPECT_EQ(validate_batches(batch, {.deep = true}).size(), 1u);
    EXPECT_TRUE(decode_records(batch).empty());
    EXPECT_THROW(validate_batches(batch, ValidateOptions{.require_dense_offsets = true}), DecodeError);
}

TEST(RecordBatch, ValidatesConcatenatedBatches) {
    Bytes buf;
    for (auto c : {Compression::none, Compression::lz4, Compression::gzip}) {
        Bytes one =
            build_batch({.base_offset = static_cast<std::int64_t>(buf.size()), .compression = c}, sample_records(10));
        buf.insert(buf.end(), one.begin(), one.end());
    }
    auto headers = validate_batches(buf, {.deep = true});
    ASSERT_EQ(headers.size(), 3u);
    EXPECT_EQ(headers[1].compression(), Compression::lz4);
    EXPECT_EQ(split_batches(buf, false).size(), 3u);
    EXPECT_TRUE(validate_batches(ByteSpan{}, {.deep = true}).empty());
}

TEST(RecordBatch, CrcMismatchDetected) {
    Bytes batch = kPythonPlain;
    batch.back() ^= 0x01;
    EXPECT_FALSE(crc_valid(batch));
    EXPECT_THROW(validate_batches(batch, {}), DecodeError);
    Bytes bad_crc = kPythonPlain;
    bad_crc[kCrcOffset] ^= 0x80;
    EXPECT_THROW(validate_batches(bad_crc, {}), DecodeError);
}

TEST(RecordBatch, EveryTruncationThrows) {
    for (auto c : {Compression::none, Compression::gzip, Compression::lz4}) {
        Bytes batch = build_batch({.compression = c}, sample_records(30));
        for (std::size_t len = 0; len < batch.size(); ++len) {
            ByteSpan prefix(batch.data(), len);
            if (len > 0) {
                EXPECT_THROW(validate_batches(prefix, {.deep = true}), DecodeError) << len;
                EXPECT_THROW(split_batches(prefix, false), DecodeError);
            }
            EXPECT_THROW(decode_records(prefix), DecodeError) << len;
            EXPECT_FALSE(crc_valid(prefix));
            EXPECT_TRUE(split_batches(prefix, true).empty());
        }
    }
}

TEST(RecordBatch, PartialTailIgnoredOnlyWhenAllowed) {
    Bytes a = build_batch({}, sample_records(3));
    Bytes buf = a;
    buf.insert(buf.end(), a.begin(), a.begin() + 70);
    auto parts = split_batches(buf, true);
    ASSERT_EQ(parts.size(), 1u);
    EXPECT_EQ(parts[0].size(), a.size());
    EXPECT_THROW(split_batches(buf, false), DecodeError);
    EXPECT_THROW(validate_batches(buf, {}), DecodeError);
    EXPECT_THROW(parse_batch_headers(buf), DecodeError);  // appends take whole batches only
    Bytes two = a;
    two.insert(two.end(), a.begin(), a.end());
    EXPECT_EQ(parse_batch_headers(two), (std::vector<BatchHeader>{parse_batch_header(a), parse_batch_header(a)}));
}

// Re-seals a hand-edited batch: fixes batchLength and CRC.
void reseal(Bytes& batch) {
    auto len = static_cast<std::uint32_t>(batch.size() - kLogOverhead);
    for (int i = 0; i < 4; ++i) batch[8 + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(len >> (24 - 8 * i));
    std::uint32_t crc = crc32c(ByteSpan(batch).subspan(kAttributesOffset));
    for (int i = 0; i < 4; ++i)
        batch[kCrcOffset + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(crc >> (24 - 8 * i));
}

void set_record_count(Bytes& batch, std::int32_t n) {
    auto u = static_cast<std::uint32_t>(n);
    for (int i = 0; i < 4; ++i) batch[57 + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(u >> (24 - 8 * i));
    reseal(batch);
}

TEST(RecordBatch, BadRecordCountDetected) {
    for (std::int32_t n : {-1, 0, 2, 4, 1000, INT32_MAX}) {
        Bytes batch = kPythonPlain;
        set_record_count(batch, n);
        EXPECT_THROW(validate_batches(batch, {.deep = true}), DecodeError) << n;
        EXPECT_THROW(decode_records(batch), DecodeError) << n;
    }
    Bytes negative = kPythonPlain;
    set_record_count(negative, -1);
    EXPECT_THROW(validate_batches(negative, {}), DecodeError);
    Bytes gz = kPythonGzip;
    set_record_count(gz, 6);
    EXPECT_THROW(validate_batches(gz, {.deep = true}), DecodeError);
}

TEST(RecordBatch, HeaderFieldChecks) {
    Bytes batch = kPythonPlain;
    batch[16] = 1;  // magic
    EXPECT_THROW(parse_batch_header(batch), DecodeError);
    Bytes small = kPythonPlain;
    small[11] = 48;  // batchLength below the 49-byte header remainder
    EXPECT_THROW(parse_batch_header(small), DecodeError);
    Bytes big = kPythonPlain;
    big[11] = 0x69;  // one byte past the buffer
    EXPECT_THROW(validate_batches(big, {}), DecodeError);
    Bytes sparse = kPythonPlain;
    sparse[26] = 5;  // lastOffsetDelta 5 with 3 records
    reseal(sparse);
    EXPECT_NO_THROW(validate_batches(sparse, {.deep = true}));  // compacted batches have gaps
    EXPECT_THROW(validate_batches(sparse, ValidateOptions{.require_dense_offsets = true}), DecodeError);
}

// A batch whose body is exactly `body`, uncompressed, with `count` records.
Bytes batch_with_body(const Bytes& body, std::int32_t count) {
    Bytes batch = build_batch({}, {});
    batch.insert(batch.end(), body.begin(), body.end());
    set_record_count(batch, count);
    return batch;
}

TEST(RecordBatch, VarintGarbageRejected) {
    const std::vector<Bytes> bodies = {
        Bytes(10, 0xff),                                         // overlong length varint
        {0xff, 0xff, 0xff, 0xff, 0x7f},                          // length varint overflows 32 bits
        {0x01},                                                  // length -1
        {0x7e, 0x00},                                            // length 63, 1 byte present
        {0x0c, 0x00, 0x00, 0x00, 0x03, 0x01, 0x00, 0x00},        // key length -2
        {0x0c, 0x00, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00},        // value length 1 eats the header count
        {0x0c, 0x00, 0x00, 0x00, 0x01, 0x01, 0x7e},              // header count 63 in a 6-byte record
        {0x0c, 0x00, 0x00, 0x00, 0x01, 0x01, 0x01},              // header count -1
        {0x10, 0x00, 0x00, 0x00, 0x01, 0x01, 0x02, 0x01, 0x01},  // null header key
        {0x0e, 0x00, 0x00, 0x00, 0x01, 0x01, 0x00, 0x00},        // record length 7 but 6 used
        {0x1c, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00},  // varlong too long
    };
    for (std::size_t i = 0; i < bodies.size(); ++i) {
        Bytes batch = batch_with_body(bodies[i], 1);
        EXPECT_THROW(validate_batches(batch, {.deep = true}), DecodeError) << i;
        EXPECT_THROW(decode_records(batch), DecodeError) << i;
    }
    // And the well-formed minimal record for contrast: length 6, all empty.
    Bytes ok = batch_with_body({0x0c, 0x00, 0x00, 0x00, 0x01, 0x01, 0x00}, 1);
    ASSERT_NO_THROW(validate_batches(ok, {.deep = true}));
    auto records = decode_records(ok);
    ASSERT_EQ(records.size(), 1u);
    EXPECT_FALSE(records[0].key);
    EXPECT_FALSE(records[0].value);
}

TEST(RecordBatch, TrailingBytesAfterRecordsRejected) {
    Bytes body = {0x0c, 0x00, 0x00, 0x00, 0x01, 0x01, 0x00, 0x00};
    EXPECT_THROW(validate_batches(batch_with_body(body, 1), {.deep = true}), DecodeError);
    // In a compressed body too.
    Bytes extra = build_batch({}, sample_records(2));
    Bytes plain_body(extra.begin() + kBatchHeaderSize, extra.end());
    plain_body.push_back(0x00);
    Bytes packed = compress(Compression::zstd, plain_body);
    Bytes batch = build_batch({}, {});
    batch.insert(batch.end(), packed.begin(), packed.end());
    batch[kAttributesOffset + 1] = static_cast<std::uint8_t>(Compression::zstd);
    set_record_count(batch, 2);
    EXPECT_THROW(validate_batches(batch, {.deep = true}), DecodeError);
    EXPECT_NO_THROW(validate_batches(batch, {}));  // shallow checks pass
}

TEST(RecordBatch, UnknownCodecRejectedWhenDeep) {
    Bytes batch = build_batch({}, sample_records(2));
    batch[kAttributesOffset + 1] = 0x06;
    reseal(batch);
    EXPECT_THROW(validate_batches(batch, {.deep = true}), DecodeError);
}

TEST(RecordBatch, InPlaceEdits) {
    Bytes batch = build_batch({.base_timestamp = 1000}, sample_records(5));
    set_base_offset(batch, 0x0102030405060708);
    set_partition_leader_epoch(batch, 9);
    EXPECT_TRUE(crc_valid(batch));
    auto h = parse_batch_header(batch);
    EXPECT_EQ(h.base_offset, 0x0102030405060708);
    EXPECT_EQ(h.partition_leader_epoch, 9);
    set_log_append_time(batch, 1700000000999);
    EXPECT_TRUE(crc_valid(batch));
    h = parse_batch_header(batch);
    EXPECT_EQ(h.timestamp_type(), TimestampType::log_append_time);
    EXPECT_EQ(h.max_timestamp, 1700000000999);
    EXPECT_EQ(h.base_timestamp, 1000);
    EXPECT_EQ(h.compression(), Compression::none);
    Bytes tiny(7);
    EXPECT_THROW(set_base_offset(tiny, 1), DecodeError);
}

TEST(RecordBatch, RecordsMagic) {
    EXPECT_EQ(records_magic(kPythonPlain), 2);
    EXPECT_THROW(records_magic(ByteSpan(kPythonPlain).first(16)), DecodeError);
}

}  // namespace
}  // namespace weir::records
