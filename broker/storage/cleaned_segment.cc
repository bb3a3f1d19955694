#include "broker/storage/cleaned_segment.h"

#include <limits>
#include <string>
#include <utility>

#include "broker/storage/log_error.h"
#include "broker/storage/log_names.h"

namespace weir::storage {
namespace {

void remove_file(const std::filesystem::path& p) {
    std::error_code ec;
    std::filesystem::remove(p, ec);
}

}  // namespace

std::filesystem::path CleanedSegment::path(std::string_view segment_suffix, std::string_view stage) const {
    return dir_ / (segment_file_name(base_offset_, segment_suffix) + std::string(stage));
}

CleanedSegment::CleanedSegment(std::filesystem::path dir, std::int64_t base_offset, SegmentOptions options)
    : dir_(std::move(dir)), base_offset_(base_offset), options_(options) {
    for (auto suffix : {kLogSuffix, kIndexSuffix, kTimeIndexSuffix, kTxnIndexSuffix})
        remove_file(path(suffix, kCleanedSuffix));
    log_ = File::open(path(kLogSuffix, kCleanedSuffix), true);
    offset_index_.emplace(path(kIndexSuffix, kCleanedSuffix), base_offset_, options_.index_max_bytes);
    time_index_.emplace(path(kTimeIndexSuffix, kCleanedSuffix), base_offset_, options_.index_max_bytes);
    offset_index_->make_active();
    time_index_->make_active();
}

CleanedSegment::CleanedSegment(CleanedSegment&& other) noexcept
    : dir_(std::move(other.dir_)),
      base_offset_(other.base_offset_),
      options_(other.options_),
      log_(std::move(other.log_)),
      offset_index_(std::move(other.offset_index_)),
      time_index_(std::move(other.time_index_)),
      txn_index_(std::move(other.txn_index_)),
      size_(other.size_),
      max_timestamp_(other.max_timestamp_),
      offset_of_max_timestamp_(other.offset_of_max_timestamp_),
      bytes_since_last_index_entry_(other.bytes_since_last_index_entry_),
      stage_(std::exchange(other.stage_, Stage::discarded)) {}

CleanedSegment::~CleanedSegment() {
    if (stage_ != Stage::installed) discard();
}

void CleanedSegment::append(std::span<const std::uint8_t> batch) {
    if (stage_ != Stage::writing) throw StorageError("cleaned segment is no longer open for appends");
    auto h = records::parse_batch_header(batch);
    if (h.last_offset() - base_offset_ > std::numeric_limits<std::int32_t>::max() || h.base_offset < base_offset_)
        throw StorageError("batch offsets out of range of cleaned segment " + std::to_string(base_offset_));
    if (size_ + batch.size() > static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max()))
        throw StorageError("cleaned segment would exceed 2 GiB: " + log_.path().string());
    auto position = size_;
    log_.pwrite_all(batch.first(h.total_size()), position);
    size_ += h.total_size();
    // Segment::index_batch's rule, so a cleaned segment indexes like a written one.
    if (h.max_timestamp > max_timestamp_) {
        max_timestamp_ = h.max_timestamp;
        offset_of_max_timestamp_ = h.last_offset();
    }
    if (bytes_since_last_index_entry_ > options_.index_interval_bytes) {
        // A sparser index is still correct; the group was sized so this is rare.
        if (!offset_index_->full()) offset_index_->append(h.last_offset(), static_cast<std::uint32_t>(position));
        time_index_->maybe_append(max_timestamp_, offset_of_max_timestamp_, true);
        bytes_since_last_index_entry_ = 0;
    }
    bytes_since_last_index_entry_ += h.total_size();
}

void CleanedSegment::add_aborted_txns(std::span<const AbortedTxn> txns) {
    if (stage_ != Stage::writing) throw StorageError("cleaned segment is no longer open for appends");
    if (txns.empty()) return;
    if (!txn_index_) txn_index_.emplace(path(kTxnIndexSuffix, kCleanedSuffix), options_.index_max_bytes);
    for (const auto& txn : txns) txn_index_->append(txn);
}

void CleanedSegment::finish(std::optional<std::filesystem::file_time_type> mtime) { complete(mtime).run(); }

SyncRequest CleanedSegment::complete(std::optional<std::filesystem::file_time_type> mtime) {
    if (stage_ != Stage::writing) throw StorageError("cleaned segment finished twice");
    if (max_timestamp_ >= 0) time_index_->maybe_append(max_timestamp_, offset_of_max_timestamp_, true);
    offset_index_->trim();
    time_index_->trim();
    // Stores through the mappings stay dirty pages of the files: the fsync by path writes them.
    offset_index_->release();
    time_index_->release();
    if (mtime) {
        std::error_code ec;
        std::filesystem::last_write_time(log_.path(), *mtime, ec);
    }
    log_.close();
    stage_ = Stage::finished;
    SyncRequest request;
    for (auto suffix : {kLogSuffix, kIndexSuffix, kTimeIndexSuffix})
        request.paths.push_back(path(suffix, kCleanedSuffix));
    if (txn_index_) request.paths.push_back(path(kTxnIndexSuffix, kCleanedSuffix));
    return request;
}

void CleanedSegment::rename_all(std::string_view from, std::string_view to) {
    // The .log last: its presence under the new stage name is what recovery acts on.
    if (txn_index_) {
        std::error_code ec;
        std::filesystem::rename(path(kTxnIndexSuffix, from), path(kTxnIndexSuffix, to), ec);
        if (ec) throw StorageError("rename " + path(kTxnIndexSuffix, from).string() + ": " + ec.message(), ec.value());
    }
    for (auto suffix : {kIndexSuffix, kTimeIndexSuffix, kLogSuffix}) {
        std::error_code ec;
        std::filesystem::rename(path(suffix, from), path(suffix, to), ec);
        if (ec) throw StorageError("rename " + path(suffix, from).string() + ": " + ec.message(), ec.value());
    }
}

void CleanedSegment::mark_swap() {
    if (stage_ != Stage::finished) throw StorageError("cleaned segment is not finished");
    rename_all(kCleanedSuffix, kSwapSuffix);
    // The commit point: once the old segments' removal can reach the disk,
    // the `.swap` name must already be there.
    sync_dir(dir_);
    stage_ = Stage::swapped;
}

void CleanedSegment::install() {
    if (stage_ != Stage::swapped) throw StorageError("cleaned segment is not swapped in");
    // No fsync: if these renames are lost, recovery finds the `.swap` again and finishes it.
    rename_all(kSwapSuffix, "");
    stage_ = Stage::installed;
}

void CleanedSegment::discard() noexcept {
    // Past the commit point the swap belongs to recovery, which completes it.
    if (stage_ != Stage::writing && stage_ != Stage::finished) return;
    log_.close();
    if (offset_index_) offset_index_->release();
    if (time_index_) time_index_->release();
    for (auto suffix : {kLogSuffix, kIndexSuffix, kTimeIndexSuffix, kTxnIndexSuffix})
        remove_file(path(suffix, kCleanedSuffix));
    stage_ = Stage::discarded;
}

}  // namespace weir::storage
