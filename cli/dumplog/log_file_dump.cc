#include "cli/dumplog/log_file_dump.h"

#include <fmt/format.h>
#include <zlib.h>

#include <limits>
#include <optional>
#include <string>

#include "broker/storage/index_file.h"
#include "broker/storage/log_names.h"
#include "cli/dumplog/log_entry_reader.h"
#include "protocol/records/compression.h"
#include "protocol/records/legacy_message_set.h"

namespace weir::cli::dumplog {

namespace {

using records::BatchHeader;
using records::TimestampType;

constexpr std::int16_t kDeleteHorizonFlag = 0x40;  // KIP-534, set by the cleaner on tombstone batches
constexpr std::size_t kLegacyCrcOffset = records::kLogOverhead;

const char* timestamp_type_name(std::int8_t magic, TimestampType type) {
    if (magic == 0) return "NoTimestampType";
    return type == TimestampType::log_append_time ? "LogAppendTime" : "CreateTime";
}

// Kafka's DefaultRecordBatch.incrementSequence: sequences wrap at INT32_MAX to 0.
std::int32_t add_sequence(std::int32_t base, std::int32_t delta) {
    if (base < 0) return -1;
    if (base > std::numeric_limits<std::int32_t>::max() - delta)
        return delta - (std::numeric_limits<std::int32_t>::max() - base) - 1;
    return base + delta;
}

// Keys and payloads as text, as Kafka's tool prints them; control bytes escaped so a record stays on one line.
std::string printable(const wire::Bytes& bytes) {
    std::string out;
    out.reserve(bytes.size());
    for (auto b : bytes) {
        if (b < 0x20 || b == 0x7f)
            out += fmt::format("\\x{:02x}", b);
        else
            out += static_cast<char>(b);
    }
    return out;
}

std::int64_t size_or_minus_one(const std::optional<wire::Bytes>& bytes) {
    return bytes ? static_cast<std::int64_t>(bytes->size()) : -1;
}

// Kafka's ControlRecordType ids.
std::string control_type_name(std::int16_t type) {
    switch (type) {
        case 0:
            return "ABORT";
        case 1:
            return "COMMIT";
        case 2:
            return "LEADER_CHANGE";
        case 3:
            return "SNAPSHOT_HEADER";
        case 4:
            return "SNAPSHOT_FOOTER";
        case 5:
            return "KRAFT_VERSION";
        case 6:
            return "KRAFT_VOTERS";
        default:
            return "UNKNOWN";
    }
}

// Control record key: version int16, type int16. Transaction marker value: version int16, coordinatorEpoch int32.
std::string describe_control(const records::Record& r) {
    if (!r.key || r.key->size() < 4) return " controlType: UNKNOWN(-1)";
    const auto type = static_cast<std::int16_t>(storage::be::get32(r.key->data()) & 0xffff);
    if ((type == 0 || type == 1) && r.value && r.value->size() >= 6) {
        const auto epoch = static_cast<std::int32_t>(storage::be::get32(r.value->data() + 2));
        return fmt::format(" endTxnMarker: {} coordinatorEpoch: {}", control_type_name(type), epoch);
    }
    return fmt::format(" controlType: {}({})", control_type_name(type), type);
}

std::string key_and_payload(const std::optional<wire::Bytes>& key, const std::optional<wire::Bytes>& value) {
    std::string out;
    if (key) out += " key: " + printable(*key);
    if (value) out += " payload: " + printable(*value);
    return out;
}

std::string batch_line(const LogEntry& e, std::uint32_t crc, bool valid) {
    const BatchHeader& h = e.header;
    std::string line;
    if (e.magic >= 2) {
        line = fmt::format(
            "baseOffset: {} lastOffset: {} count: {} baseSequence: {} lastSequence: {} producerId: {} "
            "producerEpoch: {} partitionLeaderEpoch: {} isTransactional: {} isControl: {} deleteHorizonMs: {}",
            h.base_offset, h.last_offset(), h.record_count, h.base_sequence,
            add_sequence(h.base_sequence, h.last_offset_delta), h.producer_id, h.producer_epoch,
            h.partition_leader_epoch, h.is_transactional(), h.is_control(),
            (h.attributes & kDeleteHorizonFlag) ? fmt::format("OptionalLong[{}]", h.base_timestamp)
                                                : std::string("OptionalLong.empty"));
    } else {
        line = fmt::format("offset: {}", e.last_offset);
    }
    const auto type = e.magic >= 2
                          ? h.timestamp_type()
                          : ((h.attributes & 0x08) ? TimestampType::log_append_time : TimestampType::create_time);
    line += fmt::format(" position: {} {}: {} size: {} magic: {} compresscodec: {} crc: {} isvalid: {}", e.position,
                        timestamp_type_name(e.magic, type), e.max_timestamp, e.size, e.magic,
                        records::compression_name(h.compression()), crc, valid);
    return line;
}

// Record timestamps honour LogAppendTime, which overrides every record's own.
std::int64_t record_timestamp(const BatchHeader& h, const records::Record& r) {
    if (h.timestamp_type() == TimestampType::log_append_time) return h.max_timestamp;
    return h.base_timestamp + r.timestamp_delta;
}

void dump_records(const LogEntry& e, std::span<const std::uint8_t> bytes, FileReport& report) {
    const bool print = !report.settings().verify;
    const bool data = report.settings().print_data_log;
    const BatchHeader& h = e.header;
    try {
        if (e.magic >= 2) {
            for (const auto& r : records::decode_records(bytes)) {
                if (!print) continue;
                std::string headers;
                for (const auto& hd : r.headers) headers += (headers.empty() ? "" : ",") + hd.key;
                std::string line =
                    fmt::format("| offset: {} {}: {} keySize: {} valueSize: {} sequence: {} headerKeys: [{}]",
                                h.base_offset + r.offset_delta, timestamp_type_name(e.magic, h.timestamp_type()),
                                record_timestamp(h, r), size_or_minus_one(r.key), size_or_minus_one(r.value),
                                add_sequence(h.base_sequence, r.offset_delta), headers);
                if (h.is_control())
                    line += describe_control(r);
                else if (data)
                    line += key_and_payload(r.key, r.value);
                report.line(line);
            }
        } else {
            for (const auto& m : records::decode_message_set(bytes)) {
                if (!print) continue;
                std::string line = fmt::format("| offset: {} {}: {} keySize: {} valueSize: {}", m.offset,
                                               timestamp_type_name(m.magic, m.timestamp_type()), m.timestamp,
                                               size_or_minus_one(m.key), size_or_minus_one(m.value));
                if (data) line += key_and_payload(m.key, m.value);
                report.line(line);
            }
        }
    } catch (const std::exception& ex) {
        report.problem(
            fmt::format("Could not decode the records of the batch at position {}: {}", e.position, ex.what()));
    }
}

}  // namespace

void dump_log_file(const std::filesystem::path& path, FileReport& report) {
    const auto name = path.filename().string();
    const auto segment_base = storage::parse_segment_file_name(name, storage::kLogSuffix);
    if (segment_base) report.line(fmt::format("Log starting offset: {}", *segment_base));

    LogEntryReader reader(path);
    std::optional<std::int64_t> previous_last;
    while (auto e = reader.next()) {
        report.count_one(e->first_offset, e->last_offset);
        const auto bytes = reader.entry_bytes();
        std::uint32_t stored = 0;
        std::uint32_t computed = 0;
        if (bytes.size() == e->size && e->magic >= 2) {
            stored = e->header.crc;
            computed = records::crc32c(bytes.subspan(records::kAttributesOffset));
        } else if (bytes.size() == e->size) {
            stored = storage::be::get32(bytes.data() + kLegacyCrcOffset);
            const auto body = bytes.subspan(records::kMagicOffset);
            computed = static_cast<std::uint32_t>(::crc32(0L, body.data(), static_cast<uInt>(body.size())));
        } else {
            computed = ~stored;  // could not read it back: not valid
        }
        const bool valid = stored == computed;
        report.line(batch_line(*e, stored, valid));

        if (!valid)
            report.problem(
                fmt::format("CRC mismatch in the batch at position {} (offsets {}-{}): stored {}, computed {}",
                            e->position, e->first_offset, e->last_offset, stored, computed));
        if (e->magic >= 2 && e->header.last_offset_delta < 0)
            report.problem(fmt::format("The batch at position {} has a negative lastOffsetDelta {}", e->position,
                                       e->header.last_offset_delta));
        if (segment_base && e->first_offset < *segment_base)
            report.problem(
                fmt::format("The batch at position {} starts at offset {}, below the segment's base offset {}",
                            e->position, e->first_offset, *segment_base));
        if (previous_last && e->first_offset <= *previous_last)
            report.problem(fmt::format("Non-consecutive offsets in {}: {} is followed by {} at position {}", name,
                                       *previous_last, e->first_offset, e->position));
        previous_last = e->last_offset;
        // A batch failing its CRC would decode garbage, or not at all.
        if (report.settings().deep_iteration && valid) dump_records(*e, bytes, report);
    }
    if (reader.stop() != LogEntryReader::Stop::end) {
        report.problem(
            fmt::format("Found {} invalid bytes at the end of {}: {}: {}", reader.file_size() - reader.position(), name,
                        reader.stop() == LogEntryReader::Stop::torn ? "torn" : "corrupt", reader.stop_reason()));
    }
}

}  // namespace weir::cli::dumplog
