#pragma once
// What one partition of a coordinator's internal topic holds from its log
// start on: the latest value of every key, recent tombstones, and the byte
// accounting that decides when compacting pays off.
//
// Compaction rewrites the live records (and tombstones younger than
// delete.retention.ms) at the end of the log and then moves the log start
// past everything older (DeleteRecords), so the partition stays proportional
// to its live state. It needs nothing from storage but append and
// delete_records_before.
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "coordinator/runtime/record_batches.h"

namespace weir::coordinator::runtime {

struct CompactionPolicy {
    double min_cleanable_dirty_ratio = 0.5;       // min.cleanable.dirty.ratio
    std::uint64_t min_dirty_bytes = 0;            // below this total, never (Kafka: the active segment)
    std::int64_t delete_retention_ms = 86400000;  // delete.retention.ms
    std::int64_t retention_ms = -1;  // the topic's retention.ms; data is rewritten before half of it passes
};

class LiveRecords {
public:
    // A record at the end of the log (appended or replayed) at `offset`,
    // timestamp in ms.
    void apply(wire::ByteSpan key, std::optional<wire::ByteSpan> value, TimeMs timestamp, std::int64_t offset);
    // A record of an open transaction: it takes effect if the producer's
    // transaction commits, unless a record or tombstone of the same key was
    // written after it (the later one stays, as the group's replay decides),
    // and is only counted (as superseded) if it aborts.
    void apply_transactional(std::int64_t producer_id, wire::ByteSpan key, std::optional<wire::ByteSpan> value,
                             TimeMs timestamp, std::int64_t offset);
    void end_transaction(std::int64_t producer_id, bool commit, TimeMs timestamp);
    // A compaction rewrites committed state only: while a transaction is open
    // its records must stay where they are, above the log start.
    [[nodiscard]] bool has_open_transactions() const { return !open_.empty(); }

    [[nodiscard]] std::size_t live_count() const { return live_.size(); }
    [[nodiscard]] std::size_t tombstone_count() const { return tombstones_.size(); }
    [[nodiscard]] std::uint64_t live_bytes() const { return live_bytes_; }
    [[nodiscard]] std::uint64_t total_bytes() const { return total_bytes_; }
    // Share of the bytes since the log start that later records superseded.
    [[nodiscard]] double dirty_ratio() const;

    [[nodiscard]] bool should_compact(TimeMs now, const CompactionPolicy& policy) const;
    // The records a compaction writes: every live key and the tombstones
    // younger than delete.retention.ms (older ones are forgotten here).
    std::vector<KeyValue> snapshot(TimeMs now, std::int64_t delete_retention_ms);
    // The snapshot was written and is now the whole log (its start moved).
    void compacted(TimeMs now);

private:
    struct Entry {
        wire::Bytes value;
        std::int64_t offset = -1;  // where it was written (before any compaction rewrote it)
    };
    static std::uint64_t record_size(std::size_t key, std::size_t value) { return key + value + 24; }

    struct TxnRecord {
        std::string key;
        std::optional<wire::Bytes> value;
        std::int64_t offset = -1;
    };
    std::unordered_map<std::string, Entry> live_;
    std::unordered_map<std::int64_t, std::vector<TxnRecord>> open_;  // producer id -> its pending records
    struct Tombstone {
        TimeMs deleted = 0;
        std::int64_t offset = -1;
    };
    std::unordered_map<std::string, Tombstone> tombstones_;
    std::uint64_t live_bytes_ = 0;   // live records and kept tombstones
    std::uint64_t total_bytes_ = 0;  // every record since the log start
    std::optional<TimeMs> oldest_;   // timestamp of the first record since the log start
};

}  // namespace weir::coordinator::runtime
