// Up-conversion (Produce v0-v2 message sets -> v2 batch) and down-conversion
// (stored v2 batches -> Fetch v0-v3 message sets).
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "protocol/records/compression.h"
#include "protocol/records/conversion.h"
#include "protocol/test/record_test_inputs.h"

namespace weir::records {
namespace {

using wire::DecodeError;

LegacyMessage lm(std::int64_t offset, std::int64_t ts, std::optional<Bytes> key, std::optional<Bytes> value,
                 std::int8_t magic) {
    LegacyMessage m;
    m.offset = offset;
    m.magic = magic;
    m.timestamp = magic == 0 ? -1 : ts;
    m.key = std::move(key);
    m.value = std::move(value);
    return m;
}

TEST(UpConvert, ClientV1GzipSet) {
    Bytes batch = up_convert(kPyV1Gzip, {.base_offset = 40});
    auto headers = validate_batches(batch, ValidateOptions{.deep = true, .require_dense_offsets = true});
    ASSERT_EQ(headers.size(), 1u);
    const auto& h = headers[0];
    EXPECT_EQ(h.base_offset, 40);
    EXPECT_EQ(h.compression(), Compression::gzip);
    EXPECT_EQ(h.timestamp_type(), TimestampType::create_time);
    EXPECT_EQ(h.record_count, 3);
    EXPECT_EQ(h.last_offset_delta, 2);
    EXPECT_EQ(h.base_timestamp, 1700000000000);
    EXPECT_EQ(h.max_timestamp, 1700000000002);
    EXPECT_EQ(h.producer_id, -1);
    EXPECT_EQ(h.producer_epoch, -1);
    EXPECT_EQ(h.base_sequence, -1);
    auto records = decode_records(batch);
    ASSERT_EQ(records.size(), 3u);
    for (int i = 0; i < 3; ++i) {
        const auto& r = records[static_cast<std::size_t>(i)];
        EXPECT_EQ(r.offset_delta, i);
        EXPECT_EQ(r.timestamp_delta, i);
        EXPECT_FALSE(r.key);
        EXPECT_EQ(r.value, b("msg-" + std::to_string(i)));
        EXPECT_TRUE(r.headers.empty());
    }
}

TEST(UpConvert, ClientV0SetHasNoTimestamps) {
    Bytes batch = up_convert(kPyV0None);
    auto h = validate_batches(batch, {.deep = true}).at(0);
    EXPECT_EQ(h.compression(), Compression::none);
    EXPECT_EQ(h.base_timestamp, -1);
    EXPECT_EQ(h.max_timestamp, -1);
    auto records = decode_records(batch);
    ASSERT_EQ(records.size(), 2u);
    EXPECT_EQ(records[0].key, b("k0"));
    EXPECT_EQ(records[0].value, b("v0"));
    EXPECT_EQ(records[0].timestamp_delta, 0);
    EXPECT_FALSE(records[1].key);
    EXPECT_EQ(records[1].value, b("v1"));
    EXPECT_EQ(records[1].offset_delta, 1);
}

struct Case {
    std::int8_t magic;
    Compression codec;
};
class ConversionCodecTest : public ::testing::TestWithParam<Case> {};

std::vector<LegacyMessage> sample(std::int8_t magic, std::int64_t first_offset) {
    std::vector<LegacyMessage> out;
    for (int i = 0; i < 50; ++i) {
        std::optional<Bytes> key;
        if (i % 4 != 0) key = b("key-" + std::to_string(i));
        std::optional<Bytes> value;
        if (i % 6 != 5) value = b("value-" + std::to_string(i) + std::string(static_cast<std::size_t>(i), '.'));
        out.push_back(lm(first_offset + i, 1700000000000 + (i * 37) % 100, key, value, magic));
    }
    return out;
}

TEST_P(ConversionCodecTest, UpThenDownRoundTrips) {
    auto [magic, codec] = GetParam();
    auto original = sample(magic, 500);
    // Clients send offsets 0..n-1 (or junk); the broker picks the base.
    auto sent = original;
    for (std::size_t i = 0; i < sent.size(); ++i) sent[i].offset = static_cast<std::int64_t>(i);
    Bytes set = build_message_set({.magic = magic, .compression = codec}, sent);
    Bytes batch = up_convert(set, {.base_offset = 500});
    auto h = validate_batches(batch, ValidateOptions{.deep = true, .require_dense_offsets = true}).at(0);
    EXPECT_EQ(h.compression(), codec);
    EXPECT_EQ(h.record_count, 50);
    EXPECT_EQ(h.max_timestamp, magic == 1 ? 1700000000099 : -1);

    auto down = down_convert(batch, {.magic = magic});
    EXPECT_EQ(down.next_offset, 550);
    auto top = parse_message_set(down.records);
    ASSERT_EQ(top.size(), codec == Compression::none ? 50u : 1u);
    if (codec != Compression::none) {
        EXPECT_EQ(top[0].compression(), codec);
        EXPECT_EQ(top[0].offset, 549);
    }
    EXPECT_EQ(decode_message_set(down.records), original);
}

INSTANTIATE_TEST_SUITE_P(All, ConversionCodecTest,
                         ::testing::Values(Case{0, Compression::none}, Case{0, Compression::gzip},
                                           Case{0, Compression::snappy}, Case{0, Compression::lz4},
                                           Case{1, Compression::none}, Case{1, Compression::gzip},
                                           Case{1, Compression::snappy}, Case{1, Compression::lz4}),
                         [](const auto& p) {
                             return "v" + std::to_string(p.param.magic) + "_" + compression_name(p.param.codec);
                         });

TEST(UpConvert, LogAppendTimeKept) {
    auto msgs = sample(1, 0);
    Bytes set = build_message_set({.magic = 1, .timestamp_type = TimestampType::log_append_time}, msgs);
    auto h = parse_batch_header(up_convert(set));
    EXPECT_EQ(h.timestamp_type(), TimestampType::log_append_time);
}

TEST(UpConvert, FirstCompressedWrapperPicksCodec) {
    Bytes set = build_message_set({.magic = 1}, sample(1, 0));
    Bytes lz4 = build_message_set({.magic = 1, .compression = Compression::lz4}, sample(1, 50));
    Bytes gz = build_message_set({.magic = 1, .compression = Compression::gzip}, sample(1, 100));
    set.insert(set.end(), lz4.begin(), lz4.end());
    set.insert(set.end(), gz.begin(), gz.end());
    Bytes batch = up_convert(set);
    auto h = validate_batches(batch, ValidateOptions{.deep = true, .require_dense_offsets = true}).at(0);
    EXPECT_EQ(h.compression(), Compression::lz4);
    EXPECT_EQ(h.record_count, 150);
}

TEST(UpConvert, RejectsBadInput) {
    EXPECT_TRUE(up_convert(ByteSpan{}).empty());
    Bytes cut(kPyV1Gzip.begin(), kPyV1Gzip.end() - 1);
    EXPECT_THROW(up_convert(cut), DecodeError);  // Produce data has no partial tail
    Bytes bad = kPyV0None;
    bad[25] ^= 1;  // inside the first message, covered by its CRC
    EXPECT_THROW(up_convert(bad), DecodeError);
    std::vector<LegacyMessage> big = {lm(0, 0, std::nullopt, Bytes(2u << 20, 'q'), 1)};
    Bytes bomb = build_message_set({.magic = 1, .compression = Compression::gzip}, big);
    EXPECT_THROW(up_convert(bomb, {.max_decompressed_size = 1u << 20}), DecodeError);
}

// A v2 batch at `base` holding records with the given offset deltas.
Bytes v2_batch(std::int64_t base, Compression codec, std::vector<std::int32_t> deltas, bool log_append = false) {
    std::vector<Record> records;
    for (auto d : deltas) {
        Record r;
        r.offset_delta = d;
        r.timestamp_delta = d * 10;
        r.key = b("k" + std::to_string(base + d));
        r.value = b("v" + std::to_string(base + d));
        r.headers.push_back({"dropped", b("on down-conversion")});
        records.push_back(std::move(r));
    }
    BatchBuilderOptions o;
    o.base_offset = base;
    o.compression = codec;
    o.base_timestamp = 1700000000000 + base;
    if (log_append) {
        o.timestamp_type = TimestampType::log_append_time;
    }
    Bytes batch = build_batch(o, records);
    if (log_append) set_log_append_time(batch, 1800000000000);
    return batch;
}

Bytes control_batch(std::int64_t base) {
    Record commit;
    commit.key = Bytes{0, 0, 0, 1};  // version 0, type 1 (COMMIT)
    commit.value = Bytes{0, 0, 0, 0, 0, 0};
    return build_batch(
        {.base_offset = base, .producer_id = 9, .producer_epoch = 0, .transactional = true, .control = true},
        std::vector<Record>{commit});
}

Bytes fetched_log() {
    Bytes log;
    for (const Bytes& part : {v2_batch(0, Compression::none, {0, 1, 2}), control_batch(3),
                              v2_batch(4, Compression::lz4, {0, 2}),  // compacted: offsets 4 and 6
                              v2_batch(7, Compression::gzip, {0, 1}, true), build_batch({.base_offset = 9}, {}),
                              v2_batch(10, Compression::snappy, {0})})
        log.insert(log.end(), part.begin(), part.end());
    return log;
}

TEST(DownConvert, MixedLogToV1) {
    Bytes log = fetched_log();
    Bytes tail = v2_batch(11, Compression::none, {0, 1});
    log.insert(log.end(), tail.begin(), tail.end() - 5);  // truncated trailing batch
    auto down = down_convert(log, {.magic = 1});
    EXPECT_EQ(down.next_offset, 11);

    auto top = parse_message_set(down.records);
    ASSERT_EQ(top.size(), 6u);  // 3 plain + lz4 wrapper + gzip wrapper + snappy wrapper
    EXPECT_EQ(top[3].compression(), Compression::lz4);
    EXPECT_EQ(top[3].offset, 6);
    EXPECT_EQ(top[4].compression(), Compression::gzip);
    EXPECT_EQ(top[4].timestamp_type(), TimestampType::log_append_time);
    EXPECT_EQ(top[4].timestamp, 1800000000000);
    EXPECT_EQ(top[5].compression(), Compression::snappy);

    auto msgs = decode_message_set(down.records);
    std::vector<std::int64_t> offsets;
    for (const auto& m : msgs) offsets.push_back(m.offset);
    EXPECT_EQ(offsets, (std::vector<std::int64_t>{0, 1, 2, 4, 6, 7, 8, 10}));
    EXPECT_EQ(msgs[0].timestamp, 1700000000000);
    EXPECT_EQ(msgs[2].timestamp, 1700000000020);
    EXPECT_EQ(msgs[4].timestamp, 1700000000024);  // base 1700000000004 + delta 20
    EXPECT_EQ(msgs[5].timestamp, 1800000000000);  // LogAppendTime: the batch max timestamp
    EXPECT_EQ(msgs[6].timestamp, 1800000000000);
    for (const auto& m : msgs) {
        EXPECT_EQ(m.magic, 1);
        EXPECT_EQ(m.key, b("k" + std::to_string(m.offset)));
        EXPECT_EQ(m.value, b("v" + std::to_string(m.offset)));
    }
}

TEST(DownConvert, MixedLogToV0) {
    auto down = down_convert(fetched_log(), {.magic = 0});
    auto msgs = decode_message_set(down.records);
    ASSERT_EQ(msgs.size(), 8u);
    for (const auto& m : msgs) {
        EXPECT_EQ(m.magic, 0);
        EXPECT_EQ(m.timestamp, -1);
        EXPECT_EQ(m.value, b("v" + std::to_string(m.offset)));
    }
    // The v0 lz4 wrapper carries Kafka 0.8's header checksum.
    auto top = parse_message_set(down.records);
    ASSERT_EQ(top[3].compression(), Compression::lz4);
    EXPECT_THROW(decompress(Compression::lz4, *top[3].value), DecodeError);
    EXPECT_NO_THROW(decompress(Compression::lz4, *top[3].value, {.lz4_magic_v0 = true}));
}

TEST(DownConvert, OnlyControlOrEmpty) {
    auto none = down_convert(ByteSpan{});
    EXPECT_TRUE(none.records.empty());
    EXPECT_EQ(none.next_offset, -1);
    Bytes ctl = control_batch(41);
    auto only = down_convert(ctl);
    EXPECT_TRUE(only.records.empty());
    EXPECT_EQ(only.next_offset, 42);
    Bytes partial(ctl.begin(), ctl.end() - 1);
    EXPECT_EQ(down_convert(partial).next_offset, -1);
}

TEST(DownConvert, ZstdIsUnsupported) {
    Bytes log = v2_batch(0, Compression::none, {0});
    Bytes z = v2_batch(1, Compression::zstd, {0});
    log.insert(log.end(), z.begin(), z.end());
    EXPECT_THROW(down_convert(log, {.magic = 1}), UnsupportedCompressionError);
    EXPECT_THROW(down_convert(log, {.magic = 0}), UnsupportedCompressionError);
}

TEST(DownConvert, CorruptInputThrows) {
    Bytes log = fetched_log();
    log[kBatchHeaderSize + 3] ^= 0x20;  // inside the first batch's records
    EXPECT_THROW(down_convert(log), DecodeError);
    EXPECT_THROW(down_convert(kPyV1Gzip), DecodeError);  // magic 1, not a v2 batch
    EXPECT_THROW(down_convert(kPyV0None), DecodeError);  // shorter than a v2 header, still not v2
    EXPECT_THROW(down_convert(fetched_log(), {.magic = 2}), std::invalid_argument);
}

}  // namespace
}  // namespace weir::records
