#include "broker/storage/log_manager.h"

#include <sys/file.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <exception>
#include <iterator>
#include <mutex>
#include <random>
#include <thread>

#include "broker/common/logging.h"
#include "broker/storage/checkpoint_file.h"
#include "broker/storage/log_error.h"

namespace weir::storage {
namespace {

std::string random_hex32() {
    std::random_device rd;
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    for (int i = 0; i < 4; ++i) {
        auto v = rd();
        for (int j = 0; j < 8; ++j) out += kHex[(v >> (4 * j)) & 0xf];
    }
    return out;
}

std::int64_t lookup(const OffsetCheckpoint& cp, const TopicPartition& tp) {
    auto it = cp.find(tp);
    return it == cp.end() ? 0 : it->second;
}

}  // namespace

LogManager::LogManager(LogManagerOptions options)
    : config_for_topic_(std::move(options.config_for_topic)),
      clock_(options.clock ? std::move(options.clock) : system_clock_ms()),
      open_files_(options.max_open_files > 0 ? std::make_shared<OpenFiles>(options.max_open_files) : nullptr),
      cleaner_(options.cleaner, clock_),
      syncer_(options.background_sync ? DiskWorker::Mode::background : DiskWorker::Mode::inline_) {
    if (options.log_dirs.empty()) throw StorageError("no log dirs configured");
    if (options.background_sync)
        cleaner_.set_background([this](SyncRequest request, DiskWorker::Completion done) {
            syncer_.submit([request = std::move(request)] { request.run(); }, std::move(done));
        });
    for (auto& configured : options.log_dirs) {
        // One spelling per dir ("/data/" and "data" name the same dir as
        // "/data" does), so that a log's parent_path() finds its dir.
        auto path = std::filesystem::absolute(configured).lexically_normal();
        if (!path.has_filename()) path = path.parent_path();
        std::filesystem::create_directories(path);
        Dir dir;
        dir.path = path;
        dir.lock = File::open(path / ".lock", true);
        if (::flock(dir.lock.fd(), LOCK_EX | LOCK_NB) != 0) throw_errno("lock log dir " + path.string(), errno);
        dir.health = std::make_shared<LogDirHealth>(
            path, [listener = options.on_dir_offline](const std::filesystem::path& failed, const std::string& reason) {
                logging::error(
                    "log dir {} is offline after a failure of its disk ({}); its partitions answer "
                    "KAFKA_STORAGE_ERROR until the broker restarts",
                    failed.string(), reason);
                if (listener) listener(failed, reason);
            });
        dirs_.push_back(std::move(dir));
    }
    load_dirs(options.recovery_threads_per_dir);
}

LogManager::~LogManager() {
    for (auto& [tp, entry] : logs_) {
        entry.log->set_checkpoint_hook({});
        entry.log->set_sync_hook({});
        entry.log->release();
    }
}

LogConfig LogManager::config_for(const std::string& topic) const {
    return config_for_topic_ ? config_for_topic_(topic) : LogConfig{};
}

VisibleOffsets LogManager::visible_offsets(const TopicPartition& tp, const PartitionLog& log) const {
    if (visible_offsets_)
        if (auto visible = visible_offsets_(tp)) return *visible;
    return {log.log_end_offset(), log.log_end_offset()};
}

void LogManager::attach(const TopicPartition& tp, std::shared_ptr<PartitionLog> log, std::size_t dir) {
    log->set_checkpoint_hook([this, dir](PartitionLog::CheckpointNeed need) {
        dirs_[dir].stale = true;
        if (need == PartitionLog::CheckpointNeed::now) submit_checkpoints(dir);
    });
    log->set_sync_hook([this, dir, weak = std::weak_ptr<PartitionLog>(log)](SyncRequest request, std::int64_t up_to,
                                                                            std::uint64_t generation) {
        syncer_.submit([request = std::move(request)] { request.run(); },
                       [this, dir, weak, up_to, generation](std::exception_ptr error) {
                           auto synced = weak.lock();
                           if (!synced || !synced->is_open()) return;  // deleted or closed meanwhile
                           if (!error) {
                               synced->synced_up_to(up_to, generation);
                               return;
                           }
                           const auto of = synced->topic_partition();
                           maintain(dir, "syncing a rolled segment of", &of, [&] { std::rethrow_exception(error); });
                       });
    });
    log->set_dir_health(dirs_[dir].health);
    logs_[tp] = Entry{std::move(log), dir};
    dirs_[dir].stale = true;
}

std::vector<LogManager::LoadJob> LogManager::scan_dir(std::size_t i, std::map<TopicPartition, std::size_t>& seen) {
    auto& dir = dirs_[i];
    dir.clean_at_start = std::filesystem::exists(dir.path / kCleanShutdownFile);
    bool ok = true;
    auto recovery_points = read_checkpoint_file(dir.path / kRecoveryPointCheckpointFile, &ok);
    if (!ok) logging::warn("{}: unreadable recovery point checkpoint, recovering all segments", dir.path.string());
    auto log_starts = read_checkpoint_file(dir.path / kLogStartOffsetCheckpointFile, &ok);
    if (!ok) logging::warn("{}: unreadable log start offset checkpoint", dir.path.string());
    // An unreadable cleaner checkpoint only costs a full cleaning.
    if (std::filesystem::exists(dir.path / kCleanerCheckpointFile))
        dir.cleaner_written = read_checkpoint_file(dir.path / kCleanerCheckpointFile, &ok);

    std::vector<LoadJob> jobs;
    for (const auto& entry : std::filesystem::directory_iterator(dir.path)) {
        if (!entry.is_directory()) continue;
        auto name = entry.path().filename().string();
        if (name.ends_with(kDeleteDirSuffix)) {
            std::filesystem::remove_all(entry.path());  // a deletion interrupted by a crash
            continue;
        }
        auto tp = parse_partition_dir_name(name);
        if (!tp) continue;
        if (auto [it, fresh] = seen.emplace(*tp, i); !fresh)
            throw StorageError("partition " + name + " found in two log dirs: " + dirs_[it->second].path.string() +
                               " and " + dir.path.string());
        LoadJob job{entry.path(), *tp, config_for(tp->topic), {}, i};
        job.load.clean_shutdown = dir.clean_at_start;
        job.load.recovery_point = lookup(recovery_points, *tp);
        job.load.log_start_offset = lookup(log_starts, *tp);
        job.load.clock = clock_;
        jobs.push_back(std::move(job));
    }
    return jobs;
}

std::vector<std::shared_ptr<PartitionLog>> LogManager::load_logs(std::vector<LoadJob>& jobs,
                                                                 std::size_t threads_per_dir, std::size_t& workers) {
    std::vector<std::shared_ptr<PartitionLog>> logs(jobs.size());
    std::vector<std::vector<std::size_t>> queues(dirs_.size());
    for (std::size_t j = 0; j < jobs.size(); ++j) queues[jobs[j].dir].push_back(j);
    const auto busy_dirs =
        static_cast<std::size_t>(std::count_if(queues.begin(), queues.end(), [](const auto& q) { return !q.empty(); }));
    auto per_dir = std::max<std::size_t>(threads_per_dir, 1);
    // Each worker needs a share of the open-files budget of at least
    // kMinLimit: fewer workers rather than more files than the setting allows.
    const auto max_workers =
        open_files_ ? std::max<std::size_t>(open_files_->limit() / OpenFiles::kMinLimit, 1) : SIZE_MAX;
    per_dir = std::min(per_dir, std::max<std::size_t>(max_workers / std::max<std::size_t>(busy_dirs, 1), 1));
    workers = 0;
    for (const auto& q : queues) workers += std::min(per_dir, q.size());

    auto open_log = [](LoadJob& job, std::shared_ptr<OpenFiles> budget) {
        job.load.open_files = std::move(budget);
        return std::make_shared<PartitionLog>(job.path, job.tp, job.config, job.load);
    };
    if (workers <= 1 || workers > max_workers) {
        workers = 1;
        for (std::size_t j = 0; j < jobs.size(); ++j) logs[j] = open_log(jobs[j], open_files_);
        return logs;
    }

    // The shared budget of open files is single-threaded: each worker counts
    // against a share of its own, and a loaded log moves to the shared one
    // with its files closed (reopened on first use).
    const auto share = open_files_ ? open_files_->limit() / workers : 0;
    std::mutex failure_mutex;
    std::exception_ptr failure;
    std::atomic<bool> failed{false};
    auto fail = [&] {
        std::lock_guard lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        failed = true;
    };
    std::vector<std::atomic<std::size_t>> next(queues.size());
    auto work = [&](std::size_t d) {
        try {
            auto budget = share > 0 ? std::make_shared<OpenFiles>(share) : nullptr;
            for (auto k = next[d]++; k < queues[d].size() && !failed; k = next[d]++) {
                auto log = open_log(jobs[queues[d][k]], budget);
                if (budget) log->move_to_budget(open_files_);
                logs[queues[d][k]] = std::move(log);
            }
        } catch (...) {
            fail();
        }
    };
    {
        std::vector<std::jthread> pool;
        try {
            for (std::size_t d = 0; d < queues.size(); ++d)
                for (std::size_t t = 0; t < std::min(per_dir, queues[d].size()); ++t) pool.emplace_back(work, d);
        } catch (...) {
            fail();  // no thread to be had: the started ones stop early
        }
    }
    if (failure) std::rethrow_exception(failure);
    return logs;
}

void LogManager::load_dirs(std::size_t threads_per_dir) {
    std::map<TopicPartition, std::size_t> seen;
    std::vector<LoadJob> jobs;
    for (std::size_t i = 0; i < dirs_.size(); ++i) {
        auto found = scan_dir(i, seen);
        std::move(found.begin(), found.end(), std::back_inserter(jobs));
    }
    const auto started = std::chrono::steady_clock::now();
    std::size_t workers = 1;
    auto logs = load_logs(jobs, threads_per_dir, workers);
    // Kafka's "Loaded N logs in X ms": what an operator sizes the recovery threads by.
    const auto elapsed =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
    logging::info("loaded {} logs from {} log dirs in {} ms ({} loading at once)", jobs.size(), dirs_.size(), elapsed,
                  workers);
    for (std::size_t j = 0; j < jobs.size(); ++j) attach(jobs[j].tp, std::move(logs[j]), jobs[j].dir);

    for (std::size_t i = 0; i < dirs_.size(); ++i) {
        auto& dir = dirs_[i];
        if (dir.cleaner_written) {
            OffsetCheckpoint kept;
            for (const auto& [tp, offset] : *dir.cleaner_written)
                if (auto it = logs_.find(tp); it != logs_.end() && it->second.dir == i) {
                    kept[tp] = offset;
                    cleaner_.set_checkpoint(tp, offset);
                }
            dir.cleaner_written = std::move(kept);
        }
        write_checkpoints(i);
        if (dir.clean_at_start) {
            // From here on a crash must be detected as unclean.
            std::filesystem::remove(dir.path / kCleanShutdownFile);
            sync_dir(dir.path);
        }
    }
}

std::shared_ptr<PartitionLog> LogManager::get(const TopicPartition& tp) const {
    auto it = logs_.find(tp);
    return it == logs_.end() ? nullptr : it->second.log;
}

std::shared_ptr<PartitionLog> LogManager::get_or_create(const TopicPartition& tp, const LogConfig& config) {
    if (auto existing = get(tp)) return existing;
    if (shut_down_) throw StorageError("log manager is shut down");
    auto chosen = online_dir_with_fewest_partitions();
    if (!chosen) throw StorageError("every log dir is offline");
    const auto best = *chosen;
    auto path = dirs_[best].path / partition_dir_name(tp);
    LoadOptions load;
    load.clock = clock_;
    load.open_files = open_files_;
    try {
        return with_storage_errors([&] {
            // The dir's checkpoints may still hold a removed log of the same
            // name (see remove): its recovery point, log start and cleaner
            // offsets must not be read back for this one after a crash.
            auto& d = dirs_[best];
            const auto removed = d.removed.find(tp);
            // (Both files of `written` list the same partitions.)
            if ((d.written && d.written->first.contains(tp)) ||
                (d.cleaner_written && d.cleaner_written->contains(tp)) ||
                (removed != d.removed.end() && d.writes_done <= removed->second))
                write_checkpoints(best);
            d.removed.erase(tp);
            auto log = std::make_shared<PartitionLog>(path, tp, config, load);
            sync_dir(dirs_[best].path);
            attach(tp, log, best);
            return log;
        });
    } catch (const StorageError& e) {
        dirs_[best].health->failed(e);
        throw;
    }
}

std::optional<std::size_t> LogManager::online_dir_with_fewest_partitions() const {
    std::vector<std::size_t> counts(dirs_.size(), 0);
    for (const auto& [key, entry] : logs_) ++counts[entry.dir];
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < counts.size(); ++i)
        if (!dirs_[i].health->offline() && (!best || counts[i] < counts[*best])) best = i;
    return best;
}

