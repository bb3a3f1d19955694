#include "broker/storage/partition_log.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>

#include "broker/common/logging.h"
#include "broker/storage/batch_scanner.h"
#include "broker/storage/producer_snapshot_file.h"
#include "protocol/wire/writer.h"

namespace weir::storage {
namespace {

bool is_leftover_file(std::string_view name) {
    // Temp files of interrupted writes and cleanings are never valid data (a
    // `.log.swap` is, but complete_swaps has renamed those by then).
    for (std::string_view s : {".tmp", ".deleted", ".cleaned", ".swap"})
        if (name.ends_with(s)) return true;
    return false;
}

// Kafka's LogLoader: a `<base>.log.swap` was complete and fsynced before it
// got that name, so its swap is finished rather than undone. The segments it
// replaced are those whose base lies in its offset range (the cleaner keeps
// the last batch of each group, so the range reaches into the group's last
// non-empty segment); its indexes are rebuilt from the log.
void complete_swaps(const std::filesystem::path& dir, const std::string& name) {
    const std::string log_swap = std::string(kLogSuffix) + std::string(kSwapSuffix);
    std::vector<std::int64_t> swaps;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        auto file = entry.path().filename().string();
        if (!file.ends_with(log_swap)) continue;
        if (auto base = parse_segment_file_name(file.substr(0, file.size() - kSwapSuffix.size()), kLogSuffix))
            swaps.push_back(*base);
    }
    std::sort(swaps.begin(), swaps.end());
    for (auto base : swaps) {
        auto swap = dir / (segment_file_name(base, kLogSuffix) + std::string(kSwapSuffix));
        std::int64_t end = base + 1;
        {
            auto file = File::open(swap, false);
            BatchScanner scanner(file, 0, file.size());
            while (auto batch = scanner.next()) end = std::max(end, batch->header.last_offset() + 1);
        }
        std::vector<std::filesystem::path> replaced;
        for (const auto& entry : std::filesystem::directory_iterator(dir)) {
            auto file = entry.path().filename().string();
            for (auto suffix : {kLogSuffix, kIndexSuffix, kTimeIndexSuffix, kTxnIndexSuffix}) {
                auto old = parse_segment_file_name(file, suffix);
                if (old && *old >= base && *old < end) replaced.push_back(entry.path());
            }
        }
        for (const auto& path : replaced) std::filesystem::remove(path);
        // The transaction index cannot be rebuilt from the segment alone.
        auto txn_swap = dir / (segment_file_name(base, kTxnIndexSuffix) + std::string(kSwapSuffix));
        if (std::filesystem::exists(txn_swap))
            std::filesystem::rename(txn_swap, dir / segment_file_name(base, kTxnIndexSuffix));
        std::filesystem::rename(swap, dir / segment_file_name(base, kLogSuffix));
        logging::warn("{}: completed the swap of cleaned segment {} (offsets up to {})", name, base, end - 1);
    }
    if (!swaps.empty()) sync_dir(dir);
}

}  // namespace

PartitionLog::PartitionLog(std::filesystem::path dir, TopicPartition tp, LogConfig config, LoadOptions options)
    : dir_(std::move(dir)),
      tp_(std::move(tp)),
      config_(config),
      clock_(std::move(options.clock)),
      open_files_(std::move(options.open_files)) {
    if (!clock_) clock_ = system_clock_ms();
    load(options);
}

PartitionLog::~PartitionLog() { release(); }

SegmentOptions PartitionLog::segment_options() const {
    return {static_cast<std::size_t>(std::max(config_.segment_index_bytes, 64)),
            static_cast<std::uint32_t>(std::max(config_.index_interval_bytes, 0)), open_files_};
}

void PartitionLog::set_config(LogConfig config) { config_ = config; }

