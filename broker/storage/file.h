#pragma once
// Thin RAII wrapper over a POSIX file descriptor with the few operations the
// log needs. Every failure throws StorageError.
#include <cstdint>
#include <filesystem>
#include <span>
#include <string_view>

namespace weir::storage {

class File {
public:
    File() = default;
    // Opens read-write, creating the file if `create` is set.
    static File open(const std::filesystem::path& path, bool create);
    // For tools that inspect a log they must not change (or may not write).
    static File open_read_only(const std::filesystem::path& path);

    File(File&& other) noexcept;
    File& operator=(File&& other) noexcept;
    File(const File&) = delete;
    File& operator=(const File&) = delete;
    ~File();

    [[nodiscard]] bool is_open() const { return fd_ >= 0; }
    [[nodiscard]] int fd() const { return fd_; }
    [[nodiscard]] const std::filesystem::path& path() const { return path_; }

    [[nodiscard]] std::uint64_t size() const;
    void pwrite_all(std::span<const std::uint8_t> data, std::uint64_t position) const;
    // Reads up to out.size() bytes; returns fewer only at end of file.
    std::size_t pread_upto(std::span<std::uint8_t> out, std::uint64_t position) const;
    void truncate(std::uint64_t size) const;
    void sync() const;
    void close() noexcept;

private:
    File(int fd, std::filesystem::path path) : fd_(fd), path_(std::move(path)) {}
    int fd_ = -1;
    std::filesystem::path path_;
};

// File::pread_upto for a descriptor held elsewhere (a Fetch answer's file
// region); `path` names it in the error.
std::size_t pread_upto(int fd, std::span<std::uint8_t> out, std::uint64_t position, const std::filesystem::path& path);

// fsync a directory so entries created/renamed/removed in it are durable.
void sync_dir(const std::filesystem::path& dir);

// Writes back every dirty page and inode of the file system holding `dir`
// (syncfs): one call where a shutdown would otherwise fsync thousands of files.
void sync_file_system(const std::filesystem::path& dir);

enum class Durability {
    now,       // fsynced before returning
    deferred,  // the caller syncs the file system before relying on it
};

// Replaces `path` with `content` via a temp file and rename, fsyncing both
// unless deferred (then a crash before the sync may leave a torn file, which
// readers of the deferred files detect).
void write_file_atomically(const std::filesystem::path& path, std::string_view content,
                           Durability durability = Durability::now);

}  // namespace weir::storage