std::vector<std::pair<std::filesystem::path, std::string>> LogManager::offline_dirs() const {
    std::vector<std::pair<std::filesystem::path, std::string>> out;
    for (const auto& dir : dirs_)
        if (dir.health->offline()) out.emplace_back(dir.path, dir.health->reason());
    return out;
}

bool LogManager::all_dirs_offline() const {
    return std::ranges::all_of(dirs_, [](const Dir& dir) { return dir.health->offline(); });
}

bool LogManager::io_failed(const std::filesystem::path& dir, const StorageError& error) {
    for (auto& d : dirs_)
        if (d.path == dir) return d.health->failed(error);
    return false;
}

template <typename Work>
bool LogManager::maintain(std::size_t dir, std::string_view what, const TopicPartition* tp, Work work) {
    auto& d = dirs_[dir];
    if (d.health->offline()) return false;
    try {
        with_storage_errors(work);
        return true;
    } catch (const StorageError& e) {
        if (d.health->failed(e)) return false;  // said once, by the dir going offline
        const auto now = std::chrono::steady_clock::now();
        if (now - d.last_failure_logged < std::chrono::minutes(1)) {
            ++d.failures_not_logged;
            return false;
        }
        logging::error("{}{}{} in {} failed: {} ({} more failures in the last minute)", what, tp ? " " : "",
                       tp ? tp->to_string() : "", d.path.string(), e.what(), d.failures_not_logged);
        d.last_failure_logged = now;
        d.failures_not_logged = 0;
        return false;
    }
}

