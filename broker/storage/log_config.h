#pragma once
// Per-topic log settings (Kafka topic config names in comments) and the clock
// the log uses for roll, retention and flush decisions.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>

#include "protocol/records/record_batch.h"

namespace weir::storage {

inline constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();

struct LogConfig {
    std::int64_t segment_bytes = std::int64_t{1} << 30;   // segment.bytes
    std::int64_t segment_ms = 7LL * 24 * 3600 * 1000;     // segment.ms (log.roll.ms)
    std::int32_t index_interval_bytes = 4096;             // index.interval.bytes
    std::int32_t segment_index_bytes = 10 * 1024 * 1024;  // segment.index.bytes
    std::int64_t retention_ms = 7LL * 24 * 3600 * 1000;   // retention.ms, -1 = unlimited
    std::int64_t retention_bytes = -1;                    // retention.bytes, -1 = unlimited
    std::int64_t flush_interval_messages = kNever;        // flush.messages
    std::int64_t flush_interval_ms = kNever;              // flush.ms
    records::TimestampType message_timestamp_type = records::TimestampType::create_time;  // message.timestamp.type
    // compression.type: the codec produced batches are stored in; none for
    // "producer", which keeps each batch as its producer compressed it.
    std::optional<records::Compression> compression_type;
    // Kafka fsyncs a segment when it is rolled (in the background); this keeps
    // the recovery point moving so an unclean restart only scans the active segment.
    bool flush_on_roll = true;
    // cleanup.policy: `delete` applies retention.ms/bytes; `compact` makes the
    // log cleaner keep only the latest record of each key (and produce refuse
    // records without a key).
    bool cleanup_delete = true;
    bool cleanup_compact = false;
    std::int64_t delete_retention_ms = 24LL * 3600 * 1000;  // delete.retention.ms
    std::int64_t min_compaction_lag_ms = 0;                 // min.compaction.lag.ms
    std::int64_t max_compaction_lag_ms = kNever;            // max.compaction.lag.ms
    double min_cleanable_dirty_ratio = 0.5;                 // min.cleanable.dirty.ratio
    // min.insync.replicas: read by the partition layer (acks=all), kept here
    // as Kafka's LogConfig keeps it.
    std::int32_t min_insync_replicas = 1;
    // max.message.bytes: the largest batch a producer may append (read by
    // the partition layer's validation, as min.insync.replicas is).
    std::int32_t max_message_bytes = 1048588;
    // message.timestamp.before.max.ms / after.max.ms: how far a CreateTime
    // timestamp may lie behind or ahead of the broker clock. Each unset
    // (Long.MAX_VALUE) falls back to the deprecated difference.max.ms, as
    // Kafka's LogConfig does.
    std::int64_t message_timestamp_difference_max_ms = kNever;
    std::int64_t message_timestamp_before_max_ms = kNever;
    std::int64_t message_timestamp_after_max_ms = kNever;

    bool operator==(const LogConfig&) const = default;

    [[nodiscard]] std::int64_t timestamp_before_max_ms() const {
        return message_timestamp_before_max_ms != kNever ? message_timestamp_before_max_ms
                                                         : message_timestamp_difference_max_ms;
    }
    [[nodiscard]] std::int64_t timestamp_after_max_ms() const {
        return message_timestamp_after_max_ms != kNever ? message_timestamp_after_max_ms
                                                        : message_timestamp_difference_max_ms;
    }

    // Kafka's LogConfig.maxSegmentMs: a compacted log rolls by
    // max.compaction.lag.ms too, since the cleaner never touches the active segment.
    [[nodiscard]] std::int64_t max_segment_ms() const {
        if (cleanup_compact && max_compaction_lag_ms > 0) return std::min(max_compaction_lag_ms, segment_ms);
        return segment_ms;
    }
};

// Milliseconds since the Unix epoch; injectable so tests control time.
using Clock = std::function<std::int64_t()>;
Clock system_clock_ms();

}  // namespace weir::storage
