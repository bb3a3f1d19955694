#pragma once
// One log segment: `<base>.log` (record batches back to back, exactly as
// stored), its sparse `.index` and `.timeindex`, and its `.txnindex` once a
// transaction aborts in it. Kafka's LogSegment.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "broker/storage/file.h"
#include "broker/storage/offset_index.h"
#include "broker/storage/open_files.h"
#include "broker/storage/time_index.h"
#include "broker/storage/txn_index.h"
#include "protocol/records/record_batch.h"

namespace weir::storage {

struct SegmentOptions {
    std::size_t index_max_bytes = 10 * 1024 * 1024;
    std::uint32_t index_interval_bytes = 4096;
    // Counts the .log's descriptor and the index mappings; none: kept open.
    std::shared_ptr<OpenFiles> open_files;
};

// Where one batch sits in the .log.
struct BatchLocation {
    std::int64_t base_offset = 0;
    std::int64_t last_offset = 0;
    std::uint32_t position = 0;
    std::uint32_t size = 0;
    std::int64_t max_timestamp = -1;
};

// Where the whole batches a read returns lie in the .log.
struct SegmentSlice {
    std::uint64_t position = 0;
    std::size_t length = 0;
    // Just past them: the last one's last offset + 1, or the first left
    // out's base offset (the upper bound of what a reader has seen).
    std::int64_t next_offset = -1;
};

// A record found by timestamp: its offset, timestamp and the batch's leader epoch.
struct FoundRecord {
    std::int64_t offset = -1;
    std::int64_t timestamp = -1;
    std::int32_t leader_epoch = -1;
    bool operator==(const FoundRecord&) const = default;
};

struct RollParams {
    std::int64_t segment_bytes = 0;
    std::int64_t segment_ms = 0;
    std::uint64_t messages_size = 0;
    std::int64_t max_timestamp_in_messages = -1;
    std::int64_t max_offset_in_messages = 0;
    std::int64_t now_ms = 0;
};

class Segment {
public:
    // Opens the segment's files, creating any that are missing. Nothing is
    // scanned: call recover() or load_tail() as the log's state requires.
    Segment(const std::filesystem::path& dir, std::int64_t base_offset, SegmentOptions options, std::int64_t now_ms);
    Segment(Segment&&) noexcept = default;
    Segment& operator=(Segment&&) noexcept = default;

    [[nodiscard]] std::int64_t base_offset() const { return base_offset_; }
    [[nodiscard]] std::uint64_t size() const { return size_; }
    // One past the last offset; known after create, recover() or load_tail().
    [[nodiscard]] std::int64_t next_offset() const { return next_offset_; }
    [[nodiscard]] std::int64_t max_timestamp() const { return max_timestamp_; }
    // Max timestamp, or the .log's mtime if no batch has one (retention.ms).
    [[nodiscard]] std::int64_t largest_timestamp() const;
    [[nodiscard]] const OffsetIndex& offset_index() const { return offset_index_; }
    // Its index files, for an fsync by path once the segment is inactive.
    [[nodiscard]] std::vector<std::filesystem::path> index_paths() const {
        return {offset_index_.path(), time_index_.path(), txn_index_.path()};
    }
    [[nodiscard]] const TimeIndex& time_index() const { return time_index_; }
    [[nodiscard]] const TxnIndex& txn_index() const { return txn_index_; }
    // An ABORT marker in this segment ended `txn` (Kafka's updateTxnIndex).
    void append_aborted_txn(const AbortedTxn& txn) { txn_index_.append(txn); }
    // Drops the aborted transactions whose marker is at or after `offset`.
    void truncate_txn_index(std::int64_t offset) { txn_index_.truncate_to(offset); }
    [[nodiscard]] const std::filesystem::path& log_path() const { return log_path_; }
    // The .log's descriptor (opened again if the budget closed it), shared
    // with answers sent from it (sendfile): they keep it open after the
    // segment is closed or deleted.
    [[nodiscard]] std::shared_ptr<const File> log_file() const { return log_->file(); }
    // Holds a descriptor now (not after the OpenFiles budget took it back).
    [[nodiscard]] bool log_open() const { return log_->is_open(); }

    // Checks whole batches (header and CRC) from `position`, at least one
    // and about `max_bytes`; what a background scrub reads. Never changes
    // the segment.
    struct Check {
        std::uint64_t next = 0;  // where the next check starts
        std::size_t batches = 0;
        bool done = false;                   // reached the end (or damage)
        std::optional<std::string> problem;  // damage found at `next`
    };
    [[nodiscard]] Check check(std::uint64_t position, std::size_t max_bytes) const;

    // Appends whole batches whose offsets are already assigned and follow
    // next_offset(); writes to the page cache (no fsync).
    void append(std::span<const std::uint8_t> batches);