void PartitionLog::load(const LoadOptions& options) {
    std::filesystem::create_directories(dir_);
    complete_swaps(dir_, partition_dir_name(tp_));
    auto now = clock_();
    bool truncated_any = false;
    std::vector<std::int64_t> bases;
    std::vector<std::filesystem::path> index_files;
    for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
        if (!entry.is_regular_file()) continue;
        auto name = entry.path().filename().string();
        if (auto base = parse_segment_file_name(name, kLogSuffix))
            bases.push_back(*base);
        else if (is_leftover_file(name))
            std::filesystem::remove(entry.path());
        else if (parse_segment_file_name(name, kIndexSuffix) || parse_segment_file_name(name, kTimeIndexSuffix) ||
                 parse_segment_file_name(name, kTxnIndexSuffix))
            index_files.push_back(entry.path());
    }
    for (const auto& path : index_files) {
        auto log = path;
        log.replace_extension(kLogSuffix);
        if (!std::filesystem::exists(log)) std::filesystem::remove(path);
    }
    std::sort(bases.begin(), bases.end());

    if (bases.empty()) {
        auto start = std::max<std::int64_t>(options.log_start_offset, 0);
        Segment segment(dir_, start, segment_options(), now);
        segment.make_active();
        segments_.emplace(start, std::move(segment));
    } else {
        for (auto base : bases) segments_.emplace(base, Segment(dir_, base, segment_options(), now));
        for (auto it = segments_.begin(); it != segments_.end(); ++it) {
            auto next = std::next(it);
            bool last = next == segments_.end();
            auto& segment = it->second;
            bool unflushed = !options.clean_shutdown && (last || next->first > options.recovery_point);
            if (unflushed) {
                if (auto truncated = segment.recover(); truncated > 0) {
                    truncated_any = true;
                    logging::warn("{}: truncated {} invalid bytes at the end of {}", partition_dir_name(tp_), truncated,
                                  segment.log_path().string());
                    // Everything after a torn batch is unreachable.
                    while (std::next(it) != segments_.end()) {
                        auto victim = std::prev(segments_.end());
                        logging::warn("{}: deleting segment {} after the truncation point", partition_dir_name(tp_),
                                      victim->second.log_path().string());
                        victim->second.remove();
                        segments_.erase(victim);
                    }
                }
            } else if (!segment.indexes_sane()) {
                logging::warn("{}: rebuilding missing or corrupt index of {}", partition_dir_name(tp_),
                              segment.log_path().string());
                if (auto truncated = segment.recover(); truncated > 0) {
                    truncated_any = true;
                    logging::warn("{}: truncated {} invalid bytes of {}", partition_dir_name(tp_), truncated,
                                  segment.log_path().string());
                }
            } else if (last && !segment.load_tail()) {
                logging::warn("{}: invalid tail in {}, recovering", partition_dir_name(tp_),
                              segment.log_path().string());
                segment.recover();
            }
        }
        for (auto it = segments_.begin(); std::next(it) != segments_.end(); ++it) it->second.make_inactive();
        active().make_active();
    }

    log_end_offset_ = active().next_offset();
    log_start_offset_ = std::max(options.log_start_offset, segments_.begin()->first);
    recovery_point_ = options.clean_shutdown ? log_end_offset_ : std::min(options.recovery_point, log_end_offset_);
    opened_clean_ = options.clean_shutdown;
    last_flush_ms_ = now;
    if (log_start_offset_ > log_end_offset_) {
        truncate_fully_and_start_at(log_start_offset_);
    } else if (truncated_any) {
        // Make the truncation durable. A recovery that only re-read valid data
        // flushes nothing: the recovery point stays where it was (a second
        // crash re-checks the same bytes), and 10,000 partitions do not pay
        // 10,000 fsyncs before the broker starts.
        flush_up_to(log_end_offset_);
    }
}

AppendResult PartitionLog::append(std::span<std::uint8_t> batches) {
    return append(batches, records::parse_batch_headers(batches));
}

