#include "broker/storage/segment.h"

#include <sys/stat.h>

#include <algorithm>
#include <limits>

#include "broker/storage/batch_scanner.h"
#include "broker/storage/log_error.h"
#include "broker/storage/log_names.h"

namespace weir::storage {
namespace {

constexpr std::size_t kRecoveryBuffer = 1024 * 1024;

bool index_files_exist(const std::filesystem::path& dir, std::int64_t base) {
    return std::filesystem::exists(dir / segment_file_name(base, kIndexSuffix)) &&
           std::filesystem::exists(dir / segment_file_name(base, kTimeIndexSuffix));
}

BatchLocation location_of(const ScannedBatch& b) {
    return {b.header.base_offset, b.header.last_offset(), static_cast<std::uint32_t>(b.position),
            static_cast<std::uint32_t>(b.size()), b.header.max_timestamp};
}

// Record timestamps honour LogAppendTime, which overrides every record's own.
std::int64_t record_timestamp(const records::BatchHeader& h, const records::Record& r) {
    if (h.timestamp_type() == records::TimestampType::log_append_time) return h.max_timestamp;
    return h.base_timestamp + r.timestamp_delta;
}

}  // namespace

Segment::Segment(const std::filesystem::path& dir, std::int64_t base_offset, SegmentOptions options,
                 std::int64_t now_ms)
    : base_offset_(base_offset),
      options_(options),
      index_files_existed_(index_files_exist(dir, base_offset)),
      log_path_(dir / segment_file_name(base_offset, kLogSuffix)),
      log_(std::make_unique<LogHandle>(options.open_files, log_path_)),
      offset_index_(dir / segment_file_name(base_offset, kIndexSuffix), base_offset, options.index_max_bytes,
                    options.open_files),
      time_index_(dir / segment_file_name(base_offset, kTimeIndexSuffix), base_offset, options.index_max_bytes,
                  options.open_files),
      txn_index_(dir / segment_file_name(base_offset, kTxnIndexSuffix), options.index_max_bytes),
      size_(log()->size()),
      appended_from_(size_),
      next_offset_(base_offset),
      created_ms_(now_ms) {
    if (time_index_.length_was_valid() && time_index_.entries() > 0) {
        auto last = time_index_.last_entry();
        max_timestamp_ = last.timestamp;
        offset_of_max_timestamp_ = last.offset;
    }
}

Segment::LogHandle::LogHandle(std::shared_ptr<OpenFiles> budget, std::filesystem::path path)
    : Entry(std::move(budget)), path_(std::move(path)) {
    file_ = std::make_shared<File>(File::open(path_, true));
    opened();
}

const std::shared_ptr<File>& Segment::LogHandle::file() {
    if (file_) {
        used();
        return file_;
    }
    // Never created again here: a file gone from under an open segment is an error.
    file_ = std::make_shared<File>(File::open(path_, false));
    opened();
    return file_;
}

void Segment::LogHandle::close() noexcept {
    file_.reset();
    closed();
}

std::int64_t Segment::largest_timestamp() const {
    if (max_timestamp_ >= 0) return max_timestamp_;
    struct stat st {};
    if (::stat(log_path_.c_str(), &st) != 0) return 0;
    return static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
}

void Segment::index_batch(const records::BatchHeader& header, std::uint64_t position) {
    if (header.max_timestamp > max_timestamp_) {
        max_timestamp_ = header.max_timestamp;
        offset_of_max_timestamp_ = header.last_offset();
    }
    if (bytes_since_last_index_entry_ > options_.index_interval_bytes) {
        offset_index_.append(header.last_offset(), static_cast<std::uint32_t>(position));
        append_time_index_entry(header.last_offset(), false);
        bytes_since_last_index_entry_ = 0;
    }
    bytes_since_last_index_entry_ += header.total_size();
}

void Segment::append_time_index_entry(std::int64_t last_offset, bool skip_full_check) {
    if (max_timestamp_ < 0) return;
    // An entry (t, o) only promises that nothing up to o is later than t, so
    // when the max timestamp's offset is unknown the last offset indexed so far
    // will do; an offset below the base is unrepresentable, and throwing here
    // would fail an append whose bytes are already written.
    auto offset = offset_of_max_timestamp_ >= base_offset_ ? offset_of_max_timestamp_ : last_offset;
    if (offset < base_offset_) return;
    time_index_.maybe_append(max_timestamp_, offset, skip_full_check);
}

void Segment::append(std::span<const std::uint8_t> batches) {
    if (batches.empty()) return;
    auto start = size_;
    if (start + batches.size() > static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max()))
        throw StorageError("segment would exceed 2 GiB: " + log_path_.string());
    // Index space first (on a full disk nothing is written then), the log
    // next: a crash between the log and its index leaves an index that is
    // merely behind, which recovery rebuilds anyway.
    // Each index gets at most one entry per batch, and after its first only
    // once index.interval.bytes more have been appended: a bound without
    // parsing the batches twice.
    const auto most_entries =
        batches.size() / std::max<std::size_t>(records::kBatchHeaderSize, options_.index_interval_bytes) + 1;
    const auto file = log();
    offset_index_.reserve(most_entries);
    time_index_.reserve(most_entries);
    try {
        file->pwrite_all(batches, start);
    } catch (const StorageError&) {
        // A part may have been written (the disk filled up meanwhile): cut it
        // off so the file ends with the last whole batch, as a reader expects.
        try {
            file->truncate(start);
        } catch (const StorageError&) {
            // Still past size_, so never read; recovery cuts it after a crash.
        }
        throw;
    }
    size_ = start + batches.size();
    std::size_t pos = 0;
    while (pos < batches.size()) {
        auto header = records::parse_batch_header(batches.subspan(pos));
        if (start == 0 && pos == 0) rolling_timestamp_ = header.max_timestamp;
        index_batch(header, start + pos);
        next_offset_ = header.last_offset() + 1;
        pos += header.total_size();
    }
}

