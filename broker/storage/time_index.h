#pragma once
// `.timeindex`: sparse map from timestamp to offset. Entry (12 bytes,
// big-endian): 8-byte timestamp, 4-byte offset relative to the segment base.
// An entry (t, o) means "batches up to offset o have timestamps <= t"; entries
// are only added when the segment's max timestamp grows.
#include <optional>

#include "broker/storage/index_file.h"

namespace weir::storage {

struct TimestampOffset {
    std::int64_t timestamp = -1;
    std::int64_t offset = -1;
    bool operator==(const TimestampOffset&) const = default;
};

class TimeIndex : public IndexFile {
public:
    static constexpr std::size_t kEntrySize = 12;

    TimeIndex(const std::filesystem::path& path, std::int64_t base_offset, std::size_t max_bytes,
              std::shared_ptr<OpenFiles> budget = nullptr)
        : IndexFile(path, base_offset, kEntrySize, max_bytes, std::move(budget)) {}

    // Appends only if `timestamp` exceeds the last entry's (or -1 when empty). Unless
    // `skip_full_check`, a full index is an error (the segment should have rolled).
    void maybe_append(std::int64_t timestamp, std::int64_t offset, bool skip_full_check = false);
    // Largest entry with timestamp <= target, or {-1, base_offset} if none.
    [[nodiscard]] TimestampOffset lookup(std::int64_t target) const;
    [[nodiscard]] TimestampOffset entry(std::size_t i) const;
    // Last entry, or {-1, base_offset} if empty.
    [[nodiscard]] TimestampOffset last_entry() const;
    // Drops entries with offset >= `offset`.
    void truncate_to(std::int64_t offset);
    [[nodiscard]] bool sanity_check() const;
};

}  // namespace weir::storage
