#include "broker/storage/log_cleaner_manager.h"

#include <algorithm>
#include <chrono>

#include "broker/common/logging.h"

namespace weir::storage {
namespace {

std::vector<SegmentStats> stats_of(const PartitionLog& log, std::optional<std::int64_t> checkpoint) {
    const auto& segments = log.segments();
    const auto dirty_from = checkpoint.value_or(log.log_start_offset());
    const bool lag_bounded = log.config().max_compaction_lag_ms < kNever;
    std::vector<SegmentStats> out;
    out.reserve(segments.size());
    for (auto it = segments.begin(); it != segments.end(); ++it) {
        const auto& segment = it->second;
        auto next = std::next(it);
        SegmentStats s;
        s.base_offset = it->first;
        s.size = segment.size();
        s.largest_timestamp = segment.largest_timestamp();
        s.offset_index_bytes = segment.offset_index().entries() * OffsetIndex::kEntrySize;
        s.time_index_bytes = segment.time_index().entries() * TimeIndex::kEntrySize;
        // Only max.compaction.lag.ms looks at first batches, and only in the
        // dirty part; reading them costs a read per segment.
        if (lag_bounded && next != segments.end() && next->first > dirty_from) {
            if (auto first = segment.translate_offset(it->first)) s.first_batch_timestamp = first->max_timestamp;
        }
        out.push_back(s);
    }
    return out;
}

// Calls `f(batch)` for each whole batch in `data`.
template <typename F>
void for_each_batch(std::span<const std::uint8_t> data, F&& f) {
    while (data.size() >= records::kBatchHeaderSize) {
        auto h = records::parse_batch_header(data);
        if (h.total_size() > data.size()) break;
        f(h, data.first(h.total_size()));
        data = data.subspan(h.total_size());
    }
}

}  // namespace

struct LogCleanerManager::Job {
    std::shared_ptr<PartitionLog> log;
    TopicPartition tp;
    std::uint64_t generation = 0;
    CleanableSection section;
    LogConfig config;
    std::int64_t now_ms = 0;
    std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
    OffsetMap map;
    bool mapping = true;

    // Map building: the dirty segments, the one being read and the next offset in it.
    std::vector<std::int64_t> dirty_bases;
    std::size_t dirty_index = 0;
    std::int64_t next_offset = 0;
    std::uint64_t batches_mapped = 0;
    // The transactions aborted in the dirty section (from its transaction
    // indexes): their records never shadow others, so that an aborted write
    // cannot remove a committed one. Read at the first map step.
    std::optional<std::vector<AbortedTxn>> aborted;

    // Cleaning: [0, end_offset) in groups of segments, each replaced by `out`.
    std::int64_t end_offset = 0;
    std::vector<std::vector<std::int64_t>> groups;
    std::size_t group_index = 0;
    std::size_t segment_in_group = 0;
    std::optional<CleanedSegment> out;
    // `out` is written out and fsynced; the next step swaps it in.
    bool out_finished = false;
    // `out` is written out; its fsyncs run in the background.
    bool out_syncing = false;
    std::uint64_t serial = 0;
    // The last batch read, held back until it is known whether it ends its group.
    std::optional<wire::Bytes> pending;

    CleanerTotals stats;

