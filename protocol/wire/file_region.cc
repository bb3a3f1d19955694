#include "protocol/wire/file_region.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace weir::wire {

void append_region(Bytes& out, const FileRegion& region) {
    const auto start = out.size();
    out.resize(start + region.length);
    std::size_t done = 0;
    while (done < region.length) {
        auto n = ::pread(region.fd, out.data() + start + done, region.length - done,
                         static_cast<off_t>(region.position + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            out.resize(start);
            throw std::runtime_error(n < 0 ? std::string("reading records: ") + std::strerror(errno)
                                           : "records truncated in their file before they were sent");
        }
        done += static_cast<std::size_t>(n);
    }
}

Bytes read_region(const FileRegion& region) {
    Bytes out;
    append_region(out, region);
    return out;
}

}  // namespace weir::wire