AppendResult PartitionLog::append(std::span<std::uint8_t> batches, std::span<const records::BatchHeader> headers) {
    ensure_open();
    auto now = clock_();
    bool log_append_time = config_.message_timestamp_type == records::TimestampType::log_append_time;

    // Check the framing before touching anything, so a bad buffer changes nothing.
    std::size_t framed = 0;
    for (const auto& h : headers) {
        if (h.last_offset_delta < 0) throw wire::DecodeError("negative lastOffsetDelta");
        framed += h.total_size();
    }
    if (framed != batches.size()) throw wire::DecodeError("record batches do not match their headers");
    AppendResult result;
    result.log_start_offset = log_start_offset_;
    result.base_offset = log_end_offset_;
    result.last_offset = log_end_offset_ - 1;
    if (headers.empty()) return result;

    std::int64_t next = log_end_offset_;
    std::int64_t max_timestamp = -1;
    std::size_t pos = 0;
    for (const auto& h : headers) {
        auto batch = batches.subspan(pos, h.total_size());
        records::set_base_offset(batch, next);
        records::set_partition_leader_epoch(batch, leader_epoch_);
        if (log_append_time) records::set_log_append_time(batch, now);
        max_timestamp = std::max(max_timestamp, log_append_time ? now : h.max_timestamp);
        next += std::int64_t{h.last_offset_delta} + 1;
        result.record_count += h.record_count;
        pos += h.total_size();
    }

    write(batches, log_end_offset_, next, max_timestamp, result.record_count, now);
    result.last_offset = next - 1;
    if (log_append_time) result.log_append_time = now;
    return result;
}

void PartitionLog::write(std::span<const std::uint8_t> batches, std::int64_t first, std::int64_t next,
                         std::int64_t max_timestamp, std::int64_t records, std::int64_t now) {
    RollParams roll_params{
        config_.segment_bytes, config_.max_segment_ms(), batches.size(), max_timestamp, next - 1, now};
    if (active().should_roll(roll_params)) roll(first);
    active().append(batches);
    log_end_offset_ = next;
    unflushed_messages_ += records;
    if (unflushed_messages_ >= config_.flush_interval_messages || now - last_flush_ms_ >= config_.flush_interval_ms)
        flush();
}

AppendResult PartitionLog::append_replicated(std::span<const std::uint8_t> batches) {
    ensure_open();
    const auto now = clock_();
    AppendResult result;
    result.log_start_offset = log_start_offset_;
    result.base_offset = log_end_offset_;
    result.last_offset = log_end_offset_ - 1;
    std::int64_t next = log_end_offset_;
    std::int64_t max_timestamp = -1;
    std::optional<std::int64_t> first;
    records::for_each_batch(batches, false, [&](const records::BatchHeader& h, std::span<const std::uint8_t> batch) {
        if (h.last_offset_delta < 0) throw wire::DecodeError("negative lastOffsetDelta");
        if (h.base_offset < next)
            throw wire::DecodeError("replicated batch at offset " + std::to_string(h.base_offset) +
                                    " is below the log end " + std::to_string(next));
        if (!records::crc_valid(batch))
            throw wire::DecodeError("replicated batch at offset " + std::to_string(h.base_offset) + " fails its CRC");
        if (!first) first = h.base_offset;
        next = h.last_offset() + 1;
        max_timestamp = std::max(max_timestamp, h.max_timestamp);
        result.record_count += h.record_count;
    });
    if (!first) return result;
    write(batches, *first, next, max_timestamp, result.record_count, now);
    result.base_offset = *first;
    result.last_offset = next - 1;
    return result;
}

void PartitionLog::roll(std::int64_t new_base) {
    auto now = clock_();
    active().make_inactive();
    for (auto suffix : {kLogSuffix, kIndexSuffix, kTimeIndexSuffix, kTxnIndexSuffix})
        std::filesystem::remove(dir_ / segment_file_name(new_base, suffix));  // stale leftovers
    Segment segment(dir_, new_base, segment_options(), now);
    segment.make_active();
    segments_.emplace(new_base, std::move(segment));
    if (roll_hook_) roll_hook_(new_base);
    if (!config_.flush_on_roll || new_base <= recovery_point_) return;
    // Only what no earlier request covers: the recovery point lags until a
    // sync handed to the hook is collected, and a log rolling many times a
    // second would otherwise sync the same segments again and again.
    const auto covered = std::max(recovery_point_, sync_requested_up_to_);
    sync_requested_up_to_ = new_base;
    SyncRequest request;
    request.dir = dir_;
    for (auto it = segments_.begin(); it != segments_.end() && it->first < new_base; ++it) {
        auto next = std::next(it);
        if (next->first <= covered) continue;
        request.files.push_back(it->second.log_file());
        for (auto& path : it->second.index_paths()) request.paths.push_back(std::move(path));
    }
    request.paths.push_back(dir_ / segment_file_name(new_base, kProducerSnapshotSuffix));
    last_flush_ms_ = clock_();
    unflushed_messages_ = 0;
    if (sync_hook_) {
        sync_hook_(std::move(request), new_base, truncations_);
        return;
    }
    request.run();
    synced_up_to(new_base, truncations_);
}

