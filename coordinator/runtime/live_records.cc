#include "coordinator/runtime/live_records.h"

#include <algorithm>

namespace weir::coordinator::runtime {

void LiveRecords::apply(wire::ByteSpan key_bytes, std::optional<wire::ByteSpan> value, TimeMs timestamp,
                        std::int64_t offset) {
    std::string key(key_bytes.begin(), key_bytes.end());
    total_bytes_ += record_size(key.size(), value ? value->size() : 0);
    if (!oldest_) oldest_ = timestamp;
    if (auto it = live_.find(key); it != live_.end()) {
        live_bytes_ -= record_size(key.size(), it->second.value.size());
        live_.erase(it);
    }
    if (auto it = tombstones_.find(key); it != tombstones_.end()) {
        live_bytes_ -= record_size(key.size(), 0);
        tombstones_.erase(it);
    }
    if (value) {
        live_bytes_ += record_size(key.size(), value->size());
        live_.emplace(std::move(key), Entry{wire::Bytes(value->begin(), value->end()), offset});
    } else {
        live_bytes_ += record_size(key.size(), 0);
        tombstones_.emplace(std::move(key), Tombstone{timestamp, offset});
    }
}

void LiveRecords::apply_transactional(std::int64_t producer_id, wire::ByteSpan key, std::optional<wire::ByteSpan> value,
                                      TimeMs timestamp, std::int64_t offset) {
    auto& pending = open_[producer_id];
    pending.push_back({std::string(key.begin(), key.end()),
                       value ? std::optional<wire::Bytes>(wire::Bytes(value->begin(), value->end())) : std::nullopt,
                       offset});
    // Counted now, as it is in the log now; superseded (dirty) if it aborts.
    total_bytes_ += record_size(key.size(), value ? value->size() : 0);
    if (!oldest_) oldest_ = timestamp;
}

void LiveRecords::end_transaction(std::int64_t producer_id, bool commit, TimeMs timestamp) {
    auto node = open_.extract(producer_id);
    if (node.empty() || !commit) return;
    for (const auto& r : node.mapped()) {
        if (auto it = live_.find(r.key); it != live_.end() && it->second.offset > r.offset) continue;
        if (auto it = tombstones_.find(r.key); it != tombstones_.end() && it->second.offset > r.offset) continue;
        const auto bytes = record_size(r.key.size(), r.value ? r.value->size() : 0);
        // apply() counts the record again; it was counted when it was written.
        auto key = wire::ByteSpan(reinterpret_cast<const std::uint8_t*>(r.key.data()), r.key.size());
        apply(key, r.value ? std::optional<wire::ByteSpan>(wire::ByteSpan(*r.value)) : std::nullopt, timestamp,
              r.offset);
        total_bytes_ -= bytes;
    }
}

double LiveRecords::dirty_ratio() const {
    if (total_bytes_ == 0) return 0.0;
    auto live = std::min(live_bytes_, total_bytes_);
    return static_cast<double>(total_bytes_ - live) / static_cast<double>(total_bytes_);
}

bool LiveRecords::should_compact(TimeMs now, const CompactionPolicy& policy) const {
    if (total_bytes_ == 0 || has_open_transactions()) return false;
    if (total_bytes_ >= policy.min_dirty_bytes && total_bytes_ > live_bytes_ &&
        dirty_ratio() >= policy.min_cleanable_dirty_ratio)
        return true;
    // Time-based retention must never reach live data: rewrite it well before.
    return policy.retention_ms >= 0 && oldest_ && now - *oldest_ >= policy.retention_ms / 2;
}

std::vector<KeyValue> LiveRecords::snapshot(TimeMs now, std::int64_t delete_retention_ms) {
    std::vector<KeyValue> out;
    out.reserve(live_.size() + tombstones_.size());
    for (const auto& [key, entry] : live_) out.push_back({wire::Bytes(key.begin(), key.end()), entry.value});
    for (auto it = tombstones_.begin(); it != tombstones_.end();) {
        if (now - it->second.deleted >= delete_retention_ms) {
            live_bytes_ -= record_size(it->first.size(), 0);
            it = tombstones_.erase(it);
        } else {
            out.push_back({wire::Bytes(it->first.begin(), it->first.end()), std::nullopt});
            ++it;
        }
    }
    return out;
}

void LiveRecords::compacted(TimeMs now) {
    total_bytes_ = live_bytes_;
    oldest_ = total_bytes_ > 0 ? std::optional<TimeMs>(now) : std::nullopt;
}

}  // namespace weir::coordinator::runtime
