#include "broker/storage/batch_scanner.h"

#include <algorithm>

#include "broker/storage/index_file.h"

namespace weir::storage {

namespace {
const std::filesystem::path kUnnamed;  // a region's file is named by its owner
}  // namespace

BatchScanner::BatchScanner(const File& file, std::uint64_t start, std::uint64_t end, std::size_t buffer_bytes)
    : BatchScanner(file.fd(), file.path(), start, end, buffer_bytes) {}

BatchScanner::BatchScanner(const wire::FileRegion& region, std::size_t buffer_bytes)
    : BatchScanner(region.fd, kUnnamed, region.position, region.position + region.length, buffer_bytes) {}

BatchScanner::BatchScanner(int fd, const std::filesystem::path& path, std::uint64_t start, std::uint64_t end,
                           std::size_t buffer_bytes)
    : fd_(fd), path_(path), pos_(start), end_(end), buffer_bytes_(buffer_bytes) {}

bool BatchScanner::ensure(std::uint64_t pos, std::size_t n) {
    if (pos >= buf_start_ && pos + n <= buf_start_ + buf_len_) return true;
    if (pos + n > end_) return false;
    auto want = static_cast<std::size_t>(std::min<std::uint64_t>(std::max(n, buffer_bytes_), end_ - pos));
    if (buf_.size() < want) buf_.resize(want);
    buf_start_ = pos;
    buf_len_ = pread_upto(fd_, std::span(buf_.data(), want), pos, path_);
    return buf_len_ >= n;
}

std::optional<ScannedBatch> BatchScanner::next() {
    if (pos_ >= end_) {
        stop_ = Stop::end;
        return std::nullopt;
    }
    if (!ensure(pos_, records::kLogOverhead)) {
        stop_ = Stop::torn;
        return std::nullopt;
    }
    auto length = static_cast<std::int32_t>(be::get32(buf_.data() + (pos_ - buf_start_) + 8));
    if (length < static_cast<std::int32_t>(records::kBatchHeaderSize - records::kLogOverhead)) {
        stop_ = Stop::corrupt;
        return std::nullopt;
    }
    auto total = records::kLogOverhead + static_cast<std::size_t>(length);
    if (pos_ + total > end_ || !ensure(pos_, records::kBatchHeaderSize)) {
        stop_ = Stop::torn;
        return std::nullopt;
    }
    ScannedBatch batch;
    batch.position = pos_;
    try {
        batch.header = records::parse_batch_header(
            std::span<const std::uint8_t>(buf_.data() + (pos_ - buf_start_), records::kBatchHeaderSize));
    } catch (const wire::DecodeError&) {
        stop_ = Stop::corrupt;
        return std::nullopt;
    }
    current_ = pos_;
    current_size_ = total;
    pos_ += total;
    return batch;
}

std::span<const std::uint8_t> BatchScanner::batch_bytes() {
    if (!ensure(current_, current_size_)) return {};
    return {buf_.data() + (current_ - buf_start_), current_size_};
}

}  // namespace weir::storage
