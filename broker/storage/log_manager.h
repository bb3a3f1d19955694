#pragma once
// All partition logs of the broker across its log.dirs: finds existing
// partitions at startup, places new ones on the dir with the fewest
// partitions, deletes partitions Kafka's way (rename to `-delete`, remove),
// keeps the per-dir checkpoint files and the clean-shutdown marker.
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "broker/storage/checkpoint_file.h"
#include "broker/storage/disk_worker.h"
#include "broker/storage/file.h"
#include "broker/storage/log_cleaner_manager.h"
#include "broker/storage/log_config.h"
#include "broker/storage/log_dir_health.h"
#include "broker/storage/log_names.h"
#include "broker/storage/partition_log.h"

namespace weir::storage {

// How far the partition layer has made a log visible: retention deletes only
// below the high watermark, the cleaner cleans only below the last stable
// offset (both as in Kafka).
struct VisibleOffsets {
    std::int64_t high_watermark = 0;
    std::int64_t last_stable_offset = 0;
};
// nullopt for a log no partition owns: all of it counts as visible.
using VisibleOffsetsLookup = std::function<std::optional<VisibleOffsets>(const TopicPartition&)>;

struct LogManagerOptions {
    std::vector<std::filesystem::path> log_dirs;
    // Config of a topic whose partitions are found on disk at startup.
    std::function<LogConfig(const std::string& topic)> config_for_topic;
    Clock clock = system_clock_ms();
    CleanerOptions cleaner;
    // Called once when a log dir goes offline (see LogDirHealth).
    LogDirHealth::OfflineListener on_dir_offline;
    // Segment files held open or mapped at once, across every log (0: no limit).
    std::size_t max_open_files = 0;
    // Logs opened and recovered at once per log dir at startup (Kafka's
    // num.recovery.threads.per.data.dir); all dirs load at the same time.
    std::size_t recovery_threads_per_dir = 1;
    // The fsyncs of a roll and of a cleaned segment, and the checkpoint
    // writes, run on a thread of their own (the broker's I/O thread must not
    // wait for the disk); their results are applied at the next periodic
    // pass (flush_due, checkpoint, clean_step). Off: they run in the call
    // that asks for them.
    bool background_sync = false;
};

class LogManager {
public:
    // Creates missing log dirs, locks each (`.lock`, flock), removes leftover
    // `-delete` dirs and opens every partition dir. Throws StorageError (e.g.
    // a dir locked by another process, a partition present in two dirs).
    explicit LogManager(LogManagerOptions options);
    LogManager(const LogManager&) = delete;
    LogManager& operator=(const LogManager&) = delete;
    // Releases everything without the clean-shutdown marker; call shutdown()
    // for a clean stop.
    ~LogManager();

    [[nodiscard]] std::shared_ptr<PartitionLog> get(const TopicPartition& tp) const;
    std::shared_ptr<PartitionLog> get_or_create(const TopicPartition& tp, const LogConfig& config);
    // Deletes the partition's data; false if it does not exist. Holders of the
    // shared_ptr see a deleted log (reads return UNKNOWN_TOPIC_OR_PARTITION).
    // Kafka's asyncDelete: the directory is renamed to `-delete` and removed
    // in the background; the checkpoints follow at the next checkpoint(), so
    // a request deleting many partitions writes them once, not once each.
    bool remove(const TopicPartition& tp);
    // Returns once the directories of every log removed so far are gone.
    void wait_for_deletions() { deleter_.drain(); }
    // Returns once every sync and checkpoint write asked for so far is done and applied.
    void wait_for_syncs() { syncer_.drain(); }
    // Runs `write` (another layer's file in a log dir, e.g. the high watermark
    // checkpoint) after the syncs and writes asked for before it, off this
    // thread; `completion` runs here at a later pass. Its owner calls
    // wait_for_syncs() before it goes.
    void submit_write(DiskWorker::Job write, DiskWorker::Completion completion) {
        syncer_.submit(std::move(write), std::move(completion));
    }
    [[nodiscard]] std::vector<TopicPartition> partitions() const;
    [[nodiscard]] std::vector<std::filesystem::path> log_dirs() const;
    // The log dir holding `tp`, or empty.
    [[nodiscard]] std::filesystem::path dir_of(const TopicPartition& tp) const;
    // Log dirs taken offline after a failure of their disk, and why.
    [[nodiscard]] std::vector<std::pair<std::filesystem::path, std::string>> offline_dirs() const;
    [[nodiscard]] bool all_dirs_offline() const;
    // Reports an I/O failure met in log dir `dir` outside of any one log; true if the dir is offline now.
    bool io_failed(const std::filesystem::path& dir, const StorageError& error);
    // Whether log dir `i` had the clean-shutdown marker at startup.
    [[nodiscard]] bool dir_was_clean(std::size_t i) const { return dirs_.at(i).clean_at_start; }

    // Applies a changed topic config to its existing partitions.
    void set_topic_config(const std::string& topic, const LogConfig& config);
    // Set by the partition layer, which owns the high watermarks (empty: unset).
    void set_visible_offsets(VisibleOffsetsLookup lookup) { visible_offsets_ = std::move(lookup); }