Segment::Check Segment::check(std::uint64_t position, std::size_t max_bytes) const {
    Check c{.next = position};
    const auto file = log();
    BatchScanner scanner(*file, position, size_, std::min<std::size_t>(max_bytes, 1u << 20));
    while (c.next < size_ && (c.batches == 0 || c.next - position < max_bytes)) {
        auto batch = scanner.next();
        if (!batch) {
            if (scanner.stop() != BatchScanner::Stop::end)
                c.problem = scanner.stop() == BatchScanner::Stop::torn ? "a batch runs past the segment's end"
                                                                       : "invalid batch header";
            c.done = true;
            return c;
        }
        if (!records::crc_valid(scanner.batch_bytes())) {
            c.problem = "CRC mismatch in the batch at offset " + std::to_string(batch->header.base_offset);
            c.done = true;
            return c;
        }
        ++c.batches;
        c.next = batch->position + batch->size();
    }
    c.done = c.next >= size_;
    return c;
}

std::optional<BatchLocation> Segment::translate_offset(std::int64_t offset, std::uint32_t starting_position) const {
    auto start = std::max(offset_index_.lookup(offset).position, starting_position);
    if (start >= size_) return std::nullopt;
    const auto file = log();
    BatchScanner scanner(*file, start, size_, header_scan_bytes());
    while (auto batch = scanner.next()) {
        if (batch->header.last_offset() >= offset) return location_of(*batch);
    }
    // Batches are appended whole, so anything but the end inside the segment's
    // size is damage (recovery only checks what is past the recovery point).
    if (scanner.stop() != BatchScanner::Stop::end)
        throw CorruptLogError(log_path_.string() + " at position " + std::to_string(scanner.position()) + ": " +
                              (scanner.stop() == BatchScanner::Stop::torn ? "a batch runs past the segment's end"
                                                                          : "invalid batch header"));
    return std::nullopt;
}

std::optional<SegmentSlice> Segment::slice(std::int64_t offset, std::size_t max_bytes,
                                           std::optional<std::int64_t> max_offset, bool min_one_batch) const {
    auto first = translate_offset(offset);
    if (!first) return std::nullopt;
    const SegmentSlice nothing{first->position, 0, -1};
    std::uint64_t end = size_;
    if (max_offset) {
        if (first->last_offset >= *max_offset) return nothing;
        if (auto limit = translate_offset(*max_offset, first->position)) end = limit->position;
    }
    std::uint64_t want = std::min<std::uint64_t>(max_bytes, end - first->position);
    if (want < first->size) {
        if (!min_one_batch) return nothing;
        want = first->size;
    }
    if (first->position < appended_from_) {
        wire::Bytes head(first->size);
        if (log()->pread_upto(head, first->position) < head.size() || !records::crc_valid(head))
            throw CorruptLogError(log_path_.string() + " at position " + std::to_string(first->position) +
                                  ": CRC mismatch in the batch at offset " + std::to_string(first->base_offset));
    }

    // Whole batches only, so clients never see a partial trailing batch: the
    // headers are scanned from the last index entry before the cut, not from
    // the first batch, so a large read costs a few small reads.
    const std::uint64_t cut = first->position + want;
    const std::uint64_t first_end = first->position + first->size;
    SegmentSlice s{first->position, first->size, first->last_offset + 1};
    if (cut > first_end) {
        const auto from = std::max<std::uint64_t>(first_end, offset_index_.position_floor(cut));
        // To the segment's end, not the cut: the header of the first batch
        // left out gives the upper bound.
        const auto file = log();
        BatchScanner scanner(*file, from, size_, header_scan_bytes());
        bool scanned = false;
        while (auto batch = scanner.next()) {
            const bool fits = batch->position + batch->size() <= cut;
            // Everything between the first batch and `from` is whole batches.
            if (!scanned && from > first_end) s = {first->position, from - first->position, batch->header.base_offset};
            scanned = true;
            if (!fits) {
                s.next_offset = batch->header.base_offset;
                break;
            }
            s.length = batch->position + batch->size() - first->position;
            s.next_offset = batch->header.last_offset() + 1;
        }
    }
    return s;
}

