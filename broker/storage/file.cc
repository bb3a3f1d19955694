#include "broker/storage/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "broker/storage/log_error.h"

namespace weir::storage {

void throw_errno(const std::string& what, int err) { throw StorageError(what + ": " + std::strerror(err), err); }

bool StorageError::out_of_space() const { return error_number_ == ENOSPC || error_number_ == EDQUOT; }

File File::open(const std::filesystem::path& path, bool create) {
    int flags = O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0);
    int fd = ::open(path.c_str(), flags, 0644);
    if (fd < 0) throw_errno("open " + path.string(), errno);
    return File(fd, path);
}

File File::open_read_only(const std::filesystem::path& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw_errno("open " + path.string(), errno);
    return File(fd, path);
}

File::File(File&& other) noexcept : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)) {}

File& File::operator=(File&& other) noexcept {
    if (this != &other) {
        close();
        fd_ = std::exchange(other.fd_, -1);
        path_ = std::move(other.path_);
    }
    return *this;
}

File::~File() { close(); }

void File::close() noexcept {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
}

std::uint64_t File::size() const {
    struct stat st {};
    if (::fstat(fd_, &st) != 0) throw_errno("fstat " + path_.string(), errno);
    return static_cast<std::uint64_t>(st.st_size);
}

void File::pwrite_all(std::span<const std::uint8_t> data, std::uint64_t position) const {
    while (!data.empty()) {
        ssize_t n = ::pwrite(fd_, data.data(), data.size(), static_cast<off_t>(position));
        if (n < 0) {
            if (errno == EINTR) continue;
            throw_errno("write " + path_.string(), errno);
        }
        data = data.subspan(static_cast<std::size_t>(n));
        position += static_cast<std::uint64_t>(n);
    }
}

std::size_t File::pread_upto(std::span<std::uint8_t> out, std::uint64_t position) const {
    return storage::pread_upto(fd_, out, position, path_);
}

std::size_t pread_upto(int fd, std::span<std::uint8_t> out, std::uint64_t position, const std::filesystem::path& path) {
    std::size_t total = 0;
    while (total < out.size()) {
        ssize_t n = ::pread(fd, out.data() + total, out.size() - total, static_cast<off_t>(position + total));
        if (n < 0) {
            if (errno == EINTR) continue;
            throw_errno("read " + path.string(), errno);
        }
        if (n == 0) break;
        total += static_cast<std::size_t>(n);
    }
    return total;
}

void File::truncate(std::uint64_t size) const {
    if (::ftruncate(fd_, static_cast<off_t>(size)) != 0) throw_errno("truncate " + path_.string(), errno);
}

void File::sync() const {
    if (::fdatasync(fd_) != 0) throw_errno("fsync " + path_.string(), errno);
}

namespace {

// Opens `dir` and calls `sync` (fsync, syncfs) on it.
void sync_through_dir(const std::filesystem::path& dir, int (*sync)(int), std::string_view what) {
    int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) throw_errno("open dir " + dir.string(), errno);
    int rc = sync(fd);
    int err = errno;
    ::close(fd);
    if (rc != 0) throw_errno(std::string(what) + " " + dir.string(), err);
}

}  // namespace

void sync_dir(const std::filesystem::path& dir) { sync_through_dir(dir, ::fsync, "fsync dir"); }

// syncfs reports write-back errors of the file system since Linux 5.8.
void sync_file_system(const std::filesystem::path& dir) { sync_through_dir(dir, ::syncfs, "syncfs"); }

void write_file_atomically(const std::filesystem::path& path, std::string_view content, Durability durability) {
    auto tmp = path;
    tmp += ".tmp";
    {
        auto file = File::open(tmp, true);
        file.truncate(0);
        file.pwrite_all({reinterpret_cast<const std::uint8_t*>(content.data()), content.size()}, 0);
        if (durability == Durability::now) file.sync();
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) throw StorageError("rename " + tmp.string() + ": " + ec.message(), ec.value());
    if (durability == Durability::now) sync_dir(path.parent_path());
}

}  // namespace weir::storage
