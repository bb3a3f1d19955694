#pragma once
// Walks the record batches of a .log file region batch by batch through a
// read buffer, so scanning many small batches costs few syscalls. Used for
// offset translation (headers only), recovery (whole batches, for the CRC)
// and an old fetcher's zstd check of the records a Fetch answer sends.
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "broker/storage/file.h"
#include "protocol/records/record_batch.h"
#include "protocol/wire/file_region.h"

namespace weir::storage {

struct ScannedBatch {
    std::uint64_t position = 0;
    records::BatchHeader header;
    [[nodiscard]] std::uint64_t size() const { return header.total_size(); }
};

class BatchScanner {
public:
    enum class Stop { end, torn, corrupt };

    BatchScanner(const File& file, std::uint64_t start, std::uint64_t end, std::size_t buffer_bytes = 16 * 1024);
    // Over a region whose descriptor its owner keeps open.
    explicit BatchScanner(const wire::FileRegion& region, std::size_t buffer_bytes = 16 * 1024);

    // The next batch's header, or nullopt with stop() saying why: `end` at
    // the region end, `torn` if a batch runs past it, `corrupt` if a header is
    // invalid (bad length or magic).
    std::optional<ScannedBatch> next();
    [[nodiscard]] Stop stop() const { return stop_; }
    // Position just after the last batch returned.
    [[nodiscard]] std::uint64_t position() const { return pos_; }
    // All bytes of the batch last returned by next().
    std::span<const std::uint8_t> batch_bytes();

private:
    BatchScanner(int fd, const std::filesystem::path& path, std::uint64_t start, std::uint64_t end,
                 std::size_t buffer_bytes);
    bool ensure(std::uint64_t pos, std::size_t n);

    int fd_;
    const std::filesystem::path& path_;
    std::uint64_t pos_;
    std::uint64_t end_;
    std::size_t buffer_bytes_;
    std::vector<std::uint8_t> buf_;
    std::uint64_t buf_start_ = 0;
    std::size_t buf_len_ = 0;
    std::uint64_t current_ = 0;
    std::size_t current_size_ = 0;
    Stop stop_ = Stop::end;
};

}  // namespace weir::storage
