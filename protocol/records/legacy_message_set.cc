#include "protocol/records/legacy_message_set.h"

#include <zlib.h>

#include <algorithm>
#include <climits>
#include <stdexcept>
#include <string>

#include "protocol/records/compression.h"
#include "protocol/wire/writer.h"

namespace weir::records {
namespace {

using wire::DecodeError;

constexpr std::int8_t kTimestampTypeBit = 0x08;
constexpr std::size_t kCrcSize = 4;

std::uint32_t crc32_zlib(ByteSpan data) {
    uLong crc = crc32(0L, Z_NULL, 0);
    while (!data.empty()) {
        std::size_t n = std::min<std::size_t>(data.size(), UINT_MAX);
        crc = crc32(crc, data.data(), static_cast<uInt>(n));
        data = data.subspan(n);
    }
    return static_cast<std::uint32_t>(crc);
}

// One message body (after offset and size), CRC checked.
LegacyMessage parse_message(std::int64_t offset, ByteSpan body) {
    wire::Reader r(body);
    std::uint32_t crc = r.uint32();
    if (crc32_zlib(body.subspan(kCrcSize)) != crc) throw DecodeError("message CRC mismatch");
    LegacyMessage m;
    m.offset = offset;
    m.magic = r.int8();
    if (m.magic != 0 && m.magic != 1) throw DecodeError("unsupported message magic " + std::to_string(m.magic));
    m.attributes = r.int8();
    if (m.magic == 1) m.timestamp = r.int64();
    m.key = r.nullable_bytes(false);
    m.value = r.nullable_bytes(false);
    if (!r.at_end()) throw DecodeError("message size does not match its fields");
    return m;
}

std::vector<LegacyMessage> parse_entries(ByteSpan data, bool allow_partial_tail) {
    std::vector<LegacyMessage> out;
    wire::Reader r(data);
    while (!r.at_end()) {
        if (r.remaining() < kLegacyLogOverhead) {
            if (allow_partial_tail) break;
            throw DecodeError("truncated message header");
        }
        std::int64_t offset = r.int64();
        std::int32_t size = r.int32();
        if (size < kLegacyMinMessageSizeV0) throw DecodeError("message size too small");
        if (static_cast<std::size_t>(size) > r.remaining()) {
            if (allow_partial_tail) break;
            throw DecodeError("message extends past the end of the buffer");
        }
        out.push_back(parse_message(offset, r.take(static_cast<std::size_t>(size))));
    }
    return out;
}

void check_build_options(const LegacyBuildOptions& o) {
    if (o.magic != 0 && o.magic != 1) throw std::invalid_argument("legacy magic must be 0 or 1");
    if (o.compression == Compression::zstd) throw std::invalid_argument("zstd needs magic 2");
}

}  // namespace

std::vector<LegacyMessage> parse_message_set(ByteSpan data, const LegacyParseOptions& options) {
    return parse_entries(data, options.allow_partial_tail);
}

std::vector<LegacyMessage> decode_message_set(ByteSpan data, const LegacyParseOptions& options) {
    std::vector<LegacyMessage> out;
    std::size_t budget = options.max_decompressed_size;
    for (auto& wrapper : parse_entries(data, options.allow_partial_tail)) {
        Compression codec = wrapper.compression();
        if (codec == Compression::none) {
            out.push_back(std::move(wrapper));
            continue;
        }
        if (codec == Compression::zstd || static_cast<int>(codec) > 4)
            throw DecodeError("invalid codec for magic " + std::to_string(wrapper.magic));
        if (!wrapper.value) throw DecodeError("compressed message with null value");
        Bytes plain = decompress(codec, *wrapper.value, {.max_output = budget, .lz4_magic_v0 = wrapper.magic == 0});
        budget -= plain.size();
        auto inner = parse_entries(plain, false);
        if (inner.empty()) continue;
        std::int64_t last_relative = inner.back().offset;
        bool log_append = wrapper.timestamp_type() == TimestampType::log_append_time;
        for (auto& m : inner) {
            if (m.compression() != Compression::none) throw DecodeError("nested compressed message");
            if (m.magic != wrapper.magic) throw DecodeError("inner message magic differs from its wrapper");
            if (wrapper.magic == 1) m.offset = wrapper.offset - last_relative + m.offset;
            if (log_append) {
                m.timestamp = wrapper.timestamp;
                m.attributes = static_cast<std::int8_t>(m.attributes | kTimestampTypeBit);
            }
            out.push_back(std::move(m));
        }
    }
    return out;
}

void append_legacy_message(Bytes& out, const LegacyMessage& m) {
    wire::Writer w(out);
    w.int64(m.offset);
    auto size_at = w.reserve_int32();
    std::size_t crc_at = w.reserve_int32();
    w.int8(m.magic);
    w.int8(m.attributes);
    if (m.magic >= 1) w.int64(m.timestamp);
    w.nullable_bytes(false, m.key);
    w.nullable_bytes(false, m.value);
    w.patch_int32(size_at, static_cast<std::int32_t>(out.size() - size_at - 4));
    w.patch_int32(crc_at, static_cast<std::int32_t>(crc32_zlib(ByteSpan(out).subspan(crc_at + kCrcSize))));
}

Bytes build_message_set(const LegacyBuildOptions& options, std::span<const LegacyMessage> messages) {
    check_build_options(options);
    Bytes out;
    if (messages.empty()) return out;
    auto ts_bit = static_cast<std::int8_t>(
        options.magic == 1 && options.timestamp_type == TimestampType::log_append_time ? kTimestampTypeBit : 0);
    auto entry = [&](const LegacyMessage& src, std::int64_t offset) {
        LegacyMessage m;
        m.offset = offset;
        m.magic = options.magic;
        m.attributes = ts_bit;
        m.timestamp = options.magic == 1 ? src.timestamp : -1;
        m.key = src.key;
        m.value = src.value;
        return m;
    };
    if (options.compression == Compression::none) {
        for (const auto& src : messages) append_legacy_message(out, entry(src, src.offset));
        return out;
    }
    Bytes inner;
    std::int64_t first = messages.front().offset;
    std::int64_t max_timestamp = -1;
    for (const auto& src : messages) {
        append_legacy_message(inner, entry(src, options.magic == 1 ? src.offset - first : src.offset));
        max_timestamp = std::max(max_timestamp, src.timestamp);
    }
    LegacyMessage wrapper;
    wrapper.offset = messages.back().offset;
    wrapper.magic = options.magic;
    wrapper.attributes = static_cast<std::int8_t>(ts_bit | static_cast<std::int8_t>(options.compression));
    wrapper.timestamp = options.magic == 1 ? max_timestamp : -1;
    wrapper.value = compress(options.compression, inner, {.lz4_magic_v0 = options.magic == 0});
    append_legacy_message(out, wrapper);
    return out;
}

}  // namespace weir::records