void PartitionLog::synced_up_to(std::int64_t up_to, std::uint64_t generation) {
    if (state_ != State::open || generation != truncations_ || up_to <= recovery_point_) return;
    recovery_point_ = std::min(up_to, log_end_offset_);
    notify_checkpoint(CheckpointNeed::soon);
}

void PartitionLog::flush_up_to(std::int64_t offset, Durability durability) {
    if (offset > recovery_point_) {
        for (auto it = segments_.begin(); durability == Durability::now && it != segments_.end() && it->first < offset;
             ++it) {
            auto next = std::next(it);
            if (next != segments_.end() && next->first <= recovery_point_) continue;
            it->second.flush();
        }
        recovery_point_ = offset;
        notify_checkpoint(CheckpointNeed::soon);
    }
    last_flush_ms_ = clock_();
    unflushed_messages_ = 0;
}

void PartitionLog::flush(Durability durability) {
    ensure_open();
    flush_up_to(log_end_offset_, durability);
}

void PartitionLog::flush_if_due() {
    if (state_ != State::open) return;
    if (clock_() - last_flush_ms_ >= config_.flush_interval_ms) flush();
}

ReadResult PartitionLog::read(std::int64_t offset, const ReadOptions& options) const {
    ReadResult r;
    if (state_ == State::deleted) {
        r.error = ErrorCode::unknown_topic_or_partition;
        return r;
    }
    if (state_ == State::closed) {
        r.error = ErrorCode::kafka_storage_error;
        return r;
    }
    r.log_start_offset = log_start_offset_;
    r.log_end_offset = log_end_offset_;
    if (offset < log_start_offset_ || offset > log_end_offset_) {
        r.error = ErrorCode::offset_out_of_range;
        return r;
    }
    auto max_offset = std::min(options.max_offset, log_end_offset_);
    if (offset >= max_offset) return r;
    auto it = segments_.upper_bound(offset);
    if (it != segments_.begin()) --it;
    try {
        for (; it != segments_.end(); ++it) {
            auto next = std::next(it);
            auto segment_end = next == segments_.end() ? log_end_offset_ : next->first;
            std::optional<std::int64_t> bound;
            if (max_offset < segment_end) bound = max_offset;
            if (auto slice = it->second.slice(offset, options.max_bytes, bound, options.min_one_batch)) {
                if (slice->length == 0) break;
                r.next_offset = slice->next_offset;
                // Smaller reads are copied into the answer anyway; a region
                // would only hold a descriptor until then, one per partition
                // of the Fetch (past the open-files budget and the fd limit).
                if (options.zero_copy && slice->length >= wire::kMinSplicedBytes) {
                    auto file = it->second.log_file();
                    r.region = wire::FileRegion{file->fd(), slice->position, slice->length, std::move(file)};
                } else {
                    r.records = it->second.read(*slice);
                }
                break;
            }
            if (bound) break;
        }
    } catch (const CorruptLogError& e) {
        r.records.clear();
        r.region.reset();
        r.next_offset = -1;
        r.error = ErrorCode::corrupt_message;
        // Consumers retry at once: one line per partition a minute is enough.
        auto now = std::chrono::steady_clock::now();
        if (now - last_corruption_log_ >= std::chrono::minutes(1)) {
            logging::error("{}: reading offset {}: {}", partition_dir_name(tp_), offset, e.what());
            last_corruption_log_ = now;
        }
    }
    return r;
}

