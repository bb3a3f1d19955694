#include "protocol/records/record_batch.h"

#include <isa-l/crc.h>

#include <algorithm>
#include <climits>
#include <string>

#include "protocol/records/compression.h"
#include "protocol/wire/writer.h"

namespace weir::records {
namespace {

using wire::DecodeError;

constexpr std::int32_t kMinBatchLength = static_cast<std::int32_t>(kBatchHeaderSize - kLogOverhead);  // 49
constexpr std::size_t kMaxTimestampOffset = 35;
constexpr std::size_t kPartitionLeaderEpochOffset = 12;
constexpr std::int16_t kTimestampTypeBit = 0x08;
constexpr std::int16_t kTransactionalBit = 0x10;
constexpr std::int16_t kControlBit = 0x20;

void put_be(std::span<std::uint8_t> out, std::size_t at, std::uint64_t v, std::size_t width) {
    for (std::size_t i = 0; i < width; ++i) out[at + i] = static_cast<std::uint8_t>(v >> (8 * (width - 1 - i)));
}

void require_size(std::span<const std::uint8_t> batch, std::size_t n) {
    if (batch.size() < n) throw DecodeError("batch too short for in-place edit");
}

// Bytes covered by the CRC: attributes through the end of the batch.
std::uint32_t batch_crc(ByteSpan batch, const BatchHeader& h) {
    return crc32c(batch.subspan(kAttributesOffset, h.total_size() - kAttributesOffset));
}

// Record varint-length bytes: -1 is null, other negatives are corrupt.
std::optional<Bytes> read_varbytes(wire::Reader& r, const char* what) {
    std::int32_t n = r.varint();
    if (n < -1) throw DecodeError(std::string("negative ") + what + " length");
    if (n == -1) return std::nullopt;
    auto b = r.take(static_cast<std::size_t>(n));
    return Bytes(b.begin(), b.end());
}

Record read_record(wire::Reader& r) {
    std::int32_t length = r.varint();
    if (length < 0) throw DecodeError("negative record length");
    wire::Reader body(r.take(static_cast<std::size_t>(length)));
    Record rec;
    rec.attributes = body.int8();
    rec.timestamp_delta = body.varlong();
    rec.offset_delta = body.varint();
    rec.key = read_varbytes(body, "record key");
    rec.value = read_varbytes(body, "record value");
    std::int32_t header_count = body.varint();
    if (header_count < 0) throw DecodeError("negative record header count");
    // Each header takes at least two bytes (two length varints).
    if (static_cast<std::size_t>(header_count) > body.remaining() / 2)
        throw DecodeError("record header count exceeds record");
    rec.headers.reserve(static_cast<std::size_t>(header_count));
    for (std::int32_t i = 0; i < header_count; ++i) {
        RecordHeader h;
        auto key = read_varbytes(body, "header key");
        if (!key) throw DecodeError("null record header key");
        h.key.assign(key->begin(), key->end());
        h.value = read_varbytes(body, "header value");
        rec.headers.push_back(std::move(h));
    }
    if (!body.at_end()) throw DecodeError("record length does not match its fields");
    return rec;
}

std::vector<Record> read_records(ByteSpan body, std::int32_t count) {
    wire::Reader r(body);
    std::vector<Record> out;
    // A record takes at least 7 bytes; never reserve more than the body could hold.
    out.reserve(std::min(static_cast<std::size_t>(count), body.size() / 7));
    for (std::int32_t i = 0; i < count; ++i) out.push_back(read_record(r));
    if (!r.at_end()) throw DecodeError("batch has bytes after its last record");
    return out;
}

std::size_t varbytes_size(const std::optional<Bytes>& b) {
    return b ? wire::size_of::varint(static_cast<std::int32_t>(b->size())) + b->size() : 1;
}

void write_varbytes(wire::Writer& w, const std::optional<Bytes>& b) {
    if (!b) {
        w.varint(-1);
        return;
    }
    w.varint(static_cast<std::int32_t>(b->size()));
    w.raw(*b);
}

void write_record(wire::Writer& w, const Record& rec) {
    std::size_t size = 1 + wire::size_of::varlong(rec.timestamp_delta) + wire::size_of::varint(rec.offset_delta) +
                       varbytes_size(rec.key) + varbytes_size(rec.value) +
                       wire::size_of::varint(static_cast<std::int32_t>(rec.headers.size()));
    for (const auto& h : rec.headers)
        size += wire::size_of::varint(static_cast<std::int32_t>(h.key.size())) + h.key.size() + varbytes_size(h.value);
    w.varint(static_cast<std::int32_t>(size));
    w.int8(rec.attributes);
    w.varlong(rec.timestamp_delta);
    w.varint(rec.offset_delta);
    write_varbytes(w, rec.key);
    write_varbytes(w, rec.value);
    w.varint(static_cast<std::int32_t>(rec.headers.size()));
    for (const auto& h : rec.headers) {
        w.varint(static_cast<std::int32_t>(h.key.size()));
        w.raw({reinterpret_cast<const std::uint8_t*>(h.key.data()), h.key.size()});
        write_varbytes(w, h.value);
    }
}

// Header, length and CRC of one whole batch at the start of `data`.
BatchHeader check_batch(ByteSpan data) {
    BatchHeader h = parse_batch_header(data);
    if (h.total_size() > data.size()) throw DecodeError("batch extends past the end of the buffer");
    if (batch_crc(data, h) != h.crc) throw DecodeError("batch CRC mismatch");
    if (h.record_count < 0) throw DecodeError("negative record count");
    return h;
}

std::vector<Record> decode_checked(ByteSpan batch, const BatchHeader& h, std::size_t max_decompressed_size) {
    ByteSpan body = batch.subspan(kBatchHeaderSize, h.total_size() - kBatchHeaderSize);
    if (h.compression() == Compression::none) return read_records(body, h.record_count);
    Bytes plain = decompress(h.compression(), body, {.max_output = max_decompressed_size});
    return read_records(plain, h.record_count);
}

// One whole batch at the start of `data`, checked as `options` asks; the
// decoded records go to `records` when deep.
BatchHeader validate_batch(ByteSpan data, const ValidateOptions& options, std::vector<Record>* records) {
    BatchHeader h = check_batch(data);
    if (options.require_dense_offsets) {
        if (h.record_count <= 0) throw InvalidRecordError("batch has no records");
        if (h.last_offset_delta != h.record_count - 1)
            throw InvalidRecordError("lastOffsetDelta " + std::to_string(h.last_offset_delta) +
                                     " does not match record count " + std::to_string(h.record_count));
    }
    if (options.deep) {
        auto decoded = decode_checked(data, h, options.max_decompressed_size);
        if (options.require_dense_offsets) {
            for (std::size_t i = 0; i < decoded.size(); ++i)
                if (decoded[i].offset_delta != static_cast<std::int32_t>(i))
                    throw InvalidRecordError("record offset deltas are not 0..n-1");
        }
        if (records) *records = std::move(decoded);
    }
    return h;
}

}  // namespace

BatchHeader parse_batch_header(ByteSpan data) {
    if (data.size() < kBatchHeaderSize) throw DecodeError("truncated record batch header");
    wire::Reader r(data);
    BatchHeader h;
    h.base_offset = r.int64();
    h.batch_length = r.int32();
    h.partition_leader_epoch = r.int32();
    h.magic = r.int8();
    if (h.magic != 2) throw DecodeError("unsupported record batch magic " + std::to_string(h.magic));
    if (h.batch_length < kMinBatchLength) throw DecodeError("record batch length too small");
    h.crc = r.uint32();
    h.attributes = r.int16();
    h.last_offset_delta = r.int32();
    h.base_timestamp = r.int64();
    h.max_timestamp = r.int64();
    h.producer_id = r.int64();
    h.producer_epoch = r.int16();
    h.base_sequence = r.int32();
    h.record_count = r.int32();
    return h;
}

std::uint32_t crc32c(ByteSpan data, std::uint32_t seed) {
    // ISA-L neither pre- nor post-inverts; standard CRC32C does both.
    std::uint32_t crc = ~seed;
    while (!data.empty()) {
        std::size_t n = std::min<std::size_t>(data.size(), INT_MAX);
        crc = crc32_iscsi(const_cast<std::uint8_t*>(data.data()), static_cast<int>(n), crc);
        data = data.subspan(n);
    }
    return ~crc;
}

bool crc_valid(ByteSpan batch) {
    try {
        BatchHeader h = parse_batch_header(batch);
        return h.total_size() <= batch.size() && batch_crc(batch, h) == h.crc;
    } catch (const DecodeError&) {
        return false;
    }
}

void set_base_offset(std::span<std::uint8_t> batch, std::int64_t base_offset) {
    require_size(batch, 8);
    put_be(batch, 0, static_cast<std::uint64_t>(base_offset), 8);
}

void set_partition_leader_epoch(std::span<std::uint8_t> batch, std::int32_t epoch) {
    require_size(batch, kPartitionLeaderEpochOffset + 4);
    put_be(batch, kPartitionLeaderEpochOffset, static_cast<std::uint32_t>(epoch), 4);
}

void set_log_append_time(std::span<std::uint8_t> batch, std::int64_t timestamp_ms) {
    set_max_timestamp(batch, TimestampType::log_append_time, timestamp_ms);
}

bool set_max_timestamp(std::span<std::uint8_t> batch, TimestampType type, std::int64_t max_timestamp_ms) {
    BatchHeader h = parse_batch_header(batch);
    if (h.total_size() > batch.size()) throw DecodeError("batch extends past the end of the buffer");
    if (h.timestamp_type() == type && h.max_timestamp == max_timestamp_ms) return false;
    auto attributes = static_cast<std::uint16_t>(h.attributes & ~kTimestampTypeBit);
    if (type == TimestampType::log_append_time) attributes |= kTimestampTypeBit;
    put_be(batch, kAttributesOffset, attributes, 2);
    put_be(batch, kMaxTimestampOffset, static_cast<std::uint64_t>(max_timestamp_ms), 8);
    put_be(batch, kCrcOffset, batch_crc(batch, h), 4);
    return true;
}

std::int8_t records_magic(ByteSpan data) {
    if (data.size() <= kMagicOffset) throw DecodeError("records too short to hold a magic byte");
    return static_cast<std::int8_t>(data[kMagicOffset]);
}

std::optional<BatchHeader> next_batch(ByteSpan rest, bool allow_partial_tail) {
    if (rest.size() < kBatchHeaderSize) {
        // A cut-off v2 header is a partial tail; other magic is not.
        const bool foreign = rest.size() > kMagicOffset && rest[kMagicOffset] != 2;
        if (allow_partial_tail && !foreign) return std::nullopt;
        throw DecodeError(foreign ? "unsupported record batch magic" : "truncated record batch header");
    }
    BatchHeader h = parse_batch_header(rest);
    if (h.total_size() > rest.size()) {
        if (allow_partial_tail) return std::nullopt;
        throw DecodeError("batch extends past the end of the buffer");
    }
    return h;
}

std::vector<ByteSpan> split_batches(ByteSpan data, bool allow_partial_tail) {
    std::vector<ByteSpan> out;
    for_each_batch(data, allow_partial_tail, [&](const BatchHeader&, ByteSpan batch) { out.push_back(batch); });
    return out;
}

std::vector<BatchHeader> parse_batch_headers(ByteSpan data) {
    std::vector<BatchHeader> headers;
    for_each_batch(data, false, [&](const BatchHeader& h, ByteSpan) { headers.push_back(h); });
    return headers;
}

std::vector<BatchHeader> validate_batches(ByteSpan data, const ValidateOptions& options) {
    std::vector<BatchHeader> out;
    while (!data.empty()) {
        BatchHeader h = validate_batch(data, options, nullptr);
        out.push_back(h);
        data = data.subspan(h.total_size());
    }
    return out;
}

std::int64_t max_record_timestamp(const BatchHeader& header, std::span<const Record> records) {
    if (records.empty()) return -1;
    if (header.timestamp_type() == TimestampType::log_append_time)
        return std::max<std::int64_t>(header.max_timestamp, -1);
    std::int64_t max = -1;
    for (const auto& r : records) max = std::max(max, header.base_timestamp + r.timestamp_delta);
    return max;
}

std::vector<BatchHeader> validate_produced_batches(std::span<std::uint8_t> data, TimestampType topic_timestamp_type,
                                                   std::size_t max_decompressed_size) {
    const ValidateOptions options{
        .deep = true, .max_decompressed_size = max_decompressed_size, .require_dense_offsets = true};
    std::vector<BatchHeader> out;
    while (!data.empty()) {
        std::vector<Record> records;
        BatchHeader h = validate_batch(data, options, &records);
        auto batch = data.first(h.total_size());
        if (topic_timestamp_type == TimestampType::create_time &&
            set_max_timestamp(batch, TimestampType::create_time, max_record_timestamp(h, records)))
            h = parse_batch_header(batch);
        out.push_back(h);
        data = data.subspan(h.total_size());
    }
    return out;
}

std::vector<Record> decode_records(ByteSpan batch, std::size_t max_decompressed_size) {
    BatchHeader h = parse_batch_header(batch);
    if (h.total_size() > batch.size()) throw DecodeError("batch extends past the end of the buffer");
    if (h.record_count < 0) throw DecodeError("negative record count");
    return decode_checked(batch, h, max_decompressed_size);
}

Bytes build_batch(const BatchBuilderOptions& options, std::span<const Record> records) {
    Bytes body;
    {
        wire::Writer w(body);
        for (const auto& rec : records) write_record(w, rec);
    }
    if (options.compression != Compression::none) body = compress(options.compression, body);

    std::int16_t attributes = static_cast<std::int16_t>(options.compression);
    if (options.timestamp_type == TimestampType::log_append_time) attributes |= kTimestampTypeBit;
    if (options.transactional) attributes |= kTransactionalBit;
    if (options.control) attributes |= kControlBit;

    std::int64_t max_delta = 0;
    for (const auto& rec : records) max_delta = std::max(max_delta, rec.timestamp_delta);

    Bytes out;
    out.reserve(kBatchHeaderSize + body.size());
    wire::Writer w(out);
    w.int64(options.base_offset);
    auto length_at = w.reserve_int32();
    w.int32(options.partition_leader_epoch);
    w.int8(2);
    auto crc_at = w.reserve_int32();
    w.int16(attributes);
    w.int32(records.empty() ? 0 : records.back().offset_delta);
    w.int64(options.base_timestamp);
    w.int64(options.base_timestamp + max_delta);
    w.int64(options.producer_id);
    w.int16(options.producer_epoch);
    w.int32(options.base_sequence);
    w.int32(static_cast<std::int32_t>(records.size()));
    w.raw(body);
    w.patch_int32(length_at, static_cast<std::int32_t>(out.size() - kLogOverhead));
    w.patch_int32(crc_at, static_cast<std::int32_t>(crc32c(ByteSpan(out).subspan(kAttributesOffset))));
    return out;
}

}  // namespace weir::records
