#pragma once
// Per-topic log settings (Kafka topic config names in comments) and the clock
// the log uses for roll, retention and flush decisions.
#include <cstdint>
#include <functional>
#include <limits>

#include "protocol/records/record_batch.h"

namespace weir::storage {

inline constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();

struct LogConfig {
    std::int64_t segment_bytes = std::int64_t{1} << 30;             // segment.bytes
    std::int64_t segment_ms = 7LL * 24 * 3600 * 1000;               // segment.ms (log.roll.ms)
    std::int32_t index_interval_bytes = 4096;                       // index.interval.bytes
    std::int32_t segment_index_bytes = 10 * 1024 * 1024;            // segment.index.bytes
    std::int64_t retention_ms = 7LL * 24 * 3600 * 1000;             // retention.ms, -1 = unlimited
    std::int64_t retention_bytes = -1;                              // retention.bytes, -1 = unlimited
    std::int64_t flush_interval_messages = kNever;                  // flush.messages
    std::int64_t flush_interval_ms = kNever;                        // flush.ms
    records::TimestampType message_timestamp_type = records::TimestampType::create_time;  // message.timestamp.type
    // Kafka fsyncs a segment when it is rolled (in the background); this keeps
    // the recovery point moving so an unclean restart only scans the active segment.
    bool flush_on_roll = true;
};

// Milliseconds since the Unix epoch; injectable so tests control time.
using Clock = std::function<std::int64_t()>;
Clock system_clock_ms();

}  // namespace weir::storage
