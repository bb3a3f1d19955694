#pragma once
// `.index`: sparse map from offset to file position in the segment's .log.
// Entry (8 bytes, big-endian): 4-byte offset relative to the segment base,
// 4-byte position. As in Kafka the offset is a batch's last offset and the
// position that batch's start; lookups binary search for the largest entry
// <= target and the caller scans forward from its position.
#include <optional>

#include "broker/storage/index_file.h"

namespace weir::storage {

struct OffsetPosition {
    std::int64_t offset = 0;
    std::uint32_t position = 0;
    bool operator==(const OffsetPosition&) const = default;
};

class OffsetIndex : public IndexFile {
public:
    static constexpr std::size_t kEntrySize = 8;

    OffsetIndex(const std::filesystem::path& path, std::int64_t base_offset, std::size_t max_bytes,
                std::shared_ptr<OpenFiles> budget = nullptr)
        : IndexFile(path, base_offset, kEntrySize, max_bytes, std::move(budget)) {}

    // Offsets must increase; throws StorageError otherwise or when full.
    void append(std::int64_t offset, std::uint32_t position);
    // Largest entry with offset <= target, or {base_offset, 0} if none.
    [[nodiscard]] OffsetPosition lookup(std::int64_t target) const;
    // Largest entry position <= `position` (positions grow with offsets), or 0.
    [[nodiscard]] std::uint32_t position_floor(std::uint64_t position) const;
    [[nodiscard]] OffsetPosition entry(std::size_t i) const;
    [[nodiscard]] std::optional<OffsetPosition> last_entry() const;
    // Drops entries with offset >= `offset`.
    void truncate_to(std::int64_t offset);
    // Cheap checks Kafka also does (length, first and last entry); a failed
    // check means the index must be rebuilt from the log.
    [[nodiscard]] bool sanity_check(std::uint64_t log_size) const;
};

}  // namespace weir::storage
