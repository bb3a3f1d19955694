#pragma once
// Message sets of magic v0 and v1 (pre-KIP-98), spoken by Produce v0-v2 and
// Fetch v0-v3. Each entry:
//   offset int64 | messageSize int32 | crc uint32 (CRC32 of magic..end)
//   magic int8 | attributes int8 (codec bits 0-2, v1 timestamp type bit 3)
//   [timestamp int64, v1 only] | key bytes | value bytes   (int32 length, -1 = null)
// A compressed "wrapper" message holds a whole inner message set in its value.
// Inner offsets are absolute for v0 and, for v1 (KIP-31), relative: the wrapper
// carries the absolute offset of the last inner message.
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "protocol/records/record_batch.h"

namespace weir::records {

inline constexpr std::size_t kLegacyLogOverhead = 12;        // offset + messageSize
inline constexpr std::int32_t kLegacyMinMessageSizeV0 = 14;  // crc, magic, attributes, two lengths
inline constexpr std::int32_t kLegacyMinMessageSizeV1 = 22;  // + timestamp

struct LegacyMessage {
    std::int64_t offset = 0;
    std::int8_t magic = 1;
    std::int8_t attributes = 0;
    std::int64_t timestamp = -1;  // v1 only; v0 has none (-1)
    std::optional<Bytes> key;
    std::optional<Bytes> value;

    [[nodiscard]] Compression compression() const { return static_cast<Compression>(attributes & 0x07); }
    [[nodiscard]] TimestampType timestamp_type() const {
        return (magic >= 1 && (attributes & 0x08)) ? TimestampType::log_append_time : TimestampType::create_time;
    }
    bool operator==(const LegacyMessage&) const = default;
};

struct LegacyParseOptions {
    // A fetched message set may end with a partial message (the broker cuts at
    // max_bytes); clients ignore it. Produce input must be whole.
    bool allow_partial_tail = false;
    // Total bound on the output of all wrapper messages decompressed together.
    std::size_t max_decompressed_size = kDefaultMaxDecompressedSize;
};

// Top-level messages only; wrappers keep their compressed value. Checks sizes,
// CRCs and magic (0 or 1). Throws wire::DecodeError.
std::vector<LegacyMessage> parse_message_set(ByteSpan data, const LegacyParseOptions& options = {});

// Every logical message: wrappers are replaced by their inner messages with
// absolute offsets; under a v1 LogAppendTime wrapper the inner messages take
// the wrapper's timestamp and timestamp type. Nested compression, inner magic
// differing from the wrapper's, or a wrapper with a null value throw.
std::vector<LegacyMessage> decode_message_set(ByteSpan data, const LegacyParseOptions& options = {});

struct LegacyBuildOptions {
    std::int8_t magic = 1;
    Compression compression = Compression::none;                // zstd is not allowed in v0/v1
    TimestampType timestamp_type = TimestampType::create_time;  // v1 only
};

// Builds a message set from messages with absolute offsets (their magic and
// attributes are ignored; the options decide). Uncompressed: one entry per
// message. Compressed: one wrapper whose offset is the last message's and,
// for v1, whose timestamp is the largest inner timestamp; inner v1 offsets are
// relative to the first message. Empty input gives an empty set.
Bytes build_message_set(const LegacyBuildOptions& options, std::span<const LegacyMessage> messages);

// Appends one message entry exactly as given (offset, magic, attributes, ...).
void append_legacy_message(Bytes& out, const LegacyMessage& message);

}  // namespace weir::records
