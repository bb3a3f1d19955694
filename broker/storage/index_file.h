#pragma once
// A memory-mapped file of fixed-size index entries, as Kafka's AbstractIndex:
// an active index is preallocated to its maximum size (so appends are plain
// stores into the mapping, durable in the page cache across a process kill)
// and trimmed to the used size when the segment is rolled or closed. The
// descriptor is closed once mapped (a mapping outlives it), so an index costs
// no file descriptor. The mapping is made on first use and counts against the
// broker's OpenFiles budget, which may unmap it until the next use.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>

#include "broker/storage/open_files.h"

namespace weir::storage {

class IndexFile {
public:
    // Opens or creates the file; an existing file's entries are its length
    // divided by the entry size (a remainder marks the file as corrupt).
    IndexFile(const std::filesystem::path& path, std::int64_t base_offset, std::size_t entry_size,
              std::size_t max_bytes, std::shared_ptr<OpenFiles> budget = nullptr);
    IndexFile(IndexFile&& other) noexcept = default;
    IndexFile& operator=(IndexFile&& other) noexcept = default;
    IndexFile(const IndexFile&) = delete;
    IndexFile& operator=(const IndexFile&) = delete;
    ~IndexFile() = default;

    [[nodiscard]] std::int64_t base_offset() const { return base_offset_; }
    [[nodiscard]] std::size_t entries() const { return entries_; }
    [[nodiscard]] std::size_t max_entries() const { return max_entries_; }
    [[nodiscard]] bool full() const { return entries_ >= max_entries_; }
    [[nodiscard]] bool length_was_valid() const { return length_was_valid_; }
    [[nodiscard]] const std::filesystem::path& path() const { return path_; }
    // Mapped now (not before its first use, nor after the budget took it back).
    [[nodiscard]] bool mapped() const { return mapping_ && mapping_->mapped(); }

    // Grows the file and mapping to the maximum size so appends need no remap.
    void make_active();
    // Makes room for `more` entries (up to the maximum) with blocks on disk,
    // so that appending them cannot fail for want of space; throws
    // StorageError (ENOSPC) if the file system has none.
    void reserve(std::size_t more);
    // Shrinks the file to the entries in use.
    void trim();
    void truncate_entries(std::size_t n);
    void reset() { truncate_entries(0); }
    // msync the used entries (fsync the file if it is not mapped now), if
    // anything changed since the last flush.
    void flush();
    // Unmaps without trimming (what a process kill leaves behind).
    void release() noexcept;
    void move_to_budget(const std::shared_ptr<OpenFiles>& budget) noexcept {
        if (mapping_) mapping_->move_to(budget);
    }
    // Releases and deletes the file.
    void remove();

protected:
    [[nodiscard]] const std::uint8_t* entry_ptr(std::size_t i) const {
        return mapping_->data(path_, length_) + i * entry_size_;
    }
    // Appends one entry of entry_size bytes; throws StorageError if full.
    void push(const std::uint8_t* entry);

private:
    // The file's mapping, where the budget can find it (a stable address
    // while the IndexFile moves).
    class Mapping final : public OpenFiles::Entry {
    public:
        explicit Mapping(std::shared_ptr<OpenFiles> budget) : Entry(std::move(budget)) {}
        ~Mapping() override { unmap(); }
        [[nodiscard]] bool mapped() const { return map_ != nullptr; }
        // Maps the file's first `length` bytes if they are not mapped now.
        std::uint8_t* data(const std::filesystem::path& path, std::size_t length);
        void unmap() noexcept;
        using Entry::move_to;

    private:
        void close_for_budget() noexcept override { unmap(); }
        std::uint8_t* map_ = nullptr;
        std::size_t bytes_ = 0;
    };

    // Sets the file's length (mapped again on next use).
    void resize(std::size_t bytes);
    // Gives the file blocks for its first `end` bytes (page-wise) before stores into the mapping.
    void allocate_through(std::size_t end);

    std::filesystem::path path_;
    std::int64_t base_offset_ = 0;
    std::size_t entry_size_ = 0;
    std::size_t max_entries_ = 0;
    std::size_t length_ = 0;  // of the file, all of it mapped when in use
    std::size_t entries_ = 0;
    std::size_t allocated_bytes_ = 0;  // of the current length, known to have blocks
    bool length_was_valid_ = true;
    // Changed since the last flush (entries stored or the length set).
    bool dirty_ = false;
    std::unique_ptr<Mapping> mapping_;
};

namespace be {
inline void put32(std::uint8_t* p, std::uint32_t v) {
    p[0] = static_cast<std::uint8_t>(v >> 24);
    p[1] = static_cast<std::uint8_t>(v >> 16);
    p[2] = static_cast<std::uint8_t>(v >> 8);
    p[3] = static_cast<std::uint8_t>(v);
}
inline void put64(std::uint8_t* p, std::uint64_t v) {
    put32(p, static_cast<std::uint32_t>(v >> 32));
    put32(p + 4, static_cast<std::uint32_t>(v));
}
inline std::uint32_t get32(const std::uint8_t* p) {
    return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
}
inline std::uint64_t get64(const std::uint8_t* p) { return (std::uint64_t{get32(p)} << 32) | get32(p + 4); }
}  // namespace be

}  // namespace weir::storage
