#pragma once
// Record batches, magic v2 (KIP-98 format). The broker stores batches exactly
// as the producer sent them; it only rewrites the base offset and leader epoch
// (outside the CRC) and, as Kafka does, the max timestamp and its type bit:
// LogAppendTime topics get the append time, CreateTime topics the largest
// record timestamp when the producer's header says otherwise (CRC recomputed).
//
// Layout (big-endian), offsets from the start of the batch:
//   0 baseOffset int64 | 8 batchLength int32 | 12 partitionLeaderEpoch int32
//  16 magic int8 | 17 crc uint32 (CRC32C of bytes 21..end) | 21 attributes int16
//  23 lastOffsetDelta int32 | 27 baseTimestamp int64 | 35 maxTimestamp int64
//  43 producerId int64 | 51 producerEpoch int16 | 53 baseSequence int32
//  57 recordCount int32 | 61 records...
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "protocol/wire/reader.h"

namespace weir::records {

using wire::Bytes;
using wire::ByteSpan;

inline constexpr std::size_t kBatchHeaderSize = 61;
inline constexpr std::size_t kLogOverhead = 12;  // baseOffset + batchLength
inline constexpr std::size_t kCrcOffset = 17;
inline constexpr std::size_t kAttributesOffset = 21;
inline constexpr std::size_t kMagicOffset = 16;  // same position in v0/v1 message sets
// Bound on one batch's (or message set's) decompressed size, so that a small
// compressed payload cannot exhaust memory.
inline constexpr std::size_t kDefaultMaxDecompressedSize = std::size_t{64} << 20;

enum class Compression : std::int8_t { none = 0, gzip = 1, snappy = 2, lz4 = 3, zstd = 4 };
enum class TimestampType : std::int8_t { create_time = 0, log_append_time = 1 };

struct BatchHeader {
    std::int64_t base_offset = 0;
    std::int32_t batch_length = 0;  // bytes after the batchLength field
    std::int32_t partition_leader_epoch = -1;
    std::int8_t magic = 2;
    std::uint32_t crc = 0;
    std::int16_t attributes = 0;
    std::int32_t last_offset_delta = 0;
    std::int64_t base_timestamp = -1;
    std::int64_t max_timestamp = -1;
    std::int64_t producer_id = -1;
    std::int16_t producer_epoch = -1;
    std::int32_t base_sequence = -1;
    std::int32_t record_count = 0;