std::optional<FoundRecord> PartitionLog::offset_for_timestamp(std::int64_t timestamp) const {
    auto it = segments_.upper_bound(log_start_offset_);
    if (it != segments_.begin()) --it;
    for (; it != segments_.end(); ++it) {
        if (it->second.max_timestamp() < timestamp) continue;
        if (auto found = it->second.find_offset_by_timestamp(timestamp, log_start_offset_)) return found;
    }
    return std::nullopt;
}

std::optional<FoundRecord> PartitionLog::max_timestamp() const {
    const Segment* best = nullptr;
    for (const auto& [base, segment] : segments_)
        if (segment.max_timestamp() >= 0 && (!best || segment.max_timestamp() > best->max_timestamp())) best = &segment;
    if (!best) return std::nullopt;
    return best->find_max_timestamp();
}

void PartitionLog::append_aborted_txn(const AbortedTxn& txn) {
    ensure_open();
    auto it = segments_.upper_bound(txn.last_offset);
    if (it == segments_.begin()) throw StorageError("no segment holds offset " + std::to_string(txn.last_offset));
    std::prev(it)->second.append_aborted_txn(txn);
}

std::vector<AbortedTxn> PartitionLog::collect_aborted_txns(std::int64_t fetch_offset, std::int64_t upper_bound) const {
    std::vector<AbortedTxn> out;
    if (state_ != State::open) return out;
    auto it = segments_.upper_bound(fetch_offset);
    if (it != segments_.begin()) --it;
    for (; it != segments_.end(); ++it)
        if (it->second.txn_index().collect(fetch_offset, upper_bound, out)) break;
    return out;
}

void PartitionLog::truncate_txn_indexes(std::int64_t offset) {
    ensure_open();
    auto it = segments_.upper_bound(offset);
    if (it != segments_.begin()) --it;
    for (; it != segments_.end(); ++it) it->second.truncate_txn_index(offset);
}

template <typename Pred>
std::size_t PartitionLog::delete_old_segments(Pred predicate) {
    std::size_t deleted = 0;
    while (segments_.size() > 1) {
        auto it = segments_.begin();
        if (!predicate(it->second, std::next(it)->first)) break;
        it->second.remove();
        segments_.erase(it);
        ++deleted;
    }
    if (deleted > 0) ++segments_generation_;
    if (deleted > 0 && segments_.begin()->first > log_start_offset_) set_log_start_offset(segments_.begin()->first);
    return deleted;
}

void PartitionLog::set_log_start_offset(std::int64_t offset) {
    log_start_offset_ = offset;
    notify_checkpoint(CheckpointNeed::now);
}

ErrorCode PartitionLog::delete_records_before(std::int64_t offset) {
    ensure_open();
    if (offset < 0 || offset > log_end_offset_) return ErrorCode::offset_out_of_range;
    if (offset <= log_start_offset_) return ErrorCode::none;
    set_log_start_offset(offset);
    delete_old_segments([&](const Segment&, std::int64_t next_base) { return next_base <= log_start_offset_; });
    return ErrorCode::none;
}

std::size_t PartitionLog::enforce_retention(std::int64_t high_watermark) {
    if (state_ != State::open) return 0;
    auto now = clock_();
    std::size_t deleted =
        delete_old_segments([&](const Segment&, std::int64_t next_base) { return next_base <= log_start_offset_; });
    // A compact-only log keeps its history for the cleaner (Kafka's
    // UnifiedLog.deleteOldSegments). Like Kafka, only data below the high
    // watermark is eligible.
    if (!config_.cleanup_delete) return deleted;
    if (config_.retention_ms >= 0) {
        deleted += delete_old_segments([&](const Segment& s, std::int64_t next_base) {
            return next_base <= high_watermark && now - s.largest_timestamp() > config_.retention_ms;
        });
    }
    if (config_.retention_bytes >= 0) {
        auto excess = static_cast<std::int64_t>(size_bytes()) - config_.retention_bytes;
        deleted += delete_old_segments([&](const Segment& s, std::int64_t next_base) {
            auto size = static_cast<std::int64_t>(s.size());
            if (next_base > high_watermark || excess - size < 0) return false;
            excess -= size;
            return true;
        });
    }
    return deleted;
}