bool LogManager::remove(const TopicPartition& tp) {
    auto it = logs_.find(tp);
    if (it == logs_.end()) return false;
    auto entry = std::move(it->second);
    logs_.erase(it);
    cleaner_.forget(tp);
    entry.log->set_checkpoint_hook({});
    entry.log->set_sync_hook({});
    entry.log->mark_deleted();
    dirs_[entry.dir].stale = true;
    dirs_[entry.dir].removed[tp] = dirs_[entry.dir].writes_submitted;
    if (dirs_[entry.dir].health->offline()) {
        // Its disk failed: forget it; whatever is left there is not served again.
        remove_dir_in_background(entry.log->dir());
        return true;
    }
    // No fsync of the rename: a log that comes back after a crash belongs to
    // a topic the metadata no longer has, and goes at startup (BrokerCore).
    auto deleted =
        dirs_[entry.dir].path / (partition_dir_name(tp) + "." + random_hex32() + std::string(kDeleteDirSuffix));
    std::filesystem::rename(entry.log->dir(), deleted);
    remove_dir_in_background(std::move(deleted));
    return true;
}

std::vector<TopicPartition> LogManager::partitions() const {
    std::vector<TopicPartition> out;
    for (const auto& [tp, entry] : logs_) out.push_back(tp);
    return out;
}

