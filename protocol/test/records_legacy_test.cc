// Magic v0/v1 message sets: client-built golden bytes, compressed wrappers for
// every legacy codec, partial tails and rejection of corrupt input.
#include <gtest/gtest.h>
#include <zlib.h>

#include <string>
#include <string_view>

#include "protocol/records/compression.h"
#include "protocol/records/legacy_message_set.h"
#include "protocol/test/record_test_inputs.h"

namespace weir::records {
namespace {

using wire::DecodeError;

// kPyV0None and kPyV1Gzip (record_test_inputs.h) and these two, made the same way:
// v1, none: lb.append(0, 1700000000000, b'k0', b'v0'); lb.append(1, 1700000000001, b'k1', None)
const Bytes kPyV1None = {
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1a, 0x74, 0xaa, 0x51, 0x40, 0x01, 0x00, 0x00,
    0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x00, 0x00, 0x00, 0x00, 0x02, 0x6b, 0x30, 0x00, 0x00, 0x00, 0x02, 0x76, 0x30,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x18, 0x2b, 0xc7, 0x1d, 0xf3, 0x01, 0x00, 0x00,
    0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x01, 0x00, 0x00, 0x00, 0x02, 0x6b, 0x31, 0xff, 0xff, 0xff, 0xff,
};
// v0, gzip: for i in range(3): lb.append(i, None, b'k%d' % i, b'msg-%d' % i)
const Bytes kPyV0Gzip = {
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x55, 0x27, 0x91, 0xf3, 0x9d, 0x00,
    0x01, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x47, 0x1f, 0x8b, 0x08, 0x00, 0x08, 0xdd, 0x0f, 0x6b,
    0x02, 0xff, 0x63, 0x60, 0x80, 0x03, 0x51, 0xdb, 0x98, 0xb4, 0xbd, 0x60, 0x16, 0x53, 0xb6, 0x01, 0x90,
    0x64, 0xcd, 0x2d, 0x4e, 0xd7, 0x35, 0x80, 0x4a, 0x32, 0x82, 0x14, 0x2c, 0x9d, 0x69, 0x2b, 0x0a, 0x55,
    0x60, 0x08, 0x53, 0x60, 0x08, 0x55, 0xc0, 0x04, 0x52, 0x70, 0x7d, 0xf9, 0xf5, 0x35, 0x50, 0x05, 0x46,
    0x30, 0x05, 0x46, 0x00, 0x78, 0xf2, 0x68, 0x23, 0x63, 0x00, 0x00, 0x00,
};

LegacyMessage msg(std::int64_t offset, std::int64_t ts, std::optional<Bytes> key, std::optional<Bytes> value,
                  std::int8_t magic = 1, std::int8_t attributes = 0) {
    LegacyMessage m;
    m.offset = offset;
    m.magic = magic;
    m.attributes = attributes;
    m.timestamp = magic == 0 ? -1 : ts;
    m.key = std::move(key);
    m.value = std::move(value);
    return m;
}

TEST(LegacyMessageSet, ParsesClientV0) {
    auto m = parse_message_set(kPyV0None);
    ASSERT_EQ(m.size(), 2u);
    EXPECT_EQ(m[0], msg(0, -1, b("k0"), b("v0"), 0));
    EXPECT_EQ(m[1], msg(1, -1, std::nullopt, b("v1"), 0));
    EXPECT_EQ(decode_message_set(kPyV0None), m);
}

TEST(LegacyMessageSet, ParsesClientV1) {
    auto m = parse_message_set(kPyV1None);
    ASSERT_EQ(m.size(), 2u);
    EXPECT_EQ(m[0], msg(0, 1700000000000, b("k0"), b("v0")));
    EXPECT_EQ(m[1], msg(1, 1700000000001, b("k1"), std::nullopt));
}

TEST(LegacyMessageSet, BuildsClientBytesExactly) {
    std::vector<LegacyMessage> v0 = {msg(0, -1, b("k0"), b("v0"), 0), msg(1, -1, std::nullopt, b("v1"), 0)};
    EXPECT_EQ(build_message_set({.magic = 0}, v0), kPyV0None);
    std::vector<LegacyMessage> v1 = {msg(0, 1700000000000, b("k0"), b("v0")),
                                     msg(1, 1700000000001, b("k1"), std::nullopt)};
    EXPECT_EQ(build_message_set({.magic = 1}, v1), kPyV1None);
}

TEST(LegacyMessageSet, DecodesClientGzipV1) {
    auto top = parse_message_set(kPyV1Gzip);
    ASSERT_EQ(top.size(), 1u);
    EXPECT_EQ(top[0].compression(), Compression::gzip);
    EXPECT_FALSE(top[0].key);
    auto m = decode_message_set(kPyV1Gzip);
    ASSERT_EQ(m.size(), 3u);
    for (int i = 0; i < 3; ++i) {
        // KIP-31: absolute = wrapper offset - last relative + relative.
        EXPECT_EQ(m[static_cast<std::size_t>(i)],
                  msg(i - 2, 1700000000000 + i, std::nullopt, b("msg-" + std::to_string(i))));
    }
}

TEST(LegacyMessageSet, DecodesClientGzipV0) {
    auto m = decode_message_set(kPyV0Gzip);
    ASSERT_EQ(m.size(), 3u);
    for (int i = 0; i < 3; ++i)
        EXPECT_EQ(m[static_cast<std::size_t>(i)],
                  msg(i, -1, b("k" + std::to_string(i)), b("msg-" + std::to_string(i)), 0));
}

std::vector<LegacyMessage> sample(std::int8_t magic) {
    // Offsets with a gap, as a compacted log would give.
    return {msg(100, 1700000000100, b("a"), b("first"), magic),
            msg(101, 1700000000090, std::nullopt, b("second"), magic),
            msg(105, 1700000000200, b("c"), std::nullopt, magic), msg(106, 1700000000150, b(""), b(""), magic)};
}

struct MagicAndCodec {
    std::int8_t magic;
    Compression codec;
};

class LegacyCodecTest : public ::testing::TestWithParam<MagicAndCodec> {};

TEST_P(LegacyCodecTest, RoundTrip) {
    auto [magic, codec] = GetParam();
    auto in = sample(magic);
    Bytes set = build_message_set({.magic = magic, .compression = codec}, in);
    auto top = parse_message_set(set);
    if (codec == Compression::none) {
        EXPECT_EQ(top, in);
    } else {
        ASSERT_EQ(top.size(), 1u);
        EXPECT_EQ(top[0].offset, 106);
        EXPECT_EQ(top[0].compression(), codec);
        EXPECT_EQ(top[0].timestamp, magic == 1 ? 1700000000200 : -1);
        // Inner offsets: relative for v1, absolute for v0.
        Bytes inner = decompress(codec, *top[0].value, {.lz4_magic_v0 = magic == 0});
        auto raw_inner = parse_message_set(inner);
        ASSERT_EQ(raw_inner.size(), 4u);
        EXPECT_EQ(raw_inner[0].offset, magic == 1 ? 0 : 100);
        EXPECT_EQ(raw_inner[3].offset, magic == 1 ? 6 : 106);
    }
    EXPECT_EQ(decode_message_set(set), in);
}

INSTANTIATE_TEST_SUITE_P(All, LegacyCodecTest,
                         ::testing::Values(MagicAndCodec{0, Compression::none}, MagicAndCodec{0, Compression::gzip},
                                           MagicAndCodec{0, Compression::snappy}, MagicAndCodec{0, Compression::lz4},
                                           MagicAndCodec{1, Compression::none}, MagicAndCodec{1, Compression::gzip},
                                           MagicAndCodec{1, Compression::snappy}, MagicAndCodec{1, Compression::lz4}),
                         [](const auto& p) {
                             return "v" + std::to_string(p.param.magic) + "_" + compression_name(p.param.codec);
                         });

TEST(LegacyMessageSet, Lz4MagicV0UsesKafkaBrokenChecksum) {
    Bytes set = build_message_set({.magic = 0, .compression = Compression::lz4}, sample(0));
    auto top = parse_message_set(set);
    ASSERT_EQ(top.size(), 1u);
    EXPECT_THROW(decompress(Compression::lz4, *top[0].value), DecodeError);
    Bytes v1 = build_message_set({.magic = 1, .compression = Compression::lz4}, sample(1));
    EXPECT_NO_THROW(decompress(Compression::lz4, *parse_message_set(v1)[0].value));
}

TEST(LegacyMessageSet, ZstdNotAllowed) {
    EXPECT_THROW(build_message_set({.magic = 1, .compression = Compression::zstd}, sample(1)), std::invalid_argument);
    Bytes inner = build_message_set({.magic = 1}, sample(1));
    LegacyMessage wrapper = msg(106, 0, std::nullopt, compress(Compression::zstd, inner), 1, 4);
    Bytes set;
    append_legacy_message(set, wrapper);
    EXPECT_NO_THROW(parse_message_set(set));
    EXPECT_THROW(decode_message_set(set), DecodeError);
}

TEST(LegacyMessageSet, LogAppendTimeWrapperOverridesInnerTimestamps) {
    auto in = sample(1);
    // A wrapper built by hand: relative inner offsets, LogAppendTime attribute.
    std::vector<LegacyMessage> rel = in;
    for (auto& m : rel) m.offset -= 100;
    Bytes inner = build_message_set({.magic = 1}, rel);
    Bytes set;
    append_legacy_message(set, msg(106, 1800000000000, std::nullopt, compress(Compression::gzip, inner), 1, 0x08 | 1));
    auto out = decode_message_set(set);
    ASSERT_EQ(out.size(), 4u);
    for (std::size_t i = 0; i < out.size(); ++i) {
        EXPECT_EQ(out[i].offset, in[i].offset);
        EXPECT_EQ(out[i].timestamp, 1800000000000);
        EXPECT_EQ(out[i].timestamp_type(), TimestampType::log_append_time);
    }
    // Builder side: the attribute is set on every uncompressed message.
    Bytes lat = build_message_set({.magic = 1, .timestamp_type = TimestampType::log_append_time}, in);
    for (const auto& m : parse_message_set(lat)) EXPECT_EQ(m.timestamp_type(), TimestampType::log_append_time);
}

TEST(LegacyMessageSet, CrcMismatchDetected) {
    for (std::size_t i = 12; i < kPyV1None.size(); ++i) {
        if (i >= 38 && i < 50) continue;  // second entry's offset/size are not covered by a CRC
        Bytes bad = kPyV1None;
        bad[i] ^= 0x04;
        EXPECT_THROW(parse_message_set(bad), DecodeError) << i;
    }
}

TEST(LegacyMessageSet, EveryTruncation) {
    for (const Bytes* set : {&kPyV0None, &kPyV1None, &kPyV1Gzip}) {
        auto whole = decode_message_set(*set);
        std::size_t first_end = 12 + static_cast<std::size_t>((*set)[11]);
        for (std::size_t len = 1; len < set->size(); ++len) {
            ByteSpan prefix(set->data(), len);
            if (len != first_end) {  // a cut on a message boundary is a valid, shorter set
                EXPECT_THROW(parse_message_set(prefix), DecodeError) << len;
                EXPECT_THROW(decode_message_set(prefix), DecodeError) << len;
            }
            // Fetch mode: whole messages before the cut are returned.
            auto partial = parse_message_set(prefix, {.allow_partial_tail = true});
            EXPECT_EQ(partial.size(), len >= first_end ? 1u : 0u) << len;
        }
        EXPECT_EQ(decode_message_set(*set, {.allow_partial_tail = true}), whole);
    }
}

// Recomputes the CRC of a hand-edited single-message set.
void reseal_message(Bytes& set) {
    auto body = ByteSpan(set).subspan(16);
    auto crc = static_cast<std::uint32_t>(::crc32(::crc32(0L, Z_NULL, 0), body.data(), static_cast<uInt>(body.size())));
    for (int i = 0; i < 4; ++i) set[12 + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(crc >> (24 - 8 * i));
}

TEST(LegacyMessageSet, StructuralErrors) {
    Bytes small = kPyV0None;
    small[11] = 13;  // size below the v0 minimum
    EXPECT_THROW(parse_message_set(small, {.allow_partial_tail = true}), DecodeError);
    Bytes negative = kPyV0None;
    negative[8] = 0xff;
    EXPECT_THROW(parse_message_set(negative, {.allow_partial_tail = true}), DecodeError);

    LegacyMessage m2 = msg(0, 0, std::nullopt, b("x"), 2);  // magic 2 is not a legacy message
    Bytes set;
    append_legacy_message(set, m2);
    EXPECT_THROW(parse_message_set(set), DecodeError);

    // Key length running past the message; CRC kept valid so the length check is what fires.
    Bytes over;
    append_legacy_message(over, msg(0, 0, b("key"), b("value"), 0));
    over[21] = 0x20;  // key length 32 > what is left
    reseal_message(over);
    EXPECT_THROW(parse_message_set(over), DecodeError);
}

TEST(LegacyMessageSet, WrapperErrors) {
    // Null value on a compressed wrapper.
    Bytes null_value;
    append_legacy_message(null_value, msg(0, 0, std::nullopt, std::nullopt, 1, 1));
    EXPECT_THROW(decode_message_set(null_value), DecodeError);

    // Nested compression.
    Bytes inner = build_message_set({.magic = 1, .compression = Compression::gzip}, sample(1));
    Bytes nested;
    append_legacy_message(nested, msg(0, 0, std::nullopt, compress(Compression::gzip, inner), 1, 1));
    EXPECT_THROW(decode_message_set(nested), DecodeError);

    // Inner magic differing from the wrapper's.
    Bytes v0_inner = build_message_set({.magic = 0}, sample(0));
    Bytes mixed;
    append_legacy_message(mixed, msg(106, 0, std::nullopt, compress(Compression::gzip, v0_inner), 1, 1));
    EXPECT_THROW(decode_message_set(mixed), DecodeError);

    // Corrupt compressed payload.
    Bytes corrupt;
    append_legacy_message(corrupt, msg(0, 0, std::nullopt, b("definitely not gzip"), 1, 1));
    EXPECT_THROW(decode_message_set(corrupt), DecodeError);

    // Inner set with a partial tail is not allowed even in fetch mode.
    Bytes cut = build_message_set({.magic = 1}, sample(1));
    cut.pop_back();
    Bytes wrapped;
    append_legacy_message(wrapped, msg(0, 0, std::nullopt, compress(Compression::gzip, cut), 1, 1));
    EXPECT_THROW(decode_message_set(wrapped, {.allow_partial_tail = true}), DecodeError);
}

TEST(LegacyMessageSet, DecompressionBoundIsTotal) {
    std::vector<LegacyMessage> big = {msg(0, 0, std::nullopt, Bytes(600000, 'z'))};
    Bytes one = build_message_set({.magic = 1, .compression = Compression::gzip}, big);
    ASSERT_LT(one.size(), 10000u);
    EXPECT_EQ(decode_message_set(one, {.max_decompressed_size = 1u << 20}).size(), 1u);
    Bytes two = one;
    two.insert(two.end(), one.begin(), one.end());
    EXPECT_THROW(decode_message_set(two, {.max_decompressed_size = 1u << 20}), DecodeError);
    EXPECT_THROW(decode_message_set(one, {.max_decompressed_size = 100000}), DecodeError);
}

TEST(LegacyMessageSet, EmptyInputs) {
    EXPECT_TRUE(parse_message_set(ByteSpan{}).empty());
    EXPECT_TRUE(build_message_set({.magic = 1, .compression = Compression::gzip}, {}).empty());
    EXPECT_THROW(build_message_set({.magic = 2}, sample(1)), std::invalid_argument);
}

}  // namespace
}  // namespace weir::records
