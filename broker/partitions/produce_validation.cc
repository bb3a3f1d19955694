#include "broker/partitions/produce_validation.h"

#include <algorithm>

#include "protocol/records/conversion.h"
#include "protocol/records/record_batch.h"

namespace weir::partitions {

namespace {

ValidatedRecords fail(ErrorCode code, std::string message) {
    ValidatedRecords r;
    r.error = code;
    r.error_message = std::move(message);
    return r;
}

// Kafka's LogValidator.validateKey: a compacted topic refuses records without
// a key (the cleaner keeps records by key and drops unkeyed ones), with one
// record error per offending record of the first batch that has any. Records
// that do not decode are left to the checks below, which report them.
std::vector<RecordError> unkeyed_record_errors(const TopicPartition& tp, wire::ByteSpan records) {
    std::vector<RecordError> errors;
    try {
        wire::Bytes converted;
        if (records::records_magic(records) < 2) {
            converted = records::up_convert(records);
            records = converted;
        }
        for (auto batch : records::split_batches(records, false)) {
            std::int32_t index = 0;
            for (const auto& r : records::decode_records(batch)) {
                if (!r.key)
                    errors.push_back({index, "Compacted topic cannot accept message without key in topic partition " +
                                                 tp.to_string() + "."});
                ++index;
            }
            if (!errors.empty()) break;
        }
    } catch (const wire::DecodeError&) {
        errors.clear();
    }
    return errors;
}

// LogValidator.processRecordErrors' message.
std::string record_errors_message(const std::vector<RecordError>& errors) {
    std::string shown;
    for (std::size_t i = 0; i < std::min<std::size_t>(errors.size(), 3); ++i) {
        if (i > 0) shown += ", ";
        shown += "RecordError(batchIndex=" + std::to_string(errors[i].batch_index) + ", message='" + errors[i].message +
                 "')";
    }
    return "One or more records have been rejected due to " + std::to_string(errors.size()) +
           " record errors in total, and only showing the first three errors at most: [" + shown + "]";
}

// Java's long arithmetic, which wraps, so the bounds and the verdicts are
// exactly Kafka's even for timestamps at the ends of the range.
std::int64_t java_add(std::int64_t a, std::int64_t b) {
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}
std::int64_t java_sub(std::int64_t a, std::int64_t b) {
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b));
}

// LogValidator.validateTimestamp: each CreateTime record within
// [now - before.max.ms, now + after.max.ms], one record error per record
// outside, counted across the batches. Records are read only when a bound
// is set.
std::vector<RecordError> timestamp_record_errors(wire::ByteSpan batches, const storage::LogConfig& config,
                                                 std::int64_t now) {
    std::vector<RecordError> errors;
    const std::int64_t before = config.timestamp_before_max_ms();
    const std::int64_t after = config.timestamp_after_max_ms();
    if (config.message_timestamp_type != records::TimestampType::create_time ||
        (before == storage::kNever && after == storage::kNever))
        return errors;
    std::int32_t index = 0;
    records::for_each_batch(batches, false, [&](const records::BatchHeader& h, wire::ByteSpan batch) {
        for (const auto& r : records::decode_records(batch)) {
            const std::int64_t ts = java_add(h.base_timestamp, r.timestamp_delta);
            const std::int64_t diff = java_sub(now, ts);
            if (ts != -1 && (diff > before || java_sub(0, diff) > after))
                errors.push_back({index, "Timestamp " + std::to_string(ts) + " of message with offset " +
                                             std::to_string(java_add(h.base_offset, r.offset_delta)) +
                                             " is out of range. The timestamp should be within [" +
                                             std::to_string(java_sub(now, before)) + ", " +
                                             std::to_string(java_add(now, after)) + "]"});
            ++index;
        }
    });
    return errors;
}