    explicit Job(std::size_t map_bytes) : map(map_bytes) {}
};

LogCleanerManager::LogCleanerManager(CleanerOptions options, Clock clock)
    : options_(options), clock_(std::move(clock)) {
    if (!clock_) clock_ = system_clock_ms();
}

LogCleanerManager::~LogCleanerManager() = default;

std::optional<std::int64_t> LogCleanerManager::checkpoint(const TopicPartition& tp) const {
    auto it = checkpoints_.find(tp);
    if (it == checkpoints_.end()) return std::nullopt;
    return it->second;
}

void LogCleanerManager::set_checkpoint(const TopicPartition& tp, std::int64_t offset) { checkpoints_[tp] = offset; }

void LogCleanerManager::forget(const TopicPartition& tp) {
    abort(tp);
    checkpoints_.erase(tp);
    uncleanable_.erase(tp);
}

void LogCleanerManager::abort(const TopicPartition& tp) {
    if (job_ && job_->tp == tp) {
        ++totals_.aborted;
        job_.reset();
    }
}

void LogCleanerManager::abort_all() {
    if (job_) ++totals_.aborted;
    job_.reset();
}

bool LogCleanerManager::start_filthiest(const std::vector<std::shared_ptr<PartitionLog>>& logs,
                                        const StableOffsetOf& last_stable_offset) {
    if (!options_.enabled || job_) return false;
    const auto now = clock_();
    std::shared_ptr<PartitionLog> best;
    CleanableSection best_section;
    for (const auto& log : logs) {
        if (!log || !log->is_open() || !log->config().cleanup_compact) continue;
        const auto& tp = log->topic_partition();
        if (uncleanable_.contains(tp)) continue;
        auto cp = checkpoint(tp);
        auto stats = stats_of(*log, cp);
        LogBounds bounds{log->log_start_offset(), last_stable_offset ? last_stable_offset(*log) : log->log_end_offset(),
                         log->log_end_offset()};
        auto section = find_cleanable_section(stats, bounds, cp, log->config(), now);
        if (section.checkpoint_reset) {
            logging::warn("{}: resetting the cleaner checkpoint {} to the log start offset {}", partition_dir_name(tp),
                          *cp, section.first_dirty_offset);
            checkpoints_[tp] = section.first_dirty_offset;
        }
        if (!worth_cleaning(section, log->config())) continue;
        if (!best || section.cleanable_ratio() > best_section.cleanable_ratio()) {
            best = log;
            best_section = section;
        }
    }
    if (!best) return false;

    auto map_bytes = static_cast<std::size_t>(static_cast<double>(options_.dedupe_buffer_bytes) *
                                              options_.dedupe_buffer_load_factor);
    auto job = std::make_unique<Job>(map_bytes);
    job->log = best;
    job->tp = best->topic_partition();
    job->generation = best->segments_generation();
    job->section = best_section;
    job->config = best->config();
    job->now_ms = now;
    const auto& segments = best->segments();
    auto it = segments.upper_bound(best_section.first_dirty_offset);
    if (it != segments.begin()) --it;
    for (; it != segments.end() && it->first < best_section.first_uncleanable_offset; ++it)
        job->dirty_bases.push_back(it->first);
    job->next_offset = best_section.first_dirty_offset;
    logging::info("{}: cleaning, dirty section [{}, {}), dirty ratio {:.2f}{}", partition_dir_name(job->tp),
                  best_section.first_dirty_offset, best_section.first_uncleanable_offset,
                  best_section.cleanable_ratio(),
                  best_section.needs_compaction_now ? ", past max.compaction.lag.ms" : "");
    job->serial = ++jobs_started_;
    job_ = std::move(job);
    return true;
}

std::chrono::nanoseconds LogCleanerManager::pause_after(std::chrono::nanoseconds step) const {
    // Waiting for the background: look again soon, without spinning.
    if (last_step_.waiting) return std::chrono::milliseconds(2);
    auto share = std::clamp(options_.io_thread_share, 0.01, 1.0);
    return std::chrono::duration_cast<std::chrono::nanoseconds>(step * ((1.0 - share) / share));
}

std::optional<TopicPartition> LogCleanerManager::step() {
    last_step_ = {};
    if (!job_) return std::nullopt;
    auto& job = *job_;
    if (!job.log->is_open() || job.log->segments_generation() != job.generation || !job.log->config().cleanup_compact) {
        logging::info("{}: log changed during cleaning, starting over later", partition_dir_name(job.tp));
        abort(job.tp);
        return std::nullopt;
    }
    try {
        if (job.mapping)
            map_step(job, options_.step_bytes);
        else
            clean_step(job, options_.step_bytes);
        if (!job.mapping && job.group_index >= job.groups.size()) {
            finish(job);
            auto tp = job.tp;
            job_.reset();
            return tp;
        }
    } catch (const std::exception& e) {
        logging::error("{}: cleaning failed, marking the partition uncleanable: {}", partition_dir_name(job.tp),
                       e.what());
        uncleanable_.insert(job.tp);
        abort(job.tp);
    }
    return std::nullopt;
}

void LogCleanerManager::map_step(Job& job, std::size_t budget) {
    const auto first_dirty = job.section.first_dirty_offset;
    const auto& segments = job.log->segments();
    if (!job.aborted) job.aborted = job.log->collect_aborted_txns(first_dirty, job.section.first_uncleanable_offset);
    auto aborted = [&](const records::BatchHeader& h) {
        if (!h.is_transactional()) return false;
        for (const auto& txn : *job.aborted)
            if (txn.producer_id == h.producer_id && txn.first_offset <= h.base_offset &&
                h.base_offset <= txn.last_offset)
                return true;
        return false;
    };
    while (budget > 0 && job.dirty_index < job.dirty_bases.size()) {
        auto base = job.dirty_bases[job.dirty_index];
        auto next_base = job.dirty_index + 1 < job.dirty_bases.size() ? job.dirty_bases[job.dirty_index + 1]
                                                                      : job.section.first_uncleanable_offset;
        auto data = segments.at(base).read(job.next_offset, budget, std::nullopt, true);
        if (!data || data->empty()) {
            // Offsets missing at the end of a segment are covered all the same.
            job.map.update_latest_offset(next_base - 1);
            ++job.dirty_index;
            job.next_offset = next_base;
            continue;
        }
        bool full = false;
        for_each_batch(*data, [&](const records::BatchHeader& h, std::span<const std::uint8_t> batch) {
            if (full) return;
            // Kafka stops when the map is full; the cleaning then covers what
            // was mapped and the next one goes on from there.
            if (job.map.full() && job.batches_mapped > 0) {
                full = true;
                return;
            }
            // Markers stay (the filter leaves control batches alone) and are no key's latest.
            if (!h.is_control() && !aborted(h)) {
                try {
                    for (const auto& r : records::decode_records(batch)) {
                        auto offset = h.base_offset + r.offset_delta;
                        if (r.key && offset >= first_dirty) job.map.put(*r.key, offset);
                    }
                } catch (const wire::DecodeError&) {
                    // Its keys stay unknown; the filter leaves such a batch as it is.
                }
            }
            if (h.last_offset() >= first_dirty) job.map.update_latest_offset(h.last_offset());
            job.next_offset = h.last_offset() + 1;
            ++job.batches_mapped;
        });
        job.stats.bytes_read += data->size();
        last_step_.bytes_read += data->size();
        budget -= std::min(budget, data->size());
        if (full) {
            job.dirty_index = job.dirty_bases.size();
            break;
        }
    }
    if (job.dirty_index >= job.dirty_bases.size()) start_cleaning_phase(job);
}

void LogCleanerManager::start_cleaning_phase(Job& job) {
    job.mapping = false;
    job.end_offset = job.map.latest_offset() + 1;
    std::vector<SegmentStats> stats;
    for (const auto& s : stats_of(*job.log, job.section.first_dirty_offset))
        if (s.base_offset < job.end_offset) stats.push_back(s);
    if (job.end_offset <= job.section.first_dirty_offset) stats.clear();  // nothing was mapped
    auto max_size = static_cast<std::uint64_t>(std::max<std::int64_t>(job.config.segment_bytes, 1));
    auto max_index = static_cast<std::uint64_t>(std::max<std::int32_t>(job.config.segment_index_bytes, 1));
    for (const auto& group : group_segments_by_size(stats, max_size, max_index, job.section.first_uncleanable_offset)) {
        std::vector<std::int64_t> bases;
        for (auto i : group) bases.push_back(stats[i].base_offset);
        job.groups.push_back(std::move(bases));
    }
}

void LogCleanerManager::clean_step(Job& job, std::size_t budget) {
    const auto& segments = job.log->segments();
    while (budget > 0 && job.group_index < job.groups.size()) {
        const auto& group = job.groups[job.group_index];
        if (!job.out) {
            job.out.emplace(job.log->dir(), group.front(),
                            SegmentOptions{static_cast<std::size_t>(std::max(job.config.segment_index_bytes, 64)),
                                           static_cast<std::uint32_t>(std::max(job.config.index_interval_bytes, 0))});
            job.segment_in_group = 0;
            job.next_offset = group.front();
        }
        if (job.segment_in_group < group.size()) {
            const auto& segment = segments.at(group[job.segment_in_group]);
            auto data = segment.read(job.next_offset, budget, std::nullopt, true);
            if (!data || data->empty()) {
                ++job.segment_in_group;
                if (job.segment_in_group < group.size()) job.next_offset = group[job.segment_in_group];
                continue;
            }
            for_each_batch(*data, [&](const records::BatchHeader& h, std::span<const std::uint8_t> batch) {
                if (job.pending) emit(job, *job.pending, false);
                job.pending.emplace(batch.begin(), batch.end());
                job.next_offset = h.last_offset() + 1;
            });
            job.stats.bytes_read += data->size();
            last_step_.bytes_read += data->size();
            budget -= std::min(budget, data->size());
            continue;
        }
        // Finishing a replacement and swapping it in cost three fsyncs and
        // two: each is a step of its own, to keep the longest step short.
        if (job.out_syncing) {
            last_step_.waiting = true;
            break;
        }
        if (!job.out_finished) {
            if (job.pending) emit(job, *job.pending, true);
            job.pending.reset();
            std::optional<std::filesystem::file_time_type> mtime;
            std::error_code ec;
            auto last_write = std::filesystem::last_write_time(segments.at(group.back()).log_path(), ec);
            if (!ec) mtime = last_write;
            std::vector<AbortedTxn> aborted;
            for (auto base : group) {
                const auto& entries = segments.at(base).txn_index().entries();
                aborted.insert(aborted.end(), entries.begin(), entries.end());
            }
            job.out->add_aborted_txns(aborted);
            auto sync = job.out->complete(mtime);
            job.stats.bytes_written += job.out->size();
            ++last_step_.finished;
            if (!background_) {
                sync.run();
                job.out_finished = true;
                break;
            }
            job.out_syncing = true;
            background_(std::move(sync), [this, serial = job.serial](std::exception_ptr error) {
                // A cleaning aborted since has discarded the files: nothing to do.
                if (!job_ || job_->serial != serial || !job_->out_syncing) return;
                job_->out_syncing = false;
                if (!error) {
                    job_->out_finished = true;
                    return;
                }
                try {
                    std::rethrow_exception(error);
                } catch (const std::exception& e) {
                    logging::error("{}: cleaning failed, marking the partition uncleanable: {}",
                                   partition_dir_name(job_->tp), e.what());
                }
                uncleanable_.insert(job_->tp);
                abort(job_->tp);
            });
            break;
        }
        job.log->replace_segments(group, std::move(*job.out));
        job.out.reset();
        job.out_finished = false;
        job.generation = job.log->segments_generation();
        ++job.group_index;
        ++last_step_.swapped;
        break;
    }
}

void LogCleanerManager::emit(Job& job, std::span<const std::uint8_t> batch, bool last_of_group) {
    auto h = records::parse_batch_header(batch);
    // An emptied batch stays as a bare header when:
    //  - it ends its group: its last offset keeps the replacement's offset
    //    range reaching the group's last segment, which is how recovery knows
    //    which segments a half-done swap replaces;
    //  - it ends the cleaned section (Kafka: the last offset is not lost);
    //  - it carries a producer id. Kafka keeps only each active producer's
    //    last batch, for its sequence numbers; Weir keeps no producer state
    //    (no InitProducerId yet), so it keeps them all.
    bool keep_if_empty =
        last_of_group || h.last_offset() + 1 == job.section.first_uncleanable_offset || h.producer_id >= 0;
    RecordFilter filter{&job.map, job.now_ms, job.config.delete_retention_ms};
    auto filtered = filter_batch(batch, filter, keep_if_empty);
    job.stats.records_read += static_cast<std::uint64_t>(filtered.records_read);
    job.stats.records_kept += static_cast<std::uint64_t>(filtered.records_kept);
    job.stats.unkeyed_dropped += static_cast<std::uint64_t>(filtered.unkeyed_dropped);
    switch (filtered.outcome) {
        case FilteredBatch::Outcome::unchanged:
            job.out->append(batch);
            break;
        case FilteredBatch::Outcome::rewritten:
        case FilteredBatch::Outcome::emptied:
            job.out->append(filtered.bytes);
            break;
        case FilteredBatch::Outcome::removed:
            break;
    }
}

void LogCleanerManager::finish(Job& job) {
    checkpoints_[job.tp] = std::max(job.end_offset, job.section.first_dirty_offset);
    auto secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - job.started).count();
    const auto& s = job.stats;
    logging::info("{}: cleaned [{}, {}) in {:.2f} s: {} bytes read, {} written, {} of {} records kept{}",
                  partition_dir_name(job.tp), job.section.first_dirty_offset, job.end_offset, secs, s.bytes_read,
                  s.bytes_written, s.records_kept, s.records_read,
                  s.unkeyed_dropped > 0 ? fmt::format(", {} without a key dropped", s.unkeyed_dropped) : "");
    ++totals_.cleanings;
    totals_.bytes_read += s.bytes_read;
    totals_.bytes_written += s.bytes_written;
    totals_.records_read += s.records_read;
    totals_.records_kept += s.records_kept;
    totals_.unkeyed_dropped += s.unkeyed_dropped;
}

}  // namespace weir::storage