    // Periodic work (Kafka: log.retention.check.interval.ms, log.flush.*).
    std::size_t enforce_retention();
    // Also applies the results of finished background syncs.
    void flush_due();
    // Writes the recovery-point and log-start-offset (and cleaner) checkpoints
    // of every dir where one of them may have moved since last written.
    void checkpoint();
    // One bounded step of the log cleaner over the compacted logs (see
    // LogCleanerManager): true while a cleaning is under way, so the caller
    // comes back at once; false when nothing was worth cleaning.
    bool clean_step();
    [[nodiscard]] const LogCleanerManager& cleaner() const { return cleaner_; }
    void run_periodic() {
        enforce_retention();
        flush_due();
        checkpoint();
    }

    // The budget of open segment files; null when weir.log.max.open.files is 0.
    [[nodiscard]] const OpenFiles* open_files() const { return open_files_.get(); }
    // Flushes and closes every log, writes checkpoints and the clean-shutdown marker.
    void shutdown();

private:
    struct Dir {
        std::filesystem::path path;
        File lock;
        std::shared_ptr<LogDirHealth> health;
        bool clean_at_start = false;
        // Maintenance failures that leave the dir online (a full disk) are
        // logged once a minute.
        std::chrono::steady_clock::time_point last_failure_logged{};
        std::size_t failures_not_logged = 0;
        // What the checkpoint files hold: rewriting (and fsyncing) them
        // unchanged every second stalled requests behind ext4 journal commits.
        std::optional<std::pair<OffsetCheckpoint, OffsetCheckpoint>> written;
        // Something may differ from `written` (a log came or went, or one
        // asked for a later write): checking every log of every dir each
        // second cost an idle broker with thousands of partitions a stall
        // of milliseconds, sanitized tens of them.
        bool stale = true;
        // cleaner-offset-checkpoint as last read or written (absent: no file to keep).
        std::optional<OffsetCheckpoint> cleaner_written;
        // A write failed: the files' content is unknown until rewritten.
        bool rewrite = false;
        // Checkpoint writes submitted, and the latest of them known to be on disk.
        std::uint64_t writes_submitted = 0;
        std::uint64_t writes_done = 0;
        // Logs removed, each with the writes submitted before its removal:
        // until a later one is on disk, the files may still list it.
        std::map<TopicPartition, std::uint64_t> removed;
    };
    struct Entry {
        std::shared_ptr<PartitionLog> log;
        std::size_t dir = 0;
    };

    // One partition dir found at startup, with what its log needs to load.
    struct LoadJob {
        std::filesystem::path path;
        TopicPartition tp;
        LogConfig config;
        LoadOptions load;
        std::size_t dir = 0;
    };
    void load_dirs(std::size_t threads_per_dir);
    // Reads dir `i`'s checkpoints and lists its partitions (`seen` catches one in two dirs).
    std::vector<LoadJob> scan_dir(std::size_t i, std::map<TopicPartition, std::size_t>& seen);
    // Opens and recovers the logs, `threads_per_dir` at a time in each dir
    // (Kafka's num.recovery.threads.per.data.dir) as far as the open-files
    // budget allows; `workers` tells how many loaded at once. Rethrows the
    // first failure.
    std::vector<std::shared_ptr<PartitionLog>> load_logs(std::vector<LoadJob>& jobs, std::size_t threads_per_dir,
                                                         std::size_t& workers);
    // What a dir's checkpoint files are to hold, where it differs from what
    // was last written (absent: that file is unchanged).
    struct CheckpointWrite {
        std::optional<OffsetCheckpoint> cleaner;
        std::optional<std::pair<OffsetCheckpoint, OffsetCheckpoint>> offsets;  // recovery points, log starts
    };
    // Computes dir `dir`'s write and records it as written.
    CheckpointWrite checkpoint_write(std::size_t dir);
    static void write_checkpoint_files(const std::filesystem::path& dir, const CheckpointWrite& write);
    // A write failed: whatever the files hold now, the next one rewrites them all.
    void forget_written(std::size_t dir);
    // Checkpoint write `serial` of dir `dir` is on disk.
    void written_to_disk(std::size_t dir, std::uint64_t serial);
    // Writes dir `dir`'s checkpoints before returning (after those under way).
    void write_checkpoints(std::size_t dir);
    // Hands dir `dir`'s checkpoint write to the syncer.
    void submit_checkpoints(std::size_t dir);
    void remove_dir_in_background(std::filesystem::path dir);
    // Runs `work` for log dir `dir` unless it is offline; a StorageError is
    // reported to the dir and logged (rate-limited, naming `tp` if given), not
    // thrown. True if the work ran through.
    template <typename Work>
    bool maintain(std::size_t dir, std::string_view what, const TopicPartition* tp, Work work);
    [[nodiscard]] std::optional<std::size_t> online_dir_with_fewest_partitions() const;
    void attach(const TopicPartition& tp, std::shared_ptr<PartitionLog> log, std::size_t dir);
    [[nodiscard]] LogConfig config_for(const std::string& topic) const;
    [[nodiscard]] VisibleOffsets visible_offsets(const TopicPartition& tp, const PartitionLog& log) const;

    std::vector<Dir> dirs_;
    std::function<LogConfig(const std::string&)> config_for_topic_;
    VisibleOffsetsLookup visible_offsets_;
    Clock clock_;
    std::shared_ptr<OpenFiles> open_files_;
    std::map<TopicPartition, Entry> logs_;
    LogCleanerManager cleaner_;
    bool shut_down_ = false;
    // Last: their threads stop before what their jobs were given goes.
    DiskWorker syncer_;
    // Kafka's kafka-delete-logs task: removing a large log's files takes as
    // long as the file system needs. A dir left when the process stops goes
    // at the next start (see the constructor), as after a crash.
    DiskWorker deleter_;
};

}  // namespace weir::storage