void PartitionLog::truncate_to(std::int64_t offset) {
    ensure_open();
    if (offset >= log_end_offset_) return;
    ++segments_generation_;
    ++truncations_;
    sync_requested_up_to_ = std::min(sync_requested_up_to_, offset);
    if (offset < log_start_offset_ || offset <= segments_.begin()->first) {
        truncate_fully_and_start_at(offset);
        return;
    }
    while (segments_.size() > 1 && std::prev(segments_.end())->first >= offset) {
        auto victim = std::prev(segments_.end());
        victim->second.remove();
        segments_.erase(victim);
    }
    auto& segment = active();
    if (segment.translate_offset(offset)) {
        segment.truncate_to(offset);
    } else {
        segment.load_tail();  // nothing to cut; was a middle segment, learn its end
        segment.truncate_txn_index(offset);
    }
    segment.make_active();
    log_end_offset_ = segment.next_offset();
    if (recovery_point_ > log_end_offset_) {
        recovery_point_ = log_end_offset_;
        notify_checkpoint(CheckpointNeed::soon);
    }
}

void PartitionLog::truncate_fully_and_start_at(std::int64_t offset) {
    ensure_open();
    ++segments_generation_;
    ++truncations_;
    sync_requested_up_to_ = offset;
    for (auto& [base, segment] : segments_) segment.remove();
    segments_.clear();
    Segment segment(dir_, offset, segment_options(), clock_());
    segment.make_active();
    segments_.emplace(offset, std::move(segment));
    log_end_offset_ = offset;
    log_start_offset_ = offset;
    recovery_point_ = offset;
    notify_checkpoint(CheckpointNeed::now);
}

void PartitionLog::close() {
    if (state_ != State::open) return;
    for (auto& [base, segment] : segments_) segment.close();
    state_ = State::closed;
}

void PartitionLog::release() noexcept {
    for (auto& [base, segment] : segments_) segment.release();
    if (state_ == State::open) state_ = State::closed;
}

void PartitionLog::move_to_budget(const std::shared_ptr<OpenFiles>& budget) noexcept {
    open_files_ = budget;
    for (auto& [base, segment] : segments_) segment.move_to_budget(budget);
}

void PartitionLog::mark_deleted() noexcept {
    ++segments_generation_;
    release();
    segments_.clear();
    state_ = State::deleted;
}

void PartitionLog::replace_segments(std::span<const std::int64_t> old_bases, CleanedSegment cleaned) {
    ensure_open();
    if (old_bases.empty() || old_bases.front() != cleaned.base_offset())
        throw StorageError("cleaned segment " + std::to_string(cleaned.base_offset()) + " does not start its group");
    for (auto base : old_bases)
        if (!segments_.contains(base) || base == segments_.rbegin()->first)
            throw StorageError("segment " + std::to_string(base) + " of " + partition_dir_name(tp_) +
                               " cannot be replaced");
    cleaned.mark_swap();
    ++segments_generation_;
    for (auto base : old_bases) {
        auto it = segments_.find(base);
        it->second.remove();
        segments_.erase(it);
    }
    // The removals must be durable before the replacement takes its final
    // name, or a crash could leave it beside old segments it overlaps.
    sync_dir(dir_);
    cleaned.install();
    auto base = cleaned.base_offset();
    Segment segment(dir_, base, segment_options(), clock_());
    if (!segment.load_tail()) segment.recover();
    segment.make_inactive();
    segments_.emplace(base, std::move(segment));
}

std::uint64_t PartitionLog::size_bytes() const {
    std::uint64_t total = 0;
    for (const auto& [base, segment] : segments_) total += segment.size();
    return total;
}

std::vector<std::int64_t> PartitionLog::segment_base_offsets() const {
    std::vector<std::int64_t> out;
    for (const auto& [base, segment] : segments_) out.push_back(base);
    return out;
}

void PartitionLog::notify_checkpoint(CheckpointNeed need) const {
    if (checkpoint_hook_) checkpoint_hook_(need);
}

void PartitionLog::ensure_open() const {
    if (state_ != State::open) throw StorageError("partition log " + partition_dir_name(tp_) + " is not open");
}

}  // namespace weir::storage
