#pragma once
// A byte range of an open file that a response refers to instead of copying
// it: the records of a Fetch answer, sent with sendfile(2) from the segment
// they are stored in (Kafka's FileRecords). `owner` keeps the descriptor open
// until the answer is written, even if the segment is deleted meanwhile.
#include <cstdint>
#include <memory>

#include "protocol/wire/reader.h"

namespace weir::wire {

struct FileRegion {
    int fd = -1;
    std::uint64_t position = 0;
    std::size_t length = 0;
    std::shared_ptr<const void> owner;
};

// Appends the region's bytes to `out` (pread). Throws std::runtime_error if
// the file no longer holds them all (truncated since the region was taken).
void append_region(Bytes& out, const FileRegion& region);
[[nodiscard]] Bytes read_region(const FileRegion& region);

}  // namespace weir::wire
