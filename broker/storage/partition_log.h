#pragma once
// The log of one partition: a directory of segments. Owns offset assignment,
// segment rolls, reads, offset/timestamp lookups, retention, truncation and
// crash recovery at open. Single-threaded, like the broker's handlers.
//
// The high watermark and last stable offset are not the log's: the partition
// layer (broker/partitions) owns them and passes them in where the log must
// respect them (the read bound, retention, the cleaner).
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "broker/storage/cleaned_segment.h"
#include "broker/storage/log_config.h"
#include "broker/storage/log_dir_health.h"
#include "broker/storage/log_error.h"
#include "broker/storage/log_names.h"
#include "broker/storage/segment.h"
#include "broker/storage/sync_request.h"
#include "protocol/wire/file_region.h"

namespace weir::storage {

struct LoadOptions {
    // The log dir had the clean-shutdown marker: trust the files, scan nothing.
    bool clean_shutdown = false;
    // From recovery-point-offset-checkpoint: data below it was fsynced, so
    // only segments holding offsets >= it are scanned after a crash.
    std::int64_t recovery_point = 0;
    // From log-start-offset-checkpoint (DeleteRecords may put it mid-segment).
    std::int64_t log_start_offset = 0;
    Clock clock = system_clock_ms();
    // The broker's budget of open segment files (none: every one stays open).
    std::shared_ptr<OpenFiles> open_files;
};

struct AppendResult {
    std::int64_t base_offset = -1;  // first offset assigned
    std::int64_t last_offset = -1;
    std::int64_t log_append_time = -1;  // set for LogAppendTime topics
    std::int64_t log_start_offset = 0;
    std::int64_t record_count = 0;
};

struct ReadOptions {
    std::size_t max_bytes = 1024 * 1024;
    // Exclusive upper bound, capped at the log end: the partition layer passes
    // its high watermark (consumers) or last stable offset (read_committed).
    std::int64_t max_offset = std::numeric_limits<std::int64_t>::max();
    // KIP-74: return the first batch even if it is larger than max_bytes.
    bool min_one_batch = true;
    // Leave the batches in the segment file (`region`) rather than copy them
    // into `records`: a Fetch answer sends them from there.
    bool zero_copy = false;
};

struct ReadResult {
    ErrorCode error = ErrorCode::none;
    wire::Bytes records;                     // whole batches, possibly none
    std::optional<wire::FileRegion> region;  // instead of `records` when zero_copy found some
    // Just past the batches returned (see SegmentSlice); -1 when none.
    std::int64_t next_offset = -1;
    std::int64_t log_start_offset = -1;
    std::int64_t log_end_offset = -1;
};

class PartitionLog {
public:
    // Opens (creating if needed) `dir` and recovers it as `options` says.
    // Throws StorageError on I/O failure.
    PartitionLog(std::filesystem::path dir, TopicPartition tp, LogConfig config, LoadOptions options = {});
    PartitionLog(const PartitionLog&) = delete;
    PartitionLog& operator=(const PartitionLog&) = delete;
    ~PartitionLog();

    [[nodiscard]] const TopicPartition& topic_partition() const { return tp_; }
    [[nodiscard]] const std::filesystem::path& dir() const { return dir_; }
    [[nodiscard]] const LogConfig& config() const { return config_; }
    // The log's clock (ms since the epoch): appends stamp and validate by it.
    [[nodiscard]] std::int64_t now() const { return clock_(); }
    void set_config(LogConfig config);

    // Appends already-validated v2 batches (one buffer, back to back):
    // rewrites each base offset and leader epoch in place, stamps LogAppendTime if the topic
    // uses it, writes to the page cache and returns. Throws
    // wire::DecodeError if the buffer is not whole batches, StorageError on I/O.
    AppendResult append(std::span<std::uint8_t> batches);
    // The same with the batches' headers parsed already (by the produce
    // path's validation), in order and covering `batches` exactly.
    AppendResult append(std::span<std::uint8_t> batches, std::span<const records::BatchHeader> headers);

    // A follower's append of its leader's batches, kept as they are: each
    // batch must pass its CRC and start at or after the log end (compaction
    // leaves gaps), else wire::DecodeError and nothing is written.
    AppendResult append_replicated(std::span<const std::uint8_t> batches);

