#include "broker/storage/offset_index.h"

#include <limits>
#include <string>

#include "broker/storage/log_error.h"

namespace weir::storage {

void OffsetIndex::append(std::int64_t offset, std::uint32_t position) {
    auto relative = offset - base_offset();
    if (relative < 0 || relative > std::numeric_limits<std::int32_t>::max())
        throw StorageError("offset " + std::to_string(offset) + " out of range for index " + path().string());
    if (auto last = last_entry(); last && (offset <= last->offset || position <= last->position))
        throw StorageError("non-increasing offset index entry " + std::to_string(offset) + " in " + path().string());
    std::uint8_t e[kEntrySize];
    be::put32(e, static_cast<std::uint32_t>(relative));
    be::put32(e + 4, position);
    push(e);
}

OffsetPosition OffsetIndex::entry(std::size_t i) const {
    const auto* p = entry_ptr(i);
    return {base_offset() + static_cast<std::int32_t>(be::get32(p)), be::get32(p + 4)};
}

std::optional<OffsetPosition> OffsetIndex::last_entry() const {
    if (entries() == 0) return std::nullopt;
    return entry(entries() - 1);
}

namespace {

// How many leading entries `holds` is true for: entries grow in both offset
// and position, so a bound on either holds for a prefix (binary search).
template <typename Pred>
std::size_t prefix_length(const OffsetIndex& index, Pred holds) {
    std::size_t lo = 0, hi = index.entries();
    while (lo < hi) {
        auto mid = lo + (hi - lo) / 2;
        if (holds(index.entry(mid)))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

}  // namespace

OffsetPosition OffsetIndex::lookup(std::int64_t target) const {
    auto n = prefix_length(*this, [target](const OffsetPosition& e) { return e.offset <= target; });
    if (n == 0) return {base_offset(), 0};
    return entry(n - 1);
}

std::uint32_t OffsetIndex::position_floor(std::uint64_t position) const {
    auto n = prefix_length(*this, [position](const OffsetPosition& e) { return e.position <= position; });
    return n == 0 ? 0 : entry(n - 1).position;
}

void OffsetIndex::truncate_to(std::int64_t offset) {
    truncate_entries(prefix_length(*this, [offset](const OffsetPosition& e) { return e.offset < offset; }));
}

bool OffsetIndex::sanity_check(std::uint64_t log_size) const {
    if (!length_was_valid()) return false;
    if (entries() == 0) return true;
    auto first = entry(0);
    auto last = entry(entries() - 1);
    if (be::get32(entry_ptr(0)) > static_cast<std::uint32_t>(std::numeric_limits<std::int32_t>::max())) return false;
    if (entries() > 1 && (last.offset <= first.offset || last.position <= first.position)) return false;
    return last.position < log_size;
}

}  // namespace weir::storage
