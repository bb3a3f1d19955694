#pragma once
// Runs the log cleaner over compacted logs (Kafka's LogCleaner threads and
// LogCleanerManager): picks the filthiest log, builds the key -> latest
// offset map of its dirty section, rewrites its segments group by group,
// swaps each replacement in, and keeps every log's cleaner checkpoint (the
// first dirty offset, Kafka's cleaner-offset-checkpoint).
//
// Kafka cleans on background threads. Weir's logs are single-threaded (the
// broker's one I/O thread), so the cleaner runs on that thread in bounded
// steps instead: a step reads at most `step_bytes` of segment data, or
// finishes one replacement (its fsyncs), or swaps one in (renames and dir
// fsyncs), and returns, so that requests queued meanwhile are served before
// the next step. While step() reports work the owner waits pause_after() the
// step's duration before the next one, and otherwise log.cleaner.backoff.ms.
// A cleaning spread over steps is abandoned when its log changes under it
// (segments deleted or truncated, the log closed, compaction turned off) and
// starts over later. Given a background runner, a finished replacement's
// fsyncs run there and the cleaning waits for them (steps that do nothing)
// before it swaps the replacement in.
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "broker/storage/checkpoint_file.h"
#include "broker/storage/log_cleaner.h"
#include "broker/storage/partition_log.h"

namespace weir::storage {

inline constexpr std::string_view kCleanerCheckpointFile = "cleaner-offset-checkpoint";

struct CleanerOptions {
    bool enabled = true;                                  // log.cleaner.enable
    std::size_t dedupe_buffer_bytes = 128 * 1024 * 1024;  // log.cleaner.dedupe.buffer.size
    double dedupe_buffer_load_factor = 0.9;               // log.cleaner.io.buffer.load.factor
    std::size_t step_bytes = 256 * 1024;
    // The most of the I/O thread back-to-back steps may take. A step's cost
    // is mostly fsyncs, which a busy disk stretches to tens of ms; run back to
    // back (a compacted log with a tiny segment.bytes is re-cleaned whole
    // every time a segment rolls), they left each pipelined connection one
    // hop of the event loop per step, and produce requests timed out.
    double io_thread_share = 0.5;
};

// What the last step() did (tests, pacing).
struct CleanerStepWork {
    // Nothing: the replacement's fsyncs are still running in the background.
    bool waiting = false;
    std::uint64_t bytes_read = 0;
    // Replacements finished (written out and fsynced).
    int finished = 0;
    // Replacements swapped in (renames, dir fsyncs).
    int swapped = 0;
};

// What the cleanings finished so far did (tests, logs).
struct CleanerTotals {
    std::uint64_t cleanings = 0;
    std::uint64_t aborted = 0;
    std::uint64_t bytes_read = 0;
    std::uint64_t bytes_written = 0;
    std::uint64_t records_read = 0;
    std::uint64_t records_kept = 0;
    std::uint64_t unkeyed_dropped = 0;
};

class LogCleanerManager {
public:
    LogCleanerManager(CleanerOptions options, Clock clock);
    ~LogCleanerManager();
    LogCleanerManager(const LogCleanerManager&) = delete;
    LogCleanerManager& operator=(const LogCleanerManager&) = delete;

    [[nodiscard]] bool enabled() const { return options_.enabled; }
    // Runs a replacement's fsyncs off this thread; `done` must come back on
    // this thread (a DiskWorker's collect). Unset: step() syncs in place.
    using Background = std::function<void(SyncRequest request, std::function<void(std::exception_ptr)> done)>;
    void set_background(Background background) { background_ = std::move(background); }
    [[nodiscard]] bool busy() const { return job_ != nullptr; }

    // The last stable offset of a log as the partition layer has it: Kafka's
    // cleaner leaves everything from there on alone. Unset: the log end.
    using StableOffsetOf = std::function<std::int64_t(const PartitionLog&)>;

    // Starts cleaning the filthiest of `logs` that is worth it (compacted,
    // open, not marked uncleanable); false if none is.
    bool start_filthiest(const std::vector<std::shared_ptr<PartitionLog>>& logs,
                         const StableOffsetOf& last_stable_offset = {});
    // One bounded step of the cleaning in progress. Returns the log whose
    // checkpoint moved when a cleaning finished.
    std::optional<TopicPartition> step();
    [[nodiscard]] const CleanerStepWork& last_step() const { return last_step_; }
    // How long to leave the I/O thread to requests after a step that took
    // `step`, so that the cleaner keeps to its io_thread_share.
    [[nodiscard]] std::chrono::nanoseconds pause_after(std::chrono::nanoseconds step) const;
    // Drops the cleaning of `tp` if one is in progress (its `.cleaned` files go with it).
    void abort(const TopicPartition& tp);
    void abort_all();

    [[nodiscard]] std::optional<std::int64_t> checkpoint(const TopicPartition& tp) const;
    void set_checkpoint(const TopicPartition& tp, std::int64_t offset);
    // A deleted partition: no checkpoint, no uncleanable mark.
    void forget(const TopicPartition& tp);
    [[nodiscard]] const OffsetCheckpoint& checkpoints() const { return checkpoints_; }
    [[nodiscard]] const CleanerTotals& totals() const { return totals_; }

private:
    struct Job;

    void map_step(Job& job, std::size_t budget);
    void clean_step(Job& job, std::size_t budget);
    void emit(Job& job, std::span<const std::uint8_t> batch, bool last_of_group);
    void start_cleaning_phase(Job& job);
    void finish(Job& job);

    CleanerOptions options_;
    Clock clock_;
    OffsetCheckpoint checkpoints_;
    // Kafka's uncleanable partitions: a cleaning failed with an unexpected error.
    std::set<TopicPartition> uncleanable_;
    std::unique_ptr<Job> job_;
    // Numbers the cleanings, so that a sync's result finds its own.
    std::uint64_t jobs_started_ = 0;
    Background background_;
    CleanerTotals totals_;
    CleanerStepWork last_step_;
};

}  // namespace weir::storage
