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
                     std::size_t max_bytes)
    : path_(path), base_offset_(base_offset), entry_size_(entry_size) {
    auto length = static_cast<std::size_t>(File::open(path_, true).size());
    entries_ = length / entry_size_;
    max_entries_ = std::max<std::size_t>(std::max<std::size_t>(max_bytes / entry_size_, 1), entries_);
    if (length > 0) remap(length);
    length_was_valid_ = length % entry_size_ == 0;
}

IndexFile::IndexFile(IndexFile&& other) noexcept
    : path_(std::move(other.path_)),
      base_offset_(other.base_offset_),
      entry_size_(other.entry_size_),
      max_entries_(other.max_entries_),
      map_(std::exchange(other.map_, nullptr)),
      mapped_bytes_(std::exchange(other.mapped_bytes_, 0)),
      entries_(std::exchange(other.entries_, 0)),
      allocated_bytes_(std::exchange(other.allocated_bytes_, 0)),
      length_was_valid_(other.length_was_valid_) {}

IndexFile& IndexFile::operator=(IndexFile&& other) noexcept {
    if (this != &other) {
        release();
        path_ = std::move(other.path_);
        base_offset_ = other.base_offset_;
        entry_size_ = other.entry_size_;
        max_entries_ = other.max_entries_;
        map_ = std::exchange(other.map_, nullptr);
        mapped_bytes_ = std::exchange(other.mapped_bytes_, 0);
        entries_ = std::exchange(other.entries_, 0);
        allocated_bytes_ = std::exchange(other.allocated_bytes_, 0);
        length_was_valid_ = other.length_was_valid_;
    }
    return *this;
}

IndexFile::~IndexFile() { release(); }

void IndexFile::release() noexcept {
    if (map_ != nullptr) ::munmap(map_, mapped_bytes_);
    map_ = nullptr;
    mapped_bytes_ = 0;
    allocated_bytes_ = 0;
}

void IndexFile::remap(std::size_t bytes) {
    release();
    auto file = File::open(path_, true);
    if (file.size() != bytes) file.truncate(bytes);
    length_was_valid_ = true;
    if (bytes == 0) return;
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, file.fd(), 0);
    if (p == MAP_FAILED) throw_errno("mmap " + path_.string(), errno);
    // Lookups are binary searches, and after a kill an active index is mostly
    // a preallocated hole: without this, touching one entry reads ahead (and
    // zero-fills) megabytes of it, which dominated restarts at 10,000
    // partitions.
    ::madvise(p, bytes, MADV_RANDOM);
    map_ = static_cast<std::uint8_t*>(p);
    mapped_bytes_ = bytes;
}

void IndexFile::make_active() {
    auto bytes = max_entries_ * entry_size_;
    if (mapped_bytes_ != bytes) remap(bytes);
}

void IndexFile::trim() {
    auto bytes = entries_ * entry_size_;
    if (mapped_bytes_ != bytes || !length_was_valid_) remap(bytes);
}

void IndexFile::truncate_entries(std::size_t n) { entries_ = std::min(entries_, n); }

void IndexFile::allocate_through(std::size_t end) {
    if (end <= allocated_bytes_) return;
    // A store into a hole of a shared mapping makes the file system find a
    // block then; on a full disk that is SIGBUS. Allocating the page first
    // turns it into an ENOSPC the append reports (KAFKA_STORAGE_ERROR).
    constexpr std::size_t kPage = 4096;
    const auto to = std::min((end + kPage - 1) / kPage * kPage, mapped_bytes_);
    const auto file = File::open(path_, false);
    const int rc =
        ::posix_fallocate(file.fd(), static_cast<off_t>(allocated_bytes_), static_cast<off_t>(to - allocated_bytes_));
    if (rc != 0 && rc != EOPNOTSUPP && rc != EINVAL) throw_errno("allocate " + path_.string(), rc);
    allocated_bytes_ = to;
}

void IndexFile::reserve(std::size_t more) {
    const auto end = std::min(entries_ + more, max_entries_) * entry_size_;
    if (end > mapped_bytes_) make_active();
    allocate_through(end);
}

void IndexFile::push(const std::uint8_t* entry) {
    if (full()) throw StorageError("index full: " + path_.string());
    if ((entries_ + 1) * entry_size_ > mapped_bytes_) make_active();
    allocate_through((entries_ + 1) * entry_size_);
    std::memcpy(map_ + entries_ * entry_size_, entry, entry_size_);
    ++entries_;
}

void IndexFile::flush() const {
    if (map_ == nullptr) return;
    if (::msync(map_, mapped_bytes_, MS_SYNC) != 0) throw_errno("msync " + path_.string(), errno);
}

void IndexFile::remove() {
    release();
    std::error_code ec;
    std::filesystem::remove(path_, ec);
}

}  // namespace weir::storage