    // Stamped on every appended batch (KIP-101/320: consumers and followers
    // validate their position by it); the partition sets it when it becomes leader.
    void set_leader_epoch(std::int32_t epoch) { leader_epoch_ = epoch; }
    [[nodiscard]] std::int32_t leader_epoch() const { return leader_epoch_; }

    // OFFSET_OUT_OF_RANGE if offset < log start or > log end.
    [[nodiscard]] ReadResult read(std::int64_t offset, const ReadOptions& options = {}) const;

    [[nodiscard]] std::int64_t log_start_offset() const { return log_start_offset_; }
    [[nodiscard]] std::int64_t log_end_offset() const { return log_end_offset_; }
    [[nodiscard]] std::int64_t recovery_point() const { return recovery_point_; }
    // Opened after a clean shutdown (its files were trusted, nothing scanned).
    [[nodiscard]] bool opened_clean() const { return opened_clean_; }

    // ListOffsets. By timestamp: first record with timestamp >= ts (nullopt if none).
    [[nodiscard]] std::optional<FoundRecord> offset_for_timestamp(std::int64_t timestamp) const;
    // -3 (KIP-734): the record with the largest timestamp (first of equals).
    [[nodiscard]] std::optional<FoundRecord> max_timestamp() const;

    // ---- transaction index (.txnindex) ----
    // An ABORT marker at `txn.last_offset` ended `txn`: recorded in the
    // segment holding the marker. Throws StorageError on I/O failure.
    void append_aborted_txn(const AbortedTxn& txn);
    // Kafka's collectAbortedTransactions: the aborted transactions with data
    // at or after `fetch_offset` and before `upper_bound`, from the segment
    // holding `fetch_offset` on until an entry shows later ones hold none.
    [[nodiscard]] std::vector<AbortedTxn> collect_aborted_txns(std::int64_t fetch_offset,
                                                               std::int64_t upper_bound) const;
    // Forgets the aborted transactions whose marker is at or after `offset`
    // (the partition replays the log from there and records them again).
    void truncate_txn_indexes(std::int64_t offset);

    // DeleteRecords: moves the log start offset up to `offset` (<= log end,
    // else OFFSET_OUT_OF_RANGE; the partition layer bounds it by its high
    // watermark first) and deletes whole segments below it.
    ErrorCode delete_records_before(std::int64_t offset);
    // retention.ms / retention.bytes (cleanup.policy delete only) and segments
    // below the log start offset; never deletes the active segment, nor one
    // holding offsets at or above `high_watermark` (Kafka's: only committed
    // data ages out). Returns the number of segments deleted.
    std::size_t enforce_retention(std::int64_t high_watermark);
    // Removes everything from `offset` on (replication divergence).
    void truncate_to(std::int64_t offset);
    // Deletes all segments; the log restarts empty at `offset`.
    void truncate_fully_and_start_at(std::int64_t offset);

    // fsync everything up to the log end; advances the recovery point.
    // Deferred: the caller syncs the file system (a shutdown) before the
    // recovery point is relied on.
    void flush(Durability durability = Durability::now);
    // flush.ms: flush if the interval has passed (called periodically).
    void flush_if_due();

    // Clean close: indexes trimmed, time index completed. Does not fsync;
    // call flush() first for a clean shutdown.
    void close();
    // Drops file handles without touching files (what a kill leaves).
    void release() noexcept;
    // Closes its open files and counts them against `budget` from now on
    // (see OpenFiles::Entry::move_to).
    void move_to_budget(const std::shared_ptr<OpenFiles>& budget) noexcept;
    // The LogManager has moved the directory away to delete it: drops the
    // segments, and holders of this log see it deleted from now on.
    void mark_deleted() noexcept;
    [[nodiscard]] bool is_open() const { return state_ == State::open; }

    [[nodiscard]] std::uint64_t size_bytes() const;
    [[nodiscard]] std::size_t segment_count() const { return segments_.size(); }
    [[nodiscard]] std::vector<std::int64_t> segment_base_offsets() const;

    // For the log cleaner: the segments by base offset (the last is the
    // active one), and a count that changes whenever segments are removed or
    // truncated, so that a cleaning spread over several steps notices that
    // what it read is gone.
    [[nodiscard]] const std::map<std::int64_t, Segment>& segments() const { return segments_; }
    [[nodiscard]] std::uint64_t segments_generation() const { return segments_generation_; }
    // Puts `cleaned` (finished) in place of the inactive segments `old_bases`,
    // the first of which has its base offset, crash-safely (see CleanedSegment).
    void replace_segments(std::span<const std::int64_t> old_bases, CleanedSegment cleaned);