std::optional<wire::Bytes> Segment::read(std::int64_t offset, std::size_t max_bytes,
                                         std::optional<std::int64_t> max_offset, bool min_one_batch) const {
    auto s = slice(offset, max_bytes, max_offset, min_one_batch);
    if (!s) return std::nullopt;
    return read(*s);
}

wire::Bytes Segment::read(const SegmentSlice& slice) const {
    wire::Bytes out(slice.length);
    if (log()->pread_upto(out, slice.position) != out.size())
        throw StorageError("short read of " + std::to_string(slice.length) + " bytes at position " +
                           std::to_string(slice.position) + " in " + log_path_.string());
    return out;
}

wire::Bytes Segment::read_batch(const BatchLocation& location) const {
    wire::Bytes out(location.size);
    if (log()->pread_upto(out, location.position) != out.size())
        throw StorageError("short read of batch in " + log_path_.string());
    return out;
}

std::optional<FoundRecord> Segment::find_offset_by_timestamp(std::int64_t timestamp,
                                                             std::int64_t starting_offset) const {
    auto from_time = time_index_.lookup(timestamp);
    auto start = offset_index_.lookup(std::max(from_time.offset, starting_offset)).position;
    const auto file = log();
    BatchScanner scanner(*file, start, size_);
    while (auto batch = scanner.next()) {
        const auto& h = batch->header;
        if (h.max_timestamp < timestamp || h.last_offset() < starting_offset) continue;
        auto bytes = read_batch(location_of(*batch));
        try {
            for (const auto& r : records::decode_records(bytes)) {
                auto off = h.base_offset + r.offset_delta;
                auto ts = record_timestamp(h, r);
                if (ts >= timestamp && off >= starting_offset) return FoundRecord{off, ts, h.partition_leader_epoch};
            }
        } catch (const wire::DecodeError&) {
            // Records we cannot decode: the batch as a whole still qualifies.
            return FoundRecord{std::max(h.base_offset, starting_offset), h.max_timestamp, h.partition_leader_epoch};
        }
    }
    return std::nullopt;
}

std::optional<FoundRecord> Segment::find_max_timestamp() const {
    if (max_timestamp_ < 0) return std::nullopt;
    auto loc = translate_offset(offset_of_max_timestamp_);
    if (!loc) return std::nullopt;
    auto bytes = read_batch(*loc);
    records::BatchHeader h;
    try {
        h = records::parse_batch_header(bytes);
        for (const auto& r : records::decode_records(bytes)) {
            if (record_timestamp(h, r) == max_timestamp_)
                return FoundRecord{h.base_offset + r.offset_delta, max_timestamp_, h.partition_leader_epoch};
        }
    } catch (const wire::DecodeError&) {
    }
    return FoundRecord{offset_of_max_timestamp_, max_timestamp_, h.partition_leader_epoch};
}

bool Segment::should_roll(const RollParams& p) const {
    if (size_ == 0) return false;
    if (size_ + p.messages_size > static_cast<std::uint64_t>(std::max<std::int64_t>(p.segment_bytes, 0))) return true;
    if (size_ + p.messages_size > static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max())) return true;
    if (offset_index_.full() || time_index_.full() || txn_index_.full()) return true;
    if (p.max_offset_in_messages - base_offset_ > std::numeric_limits<std::int32_t>::max()) return true;
    // Kafka measures from the first batch's timestamp to the incoming one's,
    // falling back to wall-clock age when timestamps are missing.
    std::int64_t waited = (rolling_timestamp_ && *rolling_timestamp_ >= 0 && p.max_timestamp_in_messages >= 0)
                              ? p.max_timestamp_in_messages - *rolling_timestamp_
                              : p.now_ms - created_ms_;
    return waited > p.segment_ms;
}

bool Segment::indexes_sane() const {
    return index_files_existed_ && offset_index_.sanity_check(size_) && time_index_.sanity_check();
}

