#pragma once
// `.txnindex`: the transactions aborted in a segment (Kafka's
// TransactionIndex and AbortedTxn), one entry per ABORT marker that ended a
// transaction with data in the partition, in marker order. read_committed
// fetches collect the entries overlapping what they return so that
// consumers drop the aborted records. Entry (34 bytes, big-endian):
//   version int16 (0) | producerId int64 | firstOffset int64 |
//   lastOffset int64 (the marker) | lastStableOffset int64
// As in Kafka the file exists only once a segment has an entry. Entries are
// few (one per aborted transaction), so they are also kept in memory; the
// file is written through and fsynced with its segment.
#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

namespace weir::storage {

struct AbortedTxn {
    std::int64_t producer_id = -1;
    std::int64_t first_offset = -1;
    std::int64_t last_offset = -1;
    // Where read_committed consumers could read up to once it was decided:
    // a search that reaches an entry with this at or past its upper bound
    // needs no later segment.
    std::int64_t last_stable_offset = -1;
    bool operator==(const AbortedTxn&) const = default;
};

class TxnIndex {
public:
    static constexpr std::size_t kEntrySize = 34;

    // Reads the file if it exists; a torn last entry (a crash mid-append)
    // is cut off. Throws StorageError on I/O failure.
    TxnIndex(std::filesystem::path path, std::size_t max_bytes);

    [[nodiscard]] const std::filesystem::path& path() const { return path_; }
    [[nodiscard]] const std::vector<AbortedTxn>& entries() const { return entries_; }
    // The cap other indexes have (segment.index.bytes): the segment rolls
    // before a write could take it past.
    [[nodiscard]] bool full() const { return entries_.size() >= max_entries_; }
    // Entries must come in marker order (Kafka refuses the same); throws
    // StorageError otherwise or on I/O failure.
    void append(const AbortedTxn& txn);
    // Drops entries whose marker is at or after `offset`.
    void truncate_to(std::int64_t offset);
    // Kafka's collectAbortedTxns: the entries with data at or after
    // `fetch_offset` and before `upper_bound` go to `out`; true when an
    // entry shows that later segments hold none (its last stable offset is
    // at or past the bound).
    bool collect(std::int64_t fetch_offset, std::int64_t upper_bound, std::vector<AbortedTxn>& out) const;
    void flush() const;
    // Deletes the file (its segment is gone).
    void remove();

    static void encode(const AbortedTxn& txn, std::uint8_t* out);
    static AbortedTxn decode(const std::uint8_t* in);

private:
    void rewrite() const;

    std::filesystem::path path_;
    std::size_t max_entries_;
    std::vector<AbortedTxn> entries_;
    mutable bool dirty_ = false;
};

}  // namespace weir::storage