// Kafka's LogValidator when a topic's compression.type is not the batch's
// codec: the batch is rebuilt in the topic's codec, its offsets, timestamps
// and producer fields kept.
wire::Bytes recompress(wire::ByteSpan batches, records::Compression codec) {
    wire::Bytes out;
    out.reserve(batches.size());
    records::for_each_batch(batches, false, [&](const records::BatchHeader& h, wire::ByteSpan batch) {
        if (h.compression() == codec) {
            out.insert(out.end(), batch.begin(), batch.end());
            return;
        }
        records::BatchBuilderOptions options;
        options.base_offset = h.base_offset;
        options.compression = codec;
        options.timestamp_type = h.timestamp_type();
        options.base_timestamp = h.base_timestamp;
        options.producer_id = h.producer_id;
        options.producer_epoch = h.producer_epoch;
        options.base_sequence = h.base_sequence;
        options.partition_leader_epoch = h.partition_leader_epoch;
        options.transactional = h.is_transactional();
        const auto rebuilt = records::build_batch(options, records::decode_records(batch));
        out.insert(out.end(), rebuilt.begin(), rebuilt.end());
    });
    return out;
}

}  // namespace

ValidatedRecords validate_produced_records(const TopicPartition& tp, wire::ByteSpan records,
                                           const ProduceLimits& limits, const storage::LogConfig& config,
                                           std::int64_t now_ms) {
    if (config.cleanup_compact && !records.empty()) {
        if (auto errors = unkeyed_record_errors(tp, records); !errors.empty()) {
            auto r = fail(ErrorCode::invalid_record, record_errors_message(errors));
            r.record_errors = std::move(errors);
            return r;
        }
    }
    if (records.empty()) return fail(ErrorCode::invalid_record, "produce request has no record batches");

    ValidatedRecords r;
    try {
        auto magic = records::records_magic(records);
        if (magic < 2) {
            // Produce v0-v2 carry magic 0/1 message sets (Sarama's default
            // 0.8.2 protocol); Weir stores v2 batches only.
            if (limits.produce_version >= 3)
                return fail(ErrorCode::invalid_record, "produce v3 and above must use record batches (magic 2)");
            r.batches = records::up_convert(records);
            if (r.batches.empty()) return fail(ErrorCode::invalid_record, "produce request has no records");
        } else if (magic == 2) {
            if (limits.produce_version < 3)
                return fail(ErrorCode::invalid_record, "produce v0-v2 must use message sets of magic 0 or 1");
            r.batches.assign(records.begin(), records.end());
        } else {
            return fail(ErrorCode::invalid_record, "unknown record magic " + std::to_string(magic));
        }
        // Kafka's LogValidator checks every record of a produced batch; so do we
        // (decompressing if needed) so that no consumer ever receives a batch
        // it cannot parse, and so that the max timestamp the time index and
        // ListOffsets rely on is the records' own.
        r.headers = records::validate_produced_batches(r.batches, config.message_timestamp_type);
        for (const auto& header : r.headers) {
            if (header.total_size() > static_cast<std::size_t>(config.max_message_bytes))
                return fail(ErrorCode::message_too_large, "batch of " + std::to_string(header.total_size()) +
                                                              " bytes exceeds max.message.bytes " +
                                                              std::to_string(config.max_message_bytes));
            if (header.compression() == records::Compression::zstd && limits.produce_version < 7)
                return fail(ErrorCode::unsupported_compression_type, "zstd needs produce v7 or above");
            if (static_cast<int>(header.compression()) > 4)
                return fail(ErrorCode::unsupported_compression_type, "unknown compression codec");
            if (header.is_control()) return fail(ErrorCode::invalid_record, "clients may not produce control batches");
            if (header.producer_id >= 0 && header.base_sequence < 0)
                return fail(ErrorCode::invalid_record,
                            "Invalid sequence number " + std::to_string(header.base_sequence) +
                                " in record batch with producerId " + std::to_string(header.producer_id) +
                                " in topic partition " + tp.to_string());
        }
        if (auto errors = timestamp_record_errors(r.batches, config, now_ms); !errors.empty()) {
            auto failed = fail(ErrorCode::invalid_timestamp, record_errors_message(errors));
            failed.record_errors = std::move(errors);
            return failed;
        }
        if (config.compression_type && std::ranges::any_of(r.headers, [&](const records::BatchHeader& h) {
                return h.compression() != *config.compression_type;
            })) {
            r.batches = recompress(r.batches, *config.compression_type);
            r.headers = records::validate_produced_batches(r.batches, config.message_timestamp_type);
        }
    } catch (const records::InvalidRecordError& e) {
        return fail(ErrorCode::invalid_record, e.what());
    } catch (const wire::DecodeError& e) {
        return fail(ErrorCode::corrupt_message, e.what());
    }
    return r;
}

}  // namespace weir::partitions