std::uint64_t Segment::recover() {
    offset_index_.reset();
    time_index_.reset();
    max_timestamp_ = -1;
    offset_of_max_timestamp_ = -1;
    bytes_since_last_index_entry_ = 0;
    rolling_timestamp_.reset();
    const auto file = log();
    auto file_size = file->size();
    BatchScanner scanner(*file, 0, file_size, kRecoveryBuffer);
    std::uint64_t valid_end = 0;
    std::int64_t last = -1;
    while (auto batch = scanner.next()) {
        const auto& h = batch->header;
        bool offsets_ok = h.base_offset >= base_offset_ && h.base_offset > last && h.last_offset_delta >= 0 &&
                          h.last_offset() - base_offset_ <= std::numeric_limits<std::int32_t>::max();
        if (!offsets_ok || !records::crc_valid(scanner.batch_bytes())) break;
        if (valid_end == 0) rolling_timestamp_ = h.max_timestamp;
        index_batch(h, batch->position);
        last = h.last_offset();
        valid_end = batch->position + batch->size();
    }
    auto truncated = file_size - valid_end;
    if (truncated > 0) file->truncate(valid_end);
    size_ = valid_end;
    appended_from_ = std::min(appended_from_, size_);
    next_offset_ = last >= 0 ? last + 1 : base_offset_;
    txn_index_.truncate_to(next_offset_);
    index_files_existed_ = true;
    return truncated;
}

bool Segment::load_tail() {
    auto last_entry = offset_index_.last_entry();
    std::uint64_t start = last_entry ? last_entry->position : 0;
    const auto file = log();
    BatchScanner scanner(*file, start, size_);
    std::int64_t next = last_entry ? -1 : base_offset_;
    while (auto batch = scanner.next()) {
        if (batch->header.max_timestamp > max_timestamp_) {
            max_timestamp_ = batch->header.max_timestamp;
            offset_of_max_timestamp_ = batch->header.last_offset();
        }
        next = batch->header.last_offset() + 1;
    }
    if (scanner.stop() != BatchScanner::Stop::end || next < base_offset_) return false;
    next_offset_ = next;
    bytes_since_last_index_entry_ = size_ - start;
    load_rolling_timestamp();
    return true;
}

void Segment::load_rolling_timestamp() {
    rolling_timestamp_.reset();
    const auto file = log();
    BatchScanner scanner(*file, 0, size_, records::kBatchHeaderSize);
    if (auto first = scanner.next()) rolling_timestamp_ = first->header.max_timestamp;
}

std::uint64_t Segment::truncate_to(std::int64_t offset) {
    auto loc = translate_offset(offset);
    if (!loc) return 0;
    offset_index_.truncate_to(offset);
    time_index_.truncate_to(offset);
    txn_index_.truncate_to(offset);
    auto removed = size_ - loc->position;
    log()->truncate(loc->position);
    size_ = loc->position;
    appended_from_ = std::min(appended_from_, size_);
    next_offset_ = size_ == 0 ? base_offset_ : std::min(offset, loc->base_offset);
    // Recompute the max timestamp: the time index covers batches up to its
    // last entry; scan the rest.
    auto last_time = time_index_.last_entry();
    max_timestamp_ = last_time.timestamp;
    offset_of_max_timestamp_ = time_index_.entries() > 0 ? last_time.offset : -1;
    auto from = offset_index_.lookup(last_time.offset).position;
    const auto file = log();
    BatchScanner scanner(*file, from, size_);
    while (auto batch = scanner.next()) {
        if (batch->header.max_timestamp > max_timestamp_) {
            max_timestamp_ = batch->header.max_timestamp;
            offset_of_max_timestamp_ = batch->header.last_offset();
        }
    }
    auto last_entry = offset_index_.last_entry();
    bytes_since_last_index_entry_ = size_ - (last_entry ? last_entry->position : 0);
    load_rolling_timestamp();
    return removed;
}

void Segment::make_active() {
    offset_index_.make_active();
    time_index_.make_active();
}

void Segment::make_inactive() {
    append_time_index_entry(next_offset_ - 1, true);
    offset_index_.trim();
    time_index_.trim();
}

void Segment::flush() {
    log()->sync();
    offset_index_.flush();
    time_index_.flush();
    txn_index_.flush();
}

void Segment::close() {
    make_inactive();
    release();
}

void Segment::release() noexcept {
    offset_index_.release();
    time_index_.release();
    // Answers still being sent from this segment keep the descriptor open.
    if (log_) log_->close();
}

void Segment::move_to_budget(const std::shared_ptr<OpenFiles>& budget) noexcept {
    options_.open_files = budget;
    log_->move_to(budget);
    offset_index_.move_to_budget(budget);
    time_index_.move_to_budget(budget);
}

void Segment::remove() {
    auto path = log_path_;
    release();
    offset_index_.remove();
    time_index_.remove();
    txn_index_.remove();
    std::error_code ec;
    std::filesystem::remove(path, ec);
}

}  // namespace weir::storage