    [[nodiscard]] std::size_t total_size() const { return kLogOverhead + static_cast<std::size_t>(batch_length); }
    [[nodiscard]] std::int64_t last_offset() const { return base_offset + last_offset_delta; }
    [[nodiscard]] Compression compression() const { return static_cast<Compression>(attributes & 0x07); }
    [[nodiscard]] TimestampType timestamp_type() const {
        return (attributes & 0x08) ? TimestampType::log_append_time : TimestampType::create_time;
    }
    [[nodiscard]] bool is_transactional() const { return (attributes & 0x10) != 0; }
    [[nodiscard]] bool is_control() const { return (attributes & 0x20) != 0; }
    bool operator==(const BatchHeader&) const = default;
};

struct RecordHeader {
    std::string key;
    std::optional<Bytes> value;
    bool operator==(const RecordHeader&) const = default;
};

struct Record {
    std::int8_t attributes = 0;
    std::int64_t timestamp_delta = 0;
    std::int32_t offset_delta = 0;
    std::optional<Bytes> key;
    std::optional<Bytes> value;
    std::vector<RecordHeader> headers;
    bool operator==(const Record&) const = default;
};

// Reads the fixed header of the batch at the start of `data`. Throws
// wire::DecodeError if fewer than kBatchHeaderSize bytes are present, the magic
// is not 2, or batchLength is too small for a header. Does not check the CRC.
BatchHeader parse_batch_header(ByteSpan data);

// The header of the batch `rest` starts with, checked to fit in `rest`; or
// nothing when `rest` is only the start of a v2 batch and `allow_partial_tail`.
// Throws wire::DecodeError otherwise (see parse_batch_header).
std::optional<BatchHeader> next_batch(ByteSpan rest, bool allow_partial_tail);

// Calls f(header, batch) for each whole batch of concatenated v2 batches, in
// order. With `allow_partial_tail` a truncated last batch is ignored, as Fetch
// responses may end mid-batch; otherwise it throws. CRCs are not checked.
template <typename F>
void for_each_batch(ByteSpan data, bool allow_partial_tail, F&& f) {
    while (!data.empty()) {
        const auto h = next_batch(data, allow_partial_tail);
        if (!h) return;
        f(*h, data.first(h->total_size()));
        data = data.subspan(h->total_size());
    }
}

// The headers of the batches that make up `data` exactly (for_each_batch).
std::vector<BatchHeader> parse_batch_headers(ByteSpan data);

// CRC32C (Castagnoli) as Kafka uses it.
std::uint32_t crc32c(ByteSpan data, std::uint32_t seed = 0);

// True if `batch` (exactly one whole batch) has a CRC matching its contents.
bool crc_valid(ByteSpan batch);

// In-place edits of a stored batch.
void set_base_offset(std::span<std::uint8_t> batch, std::int64_t base_offset);
void set_partition_leader_epoch(std::span<std::uint8_t> batch, std::int32_t epoch);  // outside the CRC
void set_log_append_time(std::span<std::uint8_t> batch, std::int64_t timestamp_ms);  // recomputes the CRC
// Kafka's DefaultRecordBatch.setMaxTimestamp: writes the timestamp-type bit and
// maxTimestamp and recomputes the CRC, unless both already hold these values
// (then the batch is left byte for byte as it was). Returns whether it wrote.
bool set_max_timestamp(std::span<std::uint8_t> batch, TimestampType type, std::int64_t max_timestamp_ms);

// Builds one v2 batch (for internal topics, tests and up-conversion).
struct BatchBuilderOptions {
    std::int64_t base_offset = 0;
    Compression compression = Compression::none;
    TimestampType timestamp_type = TimestampType::create_time;
    std::int64_t base_timestamp = 0;
    std::int64_t producer_id = -1;
    std::int16_t producer_epoch = -1;
    std::int32_t base_sequence = -1;
    std::int32_t partition_leader_epoch = -1;
    bool transactional = false;
    bool control = false;
};
Bytes build_batch(const BatchBuilderOptions& options, std::span<const Record> records);

// The magic byte of the first batch or legacy message in `data` (both formats
// keep it at offset 16). Throws wire::DecodeError if `data` is shorter.
std::int8_t records_magic(ByteSpan data);

// The batches of `data` (for_each_batch).
std::vector<ByteSpan> split_batches(ByteSpan data, bool allow_partial_tail);

// A well-formed batch that breaks a rule Kafka's LogValidator enforces on
// what clients produce (offset range, record count): INVALID_RECORD, which
// clients do not retry, rather than the retriable CORRUPT_MESSAGE.
class InvalidRecordError : public wire::DecodeError {
public:
    using wire::DecodeError::DecodeError;
};

// Splits a buffer of concatenated v2 batches; validates each header, its
// length and CRC, and that records decode (decompressing as needed) when
// `deep` is set. Throws wire::DecodeError on the first bad batch.
struct ValidateOptions {
    bool deep = false;
    std::size_t max_decompressed_size = kDefaultMaxDecompressedSize;  // per batch
    // Produce from clients (Kafka's LogValidator): recordCount > 0,
    // lastOffsetDelta == recordCount - 1 and, when deep, offset deltas 0..n-1;
    // a violation throws InvalidRecordError.
    bool require_dense_offsets = false;
};
std::vector<BatchHeader> validate_batches(ByteSpan data, const ValidateOptions& options);

// The largest record timestamp as Kafka's LogValidator sees it (a LogAppendTime
// batch's records all carry its maxTimestamp), or -1 if none has one.
std::int64_t max_record_timestamp(const BatchHeader& header, std::span<const Record> records);

// The batches of one partition of a Produce request, validated as Kafka's
// LogValidator does for clients (deep, dense offsets) and, for a CreateTime
// topic, with each header's maxTimestamp and timestamp type set from the
// records, since the header field is only the producer's claim (Sarama 1.22
// always sends -1) and the time index and ListOffsets trust it. LogAppendTime
// is stamped at append, where the log's clock is. Returns the headers as they
// now are.
std::vector<BatchHeader> validate_produced_batches(std::span<std::uint8_t> data, TimestampType topic_timestamp_type,
                                                   std::size_t max_decompressed_size = kDefaultMaxDecompressedSize);

// Decodes every record of one batch, decompressing as needed (at most
// `max_decompressed_size` bytes: a decompression bomb is a DecodeError).
std::vector<Record> decode_records(ByteSpan batch, std::size_t max_decompressed_size = kDefaultMaxDecompressedSize);

}  // namespace weir::records
