#pragma once
// Conversions between v2 record batches (what Weir stores) and v0/v1 message
// sets (what Produce v0-v2 sends and Fetch v0-v3 expects).
#include <cstdint>
#include <stdexcept>

#include "protocol/records/legacy_message_set.h"
#include "protocol/records/record_batch.h"

namespace weir::records {

// A batch uses a codec the target format cannot carry (zstd below magic 2).
// Fetch handlers map it to UNSUPPORTED_COMPRESSION_TYPE (76), as Kafka does.
class UnsupportedCompressionError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct UpConvertOptions {
    std::int64_t base_offset = 0;                                     // the broker assigns real offsets on append
    std::size_t max_decompressed_size = kDefaultMaxDecompressedSize;  // whole set
};

// A v0/v1 message set (Produce v0-v2) -> one v2 batch. Record offset deltas are
// 0..n-1 in message order; v1 timestamps are kept (v0 has none: -1); key and
// value kept; the codec of the first compressed wrapper is used to recompress
// the whole batch; a v1 LogAppendTime attribute is kept. No producer id.
// Returns an empty buffer for an empty set. Throws wire::DecodeError on any
// malformed, truncated or CRC-failing message.
Bytes up_convert(ByteSpan message_set, const UpConvertOptions& options = {});

struct DownConvertOptions {
    std::int8_t magic = 1;                                            // 0 for Fetch v0-v1, 1 for Fetch v2-v3
    std::size_t max_decompressed_size = kDefaultMaxDecompressedSize;  // per batch
};

struct DownConverted {
    Bytes records;  // the v0/v1 message set
    // Offset after the last whole batch consumed, control and empty batches
    // included; -1 if none. When `records` is empty but this is set, a fetch
    // handler should read on from here rather than answer an old consumer
    // with nothing (it would ask for the same offset forever).
    std::int64_t next_offset = -1;
};

// Concatenated v2 batches (a fetched log range) -> a v0/v1 message set with the
// original absolute offsets and (v1) timestamps; LogAppendTime batches give
// messages with the batch's max timestamp and the LogAppendTime attribute.
// An uncompressed batch becomes plain messages; a gzip/snappy/lz4 batch becomes
// one wrapper message with the same codec (as Kafka does). Record headers and
// producer state are dropped (the old formats cannot carry them); control
// batches are dropped; a truncated trailing batch is dropped. Batch CRCs are
// checked. Throws UnsupportedCompressionError for zstd batches and
// wire::DecodeError for corrupt input.
DownConverted down_convert(ByteSpan batches, const DownConvertOptions& options = {});

}  // namespace weir::records
