#include "broker/storage/time_index.h"

#include <limits>
#include <string>

#include "broker/storage/log_error.h"

namespace weir::storage {

void TimeIndex::maybe_append(std::int64_t timestamp, std::int64_t offset, bool skip_full_check) {
    if (full() && !skip_full_check) throw StorageError("time index full: " + path().string());
    auto last = last_entry();
    if (entries() > 0 && offset < last.offset)
        throw StorageError("decreasing time index offset " + std::to_string(offset) + " in " + path().string());
    // Kafka's TimeIndex compares with {-1, base} when empty too, so batches
    // without timestamps (-1) never make an entry.
    if (timestamp <= last.timestamp) return;
    if (full()) return;  // skip_full_check: nowhere to put it; lookups stay correct, only coarser
    auto relative = offset - base_offset();
    if (relative < 0 || relative > std::numeric_limits<std::int32_t>::max())
        throw StorageError("offset " + std::to_string(offset) + " out of range for " + path().string());
    std::uint8_t e[kEntrySize];
    be::put64(e, static_cast<std::uint64_t>(timestamp));
    be::put32(e + 8, static_cast<std::uint32_t>(relative));
    push(e);
}

TimestampOffset TimeIndex::entry(std::size_t i) const {
    const auto* p = entry_ptr(i);
    return {static_cast<std::int64_t>(be::get64(p)), base_offset() + static_cast<std::int32_t>(be::get32(p + 8))};
}

TimestampOffset TimeIndex::last_entry() const {
    if (entries() == 0) return {-1, base_offset()};
    return entry(entries() - 1);
}

TimestampOffset TimeIndex::lookup(std::int64_t target) const {
    std::size_t lo = 0, hi = entries();
    while (lo < hi) {
        auto mid = lo + (hi - lo) / 2;
        if (entry(mid).timestamp <= target)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0) return {-1, base_offset()};
    return entry(lo - 1);
}

void TimeIndex::truncate_to(std::int64_t offset) {
    std::size_t lo = 0, hi = entries();
    while (lo < hi) {
        auto mid = lo + (hi - lo) / 2;
        if (entry(mid).offset < offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    truncate_entries(lo);
}

bool TimeIndex::sanity_check() const {
    if (!length_was_valid()) return false;
    if (entries() == 0) return true;
    auto first = entry(0);
    auto last = entry(entries() - 1);
    if (first.offset < base_offset()) return false;
    if (entries() > 1 && (last.timestamp <= first.timestamp || last.offset < first.offset)) return false;
    return true;
}

}  // namespace weir::storage
