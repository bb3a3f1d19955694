// A partition's offset lookups: ListOffsets (by timestamp, and v0's legacy
// segment list) and OffsetForLeaderEpoch.
#include <algorithm>
#include <chrono>

#include "broker/partitions/partition.h"
#include "broker/storage/partition_log.h"

namespace weir::partitions {

namespace {

std::int64_t now_ms() {
    using namespace std::chrono;
    return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

std::optional<TimestampAndOffset> from_storage(const std::optional<storage::FoundRecord>& found) {
    if (!found) return std::nullopt;
    return TimestampAndOffset{found->offset, found->timestamp, found->leader_epoch};
}

}  // namespace

OffsetForTimestamp Partition::fetch_offset_for_timestamp(std::int64_t timestamp, FetchIsolation isolation,
                                                         std::int32_t current_leader_epoch,
                                                         bool fetch_only_from_leader) const {
    OffsetForTimestamp result;
    result.error = check_leader(current_leader_epoch, fetch_only_from_leader);
    if (result.error != ErrorCode::none) return result;
    const auto last_fetchable = fetchable_end(isolation);
    auto& found = result.found;
    try {
        switch (timestamp) {
            case kLatestTimestamp:
                found = TimestampAndOffset{last_fetchable, -1, leader_epoch_};
                break;
            case kEarliestTimestamp:
            case kEarliestLocalTimestamp:
                found = TimestampAndOffset{log_->log_start_offset(), -1, leader_epoch_};
                break;
            case kLatestTieredTimestamp:
                found = TimestampAndOffset{-1, -1, -1};
                break;  // no tiered storage
            case kMaxTimestamp:
                found = from_storage(log_->max_timestamp());
                break;
            default:
                found = from_storage(log_->offset_for_timestamp(timestamp));
                break;
        }
    } catch (const storage::StorageError& e) {
        log_->io_failed(e);
        return {ErrorCode::kafka_storage_error, std::nullopt};
    }
    if (found && timestamp != kLatestTimestamp && timestamp != kEarliestTimestamp &&
        timestamp != kEarliestLocalTimestamp && found->offset >= last_fetchable)
        found.reset();
    // A batch without an epoch (-1, as producers send them) takes the current one.
    if (found && found->leader_epoch < 0 && timestamp != kLatestTieredTimestamp) found->leader_epoch = leader_epoch_;
    return result;
}

// UnifiedLog.legacyFetchOffsetsBefore: one entry per segment (its base
// offset) plus the log end if the active segment holds data, newest first.
// Kafka picks the entries whose segment file was last modified at or before
// the timestamp; Weir uses the record timestamps instead (a segment's last
// write is its newest record).
LegacyOffsets Partition::legacy_offsets_for_timestamp(std::int64_t timestamp, std::int32_t max_num, bool from_consumer,
                                                      bool fetch_only_from_leader) const {
    LegacyOffsets result;
    result.error = check_leader(kNoLeaderEpoch, fetch_only_from_leader);
    if (result.error != ErrorCode::none) return result;
    std::vector<std::int64_t> entries;
    const auto bases = log_->segment_base_offsets();
    const auto log_start = log_->log_start_offset();
    const auto log_end = log_->log_end_offset();
    for (auto base : bases) entries.push_back(std::max(base, log_start));
    const bool active_has_data = !bases.empty() && log_end > bases.back();
    if (active_has_data) entries.push_back(log_end);

    auto start = static_cast<std::int64_t>(entries.size()) - 1;
    try {
        if (timestamp == kEarliestTimestamp) {
            start = 0;
        } else if (timestamp != kLatestTimestamp) {
            if (auto found = log_->offset_for_timestamp(timestamp)) {
                // Segments before the one holding the match ended before `timestamp`.
                auto segment = std::upper_bound(bases.begin(), bases.end(), found->offset) - bases.begin() - 1;
                start = static_cast<std::int64_t>(segment) - 1;
            } else if (active_has_data && now_ms() > timestamp) {
                start -= 1;  // the log end entry stands for "now"
            }
        }
    } catch (const storage::StorageError& e) {
        log_->io_failed(e);
        return {ErrorCode::kafka_storage_error, {}};
    }
    const auto count = std::min<std::int64_t>(max_num, start + 1);
    auto& out = result.offsets;
    for (std::int64_t i = 0; i < count; ++i) out.push_back(entries[static_cast<std::size_t>(start - i)]);
    std::sort(out.begin(), out.end(), std::greater<>());
    if (from_consumer) {
        // Partition.legacyFetchOffsetsForTimestamp: consumers never see past the high watermark.
        const auto hw = high_watermark();
        if (std::any_of(out.begin(), out.end(), [&](auto o) { return o > hw; })) {
            std::erase_if(out, [&](auto o) { return o > hw; });
            out.insert(out.begin(), hw);
        }
    }
    return result;
}

// LeaderEpochFileCache.endOffsetFor, over the in-memory epoch history.
EpochEndOffset Partition::last_offset_for_leader_epoch(std::int32_t current_leader_epoch, std::int32_t leader_epoch,
                                                       bool fetch_only_from_leader) const {
    EpochEndOffset result;
    result.error = check_leader(current_leader_epoch, fetch_only_from_leader);
    if (result.error != ErrorCode::none || leader_epoch < 0 || epoch_starts_.empty()) return result;  // undefined
    if (leader_epoch >= epoch_starts_.back().first) {
        result.leader_epoch = epoch_starts_.back().first;
        result.end_offset = log_->log_end_offset();
        return result;
    }
    // The largest epoch <= the one asked for ends where the next one starts.
    auto next = std::upper_bound(epoch_starts_.begin(), epoch_starts_.end(), leader_epoch,
                                 [](std::int32_t epoch, const auto& entry) { return epoch < entry.first; });
    if (next == epoch_starts_.begin()) return result;  // older than any epoch known
    result.leader_epoch = std::prev(next)->first;
    result.end_offset = next->second;
    return result;
}

}  // namespace weir::partitions
