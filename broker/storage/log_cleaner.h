#pragma once
// The decisions of Kafka's log cleaner (LogCleaner.scala, LogCleanerManager.scala)
// without any I/O: which part of a compacted log may be cleaned and whether it
// is worth it, how segments are grouped into replacements, the key -> latest
// offset map, and the filter that rewrites one batch. log_cleaner_manager.*
// runs them over real logs.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "broker/storage/log_config.h"
#include "protocol/records/record_batch.h"

namespace weir::storage {

// KIP-534: a batch whose tombstones have been through one cleaning carries the
// time after which they may go in its base timestamp, flagged by this attribute.
inline constexpr std::int16_t kDeleteHorizonBit = 0x40;

[[nodiscard]] inline std::optional<std::int64_t> delete_horizon(const records::BatchHeader& h) {
    if ((h.attributes & kDeleteHorizonBit) == 0) return std::nullopt;
    return h.base_timestamp;
}

// What the cleaner looks at in one segment.
struct SegmentStats {
    std::int64_t base_offset = 0;
    std::uint64_t size = 0;
    // Max record timestamp, or the .log's mtime when there is none.
    std::int64_t largest_timestamp = -1;
    // Max timestamp of the first batch (Kafka's rolling timestamp); -1 if unknown.
    std::int64_t first_batch_timestamp = -1;
    std::uint64_t offset_index_bytes = 0;
    std::uint64_t time_index_bytes = 0;
};

struct LogBounds {
    std::int64_t log_start_offset = 0;
    std::int64_t last_stable_offset = 0;
    std::int64_t log_end_offset = 0;
};

// Kafka's LogToClean: the log is clean below first_dirty_offset (the cleaner
// checkpoint) and may be cleaned up to first_uncleanable_offset, a segment base.
struct CleanableSection {
    std::int64_t first_dirty_offset = 0;
    std::int64_t first_uncleanable_offset = 0;
    std::uint64_t clean_bytes = 0;
    std::uint64_t cleanable_bytes = 0;
    // Some dirty record is older than max.compaction.lag.ms.
    bool needs_compaction_now = false;
    // The checkpoint lay outside the log and was reset to the log start.
    bool checkpoint_reset = false;

    [[nodiscard]] std::uint64_t total_bytes() const { return clean_bytes + cleanable_bytes; }
    [[nodiscard]] double cleanable_ratio() const {
        return total_bytes() == 0 ? 0.0 : static_cast<double>(cleanable_bytes) / static_cast<double>(total_bytes());
    }
};

// LogCleanerManager.cleanableOffsets + calculateCleanableBytes + maxCompactionDelay.
// `segments` in offset order, the last one the active segment; `checkpoint`
// is the cleaner checkpoint of the log, if any.
CleanableSection find_cleanable_section(std::span<const SegmentStats> segments, const LogBounds& bounds,
                                        std::optional<std::int64_t> checkpoint, const LogConfig& config,
                                        std::int64_t now_ms);

// grabFilthiestCompactedLog's test: something must be cleaned now, or the
// dirty ratio exceeds min.cleanable.dirty.ratio (strictly, as in Kafka).
[[nodiscard]] bool worth_cleaning(const CleanableSection& section, const LogConfig& config);

// Cleaner.groupSegmentsBySize: consecutive runs of `segments` (indexes into
// it) whose log bytes fit in `max_size` and index bytes in `max_index_size`,
// and whose offsets stay within the 32-bit range of one segment's indexes.
std::vector<std::vector<std::size_t>> group_segments_by_size(std::span<const SegmentStats> segments,
                                                             std::uint64_t max_size, std::uint64_t max_index_size,
                                                             std::int64_t first_uncleanable_offset);

// Key -> offset of its latest record in the dirty section (Kafka's
// SkimpyOffsetMap, but exact: whole keys rather than MD5 digests, bounded by
// an estimate of its memory instead of a slot count).
class OffsetMap {
public:
    explicit OffsetMap(std::size_t max_bytes) : max_bytes_(max_bytes) {}

    void put(std::span<const std::uint8_t> key, std::int64_t offset);
    // -1 if the key is not in the map.
    [[nodiscard]] std::int64_t get(std::span<const std::uint8_t> key) const;
    [[nodiscard]] bool full() const { return bytes_ >= max_bytes_; }
    [[nodiscard]] std::size_t size() const { return map_.size(); }
    // The last offset the map covers; records above it are not judged.
    [[nodiscard]] std::int64_t latest_offset() const { return latest_offset_; }
    void update_latest_offset(std::int64_t offset) { latest_offset_ = std::max(latest_offset_, offset); }
    void clear();

private:
    struct Hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };
    std::unordered_map<std::string, std::int64_t, Hash, std::equal_to<>> map_;
    std::size_t max_bytes_;
    std::size_t bytes_ = 0;
    std::int64_t latest_offset_ = -1;
};

struct RecordFilter {
    const OffsetMap* map = nullptr;
    // Fixed for a whole cleaning, as Kafka's currentTime.
    std::int64_t now_ms = 0;
    std::int64_t delete_retention_ms = 0;
};

struct FilteredBatch {
    enum class Outcome {
        unchanged,  // every record kept, nothing to stamp: the stored bytes stay as they are
        rewritten,  // `bytes` holds the batch with the kept records, same offsets, codec and producer fields
        emptied,    // `bytes` holds the batch header alone (no records), kept for its offsets/producer state
        removed,    // nothing is written
    };
    Outcome outcome = Outcome::unchanged;
    wire::Bytes bytes;
    std::int32_t records_read = 0;
    std::int32_t records_kept = 0;
    // Records without a key the cleaner dropped (Kafka counts them as invalid).
    std::int32_t unkeyed_dropped = 0;
};

// Cleaner.cleanInto's filter for one whole v2 batch. A record stays if it is
// past the map's latest offset, or has a key whose latest offset it holds and
// is not a tombstone whose delete horizon has passed. A batch with tombstones
// that has no horizon yet gets now + delete.retention.ms. `keep_if_empty`: the
// batch stays as an empty header even if no record does. Control batches and
// batches whose records cannot be decoded are left unchanged.
FilteredBatch filter_batch(std::span<const std::uint8_t> batch, const RecordFilter& filter, bool keep_if_empty);

// A batch header with no records (Kafka's DefaultRecordBatch.writeEmptyHeader).
wire::Bytes empty_batch_like(const records::BatchHeader& h);

}  // namespace weir::storage
