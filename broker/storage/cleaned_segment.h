#pragma once
// The segment a cleaning writes to replace a group of segments, and the
// crash-safe swap that puts it in their place (Kafka's LogCleaner +
// UnifiedLog.replaceSegments):
//   1. `<base>.log.cleaned`, `.index.cleaned`, `.timeindex.cleaned` (and
//      `.txnindex.cleaned` when the group had aborted transactions) are
//      written and fsynced (a crash here: recovery deletes them, the old
//      segments stand);
//   2. they are renamed to `.swap`, the `.log` last, and the dir fsynced: from
//      then on recovery completes the swap (PartitionLog::load);
//   3. the old segments are deleted (dir fsynced) and the `.swap` files take
//      the final names.
// The indexes are built while appending, as Segment builds them.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string_view>

#include "broker/storage/file.h"
#include "broker/storage/offset_index.h"
#include "broker/storage/segment.h"
#include "broker/storage/sync_request.h"
#include "broker/storage/time_index.h"
#include "broker/storage/txn_index.h"

namespace weir::storage {

inline constexpr std::string_view kCleanedSuffix = ".cleaned";
inline constexpr std::string_view kSwapSuffix = ".swap";

class CleanedSegment {
public:
    // Starts `<base>.*.cleaned` from empty (a leftover of an aborted cleaning is overwritten).
    CleanedSegment(std::filesystem::path dir, std::int64_t base_offset, SegmentOptions options);
    CleanedSegment(CleanedSegment&& other) noexcept;
    CleanedSegment& operator=(CleanedSegment&&) = delete;
    CleanedSegment(const CleanedSegment&) = delete;
    CleanedSegment& operator=(const CleanedSegment&) = delete;
    // Deletes the `.cleaned` files if the swap has not begun.
    ~CleanedSegment();

    [[nodiscard]] std::int64_t base_offset() const { return base_offset_; }
    [[nodiscard]] std::uint64_t size() const { return size_; }

    // Appends one whole batch (offsets at or above the base, increasing).
    void append(std::span<const std::uint8_t> batch);
    // The replaced segments' aborted transactions, in order (the cleaner
    // keeps every marker and transaction data is never removed before its
    // marker, so they all still describe the cleaned data). Before finish().
    void add_aborted_txns(std::span<const AbortedTxn> txns);
    // Final time index entry, indexes trimmed, everything fsynced; the .log
    // gets `mtime` (Kafka keeps the last replaced segment's, which
    // retention.ms falls back to when batches carry no timestamps).
    void finish(std::optional<std::filesystem::file_time_type> mtime);
    // finish() but for its fsyncs, which the returned request does (on any
    // thread) and which must be done before mark_swap().
    [[nodiscard]] SyncRequest complete(std::optional<std::filesystem::file_time_type> mtime);
    // Step 2: `.cleaned` -> `.swap`, then the dir is fsynced.
    void mark_swap();
    // Step 3's renames: `.swap` -> the segment's own names. The old segment
    // files with this base must be gone.
    void install();
    // Deletes the `.cleaned` files; no-op once mark_swap() has run.
    void discard() noexcept;

    [[nodiscard]] std::filesystem::path path(std::string_view segment_suffix, std::string_view stage) const;

private:
    enum class Stage { writing, finished, swapped, installed, discarded };

    void rename_all(std::string_view from, std::string_view to);

    std::filesystem::path dir_;
    std::int64_t base_offset_;
    SegmentOptions options_;
    File log_;
    std::optional<OffsetIndex> offset_index_;
    std::optional<TimeIndex> time_index_;
    std::optional<TxnIndex> txn_index_;
    std::uint64_t size_ = 0;
    std::int64_t max_timestamp_ = -1;
    std::int64_t offset_of_max_timestamp_ = -1;
    std::uint64_t bytes_since_last_index_entry_ = 0;
    Stage stage_ = Stage::writing;
};

}  // namespace weir::storage
