#include "broker/storage/index_file.h"

#include <fcntl.h>
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "broker/storage/file.h"
#include "broker/storage/log_error.h"

namespace weir::storage {

IndexFile::IndexFile(const std::filesystem::path& path, std::int64_t base_offset, std::size_t entry_size,
                     std::size_t max_bytes, std::shared_ptr<OpenFiles> budget)
    : path_(path),
      base_offset_(base_offset),
      entry_size_(entry_size),
      mapping_(std::make_unique<Mapping>(std::move(budget))) {
    length_ = static_cast<std::size_t>(File::open(path_, true).size());
    entries_ = length_ / entry_size_;
    max_entries_ = std::max<std::size_t>(std::max<std::size_t>(max_bytes / entry_size_, 1), entries_);
    length_was_valid_ = length_ % entry_size_ == 0;
}

std::uint8_t* IndexFile::Mapping::data(const std::filesystem::path& path, std::size_t length) {
    if (map_ != nullptr && bytes_ == length) {
        used();
        return map_;
    }
    unmap();
    if (length == 0) return nullptr;
    const auto file = File::open(path, false);
    void* p = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, file.fd(), 0);
    if (p == MAP_FAILED) throw_errno("mmap " + path.string(), errno);
    // Lookups are binary searches, and after a kill an active index is mostly
    // a preallocated hole: without this, touching one entry reads ahead (and
    // zero-fills) megabytes of it, which dominated restarts at 10,000
    // partitions.
    ::madvise(p, length, MADV_RANDOM);
    map_ = static_cast<std::uint8_t*>(p);
    bytes_ = length;
    opened();
    return map_;
}

void IndexFile::Mapping::unmap() noexcept {
    if (map_ != nullptr) ::munmap(map_, bytes_);
    map_ = nullptr;
    bytes_ = 0;
    closed();
}

void IndexFile::release() noexcept {
    if (mapping_) mapping_->unmap();
    length_ = 0;
    allocated_bytes_ = 0;
}

void IndexFile::resize(std::size_t bytes) {
    if (mapping_) mapping_->unmap();
    auto file = File::open(path_, true);
    if (file.size() != bytes) file.truncate(bytes);
    allocated_bytes_ = 0;
    length_was_valid_ = true;
    // Growing preallocates a hole, which a crash may lose harmlessly (recovery
    // reads no entries there); a trim fixes the length of a finished index.
    if (bytes < length_) dirty_ = true;
    length_ = bytes;
}

void IndexFile::make_active() {
    auto bytes = max_entries_ * entry_size_;
    if (length_ != bytes) resize(bytes);
}

void IndexFile::trim() {
    auto bytes = entries_ * entry_size_;
    if (length_ != bytes || !length_was_valid_) resize(bytes);
}

void IndexFile::truncate_entries(std::size_t n) { entries_ = std::min(entries_, n); }

void IndexFile::allocate_through(std::size_t end) {
    if (end <= allocated_bytes_) return;
    // A store into a hole of a shared mapping makes the file system find a
    // block then; on a full disk that is SIGBUS. Allocating the page first
    // turns it into an ENOSPC the append reports (KAFKA_STORAGE_ERROR).
    constexpr std::size_t kPage = 4096;
    const auto to = std::min((end + kPage - 1) / kPage * kPage, length_);
    const auto file = File::open(path_, false);
    const int rc =
        ::posix_fallocate(file.fd(), static_cast<off_t>(allocated_bytes_), static_cast<off_t>(to - allocated_bytes_));
    if (rc != 0 && rc != EOPNOTSUPP && rc != EINVAL) throw_errno("allocate " + path_.string(), rc);
    allocated_bytes_ = to;
}

void IndexFile::reserve(std::size_t more) {
    const auto end = std::min(entries_ + more, max_entries_) * entry_size_;
    if (end > length_) make_active();
    allocate_through(end);
    // Mapped now, so that the entries stored after the append's write cannot
    // fail to map (the budget may have unmapped it).
    if (length_ > 0) (void)mapping_->data(path_, length_);
}

void IndexFile::push(const std::uint8_t* entry) {
    if (full()) throw StorageError("index full: " + path_.string());
    if ((entries_ + 1) * entry_size_ > length_) make_active();
    allocate_through((entries_ + 1) * entry_size_);
    std::memcpy(mapping_->data(path_, length_) + entries_ * entry_size_, entry, entry_size_);
    dirty_ = true;
    ++entries_;
}

void IndexFile::flush() {
    if (!dirty_ || length_ == 0) return;
    if (!mapping_->mapped()) {
        // Stores made through an earlier mapping are dirty pages of the file.
        File::open(path_, false).sync();
    } else if (::msync(mapping_->data(path_, length_), length_, MS_SYNC) != 0) {
        throw_errno("msync " + path_.string(), errno);
    }
    dirty_ = false;
}

void IndexFile::remove() {
    release();
    std::error_code ec;
    std::filesystem::remove(path_, ec);
}

}  // namespace weir::storage