std::vector<std::filesystem::path> LogManager::log_dirs() const {
    std::vector<std::filesystem::path> out;
    for (const auto& dir : dirs_) out.push_back(dir.path);
    return out;
}

std::filesystem::path LogManager::dir_of(const TopicPartition& tp) const {
    auto it = logs_.find(tp);
    return it == logs_.end() ? std::filesystem::path{} : dirs_[it->second.dir].path;
}

void LogManager::set_topic_config(const std::string& topic, const LogConfig& config) {
    for (auto& [tp, entry] : logs_)
        if (tp.topic == topic) entry.log->set_config(config);
}

std::size_t LogManager::enforce_retention() {
    std::size_t deleted = 0;
    for (auto& [tp, entry] : logs_)
        maintain(entry.dir, "retention of", &tp,
                 [&] { deleted += entry.log->enforce_retention(visible_offsets(tp, *entry.log).high_watermark); });
    return deleted;
}

void LogManager::flush_due() {
    syncer_.collect();
    for (auto& [tp, entry] : logs_) maintain(entry.dir, "flushing", &tp, [&] { entry.log->flush_if_due(); });
}

LogManager::CheckpointWrite LogManager::checkpoint_write(std::size_t dir) {
    auto& d = dirs_[dir];
    OffsetCheckpoint recovery_points, log_starts;
    for (const auto& [tp, entry] : logs_) {
        if (entry.dir != dir) continue;
        recovery_points[tp] = entry.log->recovery_point();
        log_starts[tp] = entry.log->log_start_offset();
    }
    OffsetCheckpoint cleaned;
    for (const auto& [tp, offset] : cleaner_.checkpoints())
        if (auto it = logs_.find(tp); it != logs_.end() && it->second.dir == dir) cleaned[tp] = offset;
    CheckpointWrite write;
    if (d.rewrite || (d.cleaner_written ? *d.cleaner_written != cleaned : !cleaned.empty())) {
        write.cleaner = cleaned;
        d.cleaner_written = std::move(cleaned);
    }
    if (d.rewrite || !d.written || d.written->first != recovery_points || d.written->second != log_starts) {
        write.offsets.emplace(recovery_points, log_starts);
        d.written.emplace(std::move(recovery_points), std::move(log_starts));
    }
    d.rewrite = false;
    d.stale = false;
    return write;
}