    // First batch with last offset >= `offset`, scanning from the index's
    // lower bound (and no earlier than `starting_position`).
    [[nodiscard]] std::optional<BatchLocation> translate_offset(std::int64_t offset,
                                                                std::uint32_t starting_position = 0) const;
    // Where a read starting at the batch containing `offset` lies: whole
    // batches, at most `max_bytes` unless the first batch alone is larger and
    // `min_one_batch` (KIP-74), stopping before the batch containing
    // `max_offset` if given. nullopt if no batch here has last offset >=
    // `offset`. The first batch is read and its CRC checked (CorruptLogError):
    // a consumer stuck on a damaged batch gets CORRUPT_MESSAGE, not the same
    // bytes again; later batches are checked when a read starts at them.
    [[nodiscard]] std::optional<SegmentSlice> slice(std::int64_t offset, std::size_t max_bytes,
                                                    std::optional<std::int64_t> max_offset, bool min_one_batch) const;
    // The bytes of slice().
    [[nodiscard]] wire::Bytes read(const SegmentSlice& slice) const;
    // slice() and its bytes.
    [[nodiscard]] std::optional<wire::Bytes> read(std::int64_t offset, std::size_t max_bytes,
                                                  std::optional<std::int64_t> max_offset, bool min_one_batch) const;
    [[nodiscard]] wire::Bytes read_batch(const BatchLocation& location) const;

    // First record with timestamp >= `timestamp` and offset >= `starting_offset`.
    [[nodiscard]] std::optional<FoundRecord> find_offset_by_timestamp(std::int64_t timestamp,
                                                                      std::int64_t starting_offset) const;
    // The first record carrying this segment's max timestamp.
    [[nodiscard]] std::optional<FoundRecord> find_max_timestamp() const;

    [[nodiscard]] bool should_roll(const RollParams& params) const;

    // False if an index file was missing or fails its sanity check.
    [[nodiscard]] bool indexes_sane() const;
    // Full scan validating length, offsets and CRC of every batch; rebuilds
    // both offset and time indexes; truncates the .log at the first invalid
    // batch, and the transaction index to what is left. Returns the number of
    // bytes truncated. (The partition, which knows where transactions start,
    // rewrites the transaction index for the data it replays.)
    std::uint64_t recover();
    // For a cleanly closed segment: finds next_offset and the max timestamp by
    // scanning headers after the last index entry. False if the tail is
    // invalid (the caller should recover()).
    bool load_tail();
    // Removes batches from the one containing `offset` onwards; returns bytes removed.
    std::uint64_t truncate_to(std::int64_t offset);

    // Active: indexes preallocated. Inactive: final time index entry, trimmed.
    void make_active();
    void make_inactive();
    void flush();
    // Clean close (trims indexes). release() only drops handles and mappings,
    // leaving files as a killed process would.
    void close();
    void release() noexcept;
    void move_to_budget(const std::shared_ptr<OpenFiles>& budget) noexcept;
    void remove();

private:
    // The .log's descriptor, where the budget can find it (a stable address
    // while the Segment moves).
    class LogHandle final : public OpenFiles::Entry {
    public:
        LogHandle(std::shared_ptr<OpenFiles> budget, std::filesystem::path path);
        ~LogHandle() override { close(); }
        [[nodiscard]] bool is_open() const { return file_ != nullptr; }
        // Opens the file again if the budget closed it.
        const std::shared_ptr<File>& file();
        void close() noexcept;
        using Entry::move_to;

    private:
        void close_for_budget() noexcept override { file_.reset(); }
        std::filesystem::path path_;
        std::shared_ptr<File> file_;
    };

    // Held by whoever reads through it, so that the budget closing it meanwhile
    // (another file opening) only drops the segment's reference.
    [[nodiscard]] std::shared_ptr<File> log() const { return log_->file(); }
    // Read-ahead for a header scan from an index entry: the batches between
    // two entries in one read, not the start of a large batch's records.
    // Every fetch makes up to two such scans.
    [[nodiscard]] std::size_t header_scan_bytes() const {
        return std::min<std::size_t>(options_.index_interval_bytes + records::kBatchHeaderSize, 16 * 1024);
    }
    void index_batch(const records::BatchHeader& header, std::uint64_t position);
    // The time index entry for the max timestamp so far, batches up to `last_offset` being indexed.
    void append_time_index_entry(std::int64_t last_offset, bool skip_full_check);
    void load_rolling_timestamp();

    std::int64_t base_offset_;
    SegmentOptions options_;
    bool index_files_existed_;  // before the indexes, which create missing files
    std::filesystem::path log_path_;
    std::unique_ptr<LogHandle> log_;
    OffsetIndex offset_index_;
    TimeIndex time_index_;
    TxnIndex txn_index_;
    std::uint64_t size_ = 0;
    // Bytes from here on were appended by this process, whole batches whose
    // CRC was checked in memory before the write (a produce's validation, a
    // follower's append, batches the broker built itself). Only what it found
    // on disk can hold damage it has not seen, so only a read starting there
    // pays for reading and checking its first batch; every follower's fetch of
    // a fresh batch would otherwise copy it out of the page cache once more.
    std::uint64_t appended_from_ = 0;
    std::int64_t next_offset_;
    std::int64_t max_timestamp_ = -1;
    std::int64_t offset_of_max_timestamp_ = -1;
    std::uint64_t bytes_since_last_index_entry_ = 0;
    std::int64_t created_ms_ = 0;
    // Max timestamp of the first batch; time-based rolls measure from it.
    std::optional<std::int64_t> rolling_timestamp_;
};

}  // namespace weir::storage