    // What a move of the log start offset or recovery point asks of the
    // owner's checkpoint files.
    enum class CheckpointNeed {
        now,   // written at once (a new log start: DeleteRecords survives a crash)
        soon,  // by the next periodic pass: a flush or a truncation
    };
    // Called when the log start offset or recovery point moves.
    void set_checkpoint_hook(std::function<void(CheckpointNeed)> hook) { checkpoint_hook_ = std::move(hook); }
    // Called when a new segment starts at `base`, before the roll's flush:
    // the partition writes its producer state snapshot there (not synced: the
    // roll's flush syncs it), as Kafka does at every roll.
    void set_roll_hook(std::function<void(std::int64_t base)> hook) { roll_hook_ = std::move(hook); }
    // Takes a roll's fsync (Kafka's flush at roll, which its scheduler runs
    // off the request path): the owner runs `request` elsewhere and then
    // calls synced_up_to(up_to, generation). Unset: the roll syncs in place.
    using SyncHook = std::function<void(SyncRequest request, std::int64_t up_to, std::uint64_t generation)>;
    void set_sync_hook(SyncHook hook) { sync_hook_ = std::move(hook); }
    // A sync handed to the hook finished: data below `up_to` is durable. A
    // truncation since (another `generation`) voids it: what is below
    // `up_to` now may not be what was synced.
    void synced_up_to(std::int64_t up_to, std::uint64_t generation);

    // The health of the log dir holding it, shared by the dir's logs (unset:
    // always online). An offline log is left alone: its owner answers
    // KAFKA_STORAGE_ERROR instead of calling it.
    void set_dir_health(std::shared_ptr<LogDirHealth> health) { dir_health_ = std::move(health); }
    [[nodiscard]] bool offline() const { return dir_health_ && dir_health_->offline(); }
    // Reports an I/O failure met on this log to its dir.
    void io_failed(const StorageError& error) {
        if (dir_health_) dir_health_->failed(error);
    }

private:
    enum class State { open, closed, deleted };

    void load(const LoadOptions& options);
    Segment& active() { return segments_.rbegin()->second; }
    [[nodiscard]] const Segment& active() const { return segments_.rbegin()->second; }
    [[nodiscard]] SegmentOptions segment_options() const;
    void roll(std::int64_t new_base);
    // Both appends' last step: roll if due (the new segment starting at
    // `first`), write, move the log end to `next`, flush if due.
    void write(std::span<const std::uint8_t> batches, std::int64_t first, std::int64_t next, std::int64_t max_timestamp,
               std::int64_t records, std::int64_t now);
    void flush_up_to(std::int64_t offset, Durability durability = Durability::now);
    // Deletes segments from the front while `predicate(segment, next)` holds, never the active one.
    template <typename Pred>
    std::size_t delete_old_segments(Pred predicate);
    void set_log_start_offset(std::int64_t offset);
    void notify_checkpoint(CheckpointNeed need) const;
    void ensure_open() const;

    std::filesystem::path dir_;
    TopicPartition tp_;
    LogConfig config_;
    Clock clock_;
    std::shared_ptr<OpenFiles> open_files_;
    std::map<std::int64_t, Segment> segments_;
    std::int64_t log_start_offset_ = 0;
    std::int32_t leader_epoch_ = 0;
    std::int64_t log_end_offset_ = 0;
    std::int64_t recovery_point_ = 0;
    std::int64_t unflushed_messages_ = 0;
    std::int64_t last_flush_ms_ = 0;
    State state_ = State::open;
    bool opened_clean_ = false;
    std::function<void(CheckpointNeed)> checkpoint_hook_;
    std::shared_ptr<LogDirHealth> dir_health_;
    std::function<void(std::int64_t)> roll_hook_;
    SyncHook sync_hook_;
    // Counts truncations, which void syncs under way (see synced_up_to).
    std::uint64_t truncations_ = 0;
    // How far the syncs handed to the sync hook reach (they run in order).
    std::int64_t sync_requested_up_to_ = 0;
    std::uint64_t segments_generation_ = 0;
    mutable std::chrono::steady_clock::time_point last_corruption_log_{};
};

}  // namespace weir::storage