void LogManager::write_checkpoint_files(const std::filesystem::path& dir, const CheckpointWrite& write) {
    if (write.cleaner) write_checkpoint_file(dir / kCleanerCheckpointFile, *write.cleaner);
    if (write.offsets) {
        write_checkpoint_file(dir / kRecoveryPointCheckpointFile, write.offsets->first);
        write_checkpoint_file(dir / kLogStartOffsetCheckpointFile, write.offsets->second);
    }
}

void LogManager::written_to_disk(std::size_t dir, std::uint64_t serial) {
    auto& d = dirs_[dir];
    d.writes_done = std::max(d.writes_done, serial);
    std::erase_if(d.removed, [&](const auto& entry) { return entry.second < d.writes_done; });
}

void LogManager::forget_written(std::size_t dir) {
    dirs_[dir].rewrite = true;
    dirs_[dir].stale = true;
}

void LogManager::write_checkpoints(std::size_t dir) {
    if (dirs_[dir].health->offline()) return;
    syncer_.drain();  // one writer per file at a time
    auto write = checkpoint_write(dir);
    const auto serial = ++dirs_[dir].writes_submitted;
    try {
        write_checkpoint_files(dirs_[dir].path, write);
    } catch (...) {
        forget_written(dir);  // the next pass tries again
        throw;
    }
    written_to_disk(dir, serial);
}

void LogManager::submit_checkpoints(std::size_t dir) {
    if (dirs_[dir].health->offline()) return;
    auto write = checkpoint_write(dir);
    if (!write.cleaner && !write.offsets) return;
    const auto serial = ++dirs_[dir].writes_submitted;
    syncer_.submit([path = dirs_[dir].path, write = std::move(write)] { write_checkpoint_files(path, write); },
                   [this, dir, serial](std::exception_ptr error) {
                       if (!error) {
                           written_to_disk(dir, serial);
                           return;
                       }
                       forget_written(dir);
                       maintain(dir, "writing checkpoints", nullptr, [&] { std::rethrow_exception(error); });
                   });
}

void LogManager::remove_dir_in_background(std::filesystem::path dir) {
    deleter_.submit([dir = std::move(dir)] {
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
        if (ec) logging::warn("could not remove {}: {} (tried again at the next start)", dir.string(), ec.message());
    });
    deleter_.collect();  // its jobs report nothing; this keeps its count of them small
}

bool LogManager::clean_step() {
    if (shut_down_ || !cleaner_.enabled()) return false;
    syncer_.collect();  // a replacement's fsyncs the cleaning waits for
    if (!cleaner_.busy()) {
        std::vector<std::shared_ptr<PartitionLog>> compacted;
        for (const auto& [tp, entry] : logs_)
            if (entry.log->config().cleanup_compact && !entry.log->offline()) compacted.push_back(entry.log);
        auto last_stable_offset = [this](const PartitionLog& log) {
            return visible_offsets(log.topic_partition(), log).last_stable_offset;
        };
        if (!cleaner_.start_filthiest(compacted, last_stable_offset)) return false;
    }
    if (auto done = cleaner_.step()) {
        if (auto it = logs_.find(*done); it != logs_.end()) {
            const auto dir = it->second.dir;
            submit_checkpoints(dir);
        }
    }
    return true;
}

void LogManager::checkpoint() {
    syncer_.collect();
    for (std::size_t i = 0; i < dirs_.size(); ++i)
        if (dirs_[i].stale) submit_checkpoints(i);
}

void LogManager::shutdown() {
    if (shut_down_) return;
    cleaner_.abort_all();
    syncer_.drain();
    std::vector<bool> flushed(dirs_.size(), true);
    for (auto& [tp, entry] : logs_) {
        entry.log->set_checkpoint_hook({});
        entry.log->set_sync_hook({});
        if (entry.log->offline()) {
            entry.log->release();
        } else if (entry.log->is_open()) {
            // One syncfs per dir below instead of an fsync per file: 10,000
            // partitions took seconds to flush one by one.
            const bool ok = maintain(entry.dir, "closing at shutdown", &tp, [&] {
                entry.log->flush(Durability::deferred);
                entry.log->close();
            });
            if (!ok) {
                entry.log->release();
                flushed[entry.dir] = false;
            }
        }
    }
    // A dir that failed or could not flush gets no clean-shutdown marker: its
    // logs are recovered at the next start.
    for (std::size_t i = 0; i < dirs_.size(); ++i)
        if (flushed[i])
            maintain(i, "flushing and writing the clean-shutdown marker", nullptr, [&] {
                sync_file_system(dirs_[i].path);
                write_checkpoints(i);
                write_file_atomically(dirs_[i].path / kCleanShutdownFile, "");
            });
    shut_down_ = true;
}

}  // namespace weir::storage
