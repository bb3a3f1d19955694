#include "coordinator/group/partitioner.h"

namespace weir::coordinator::store {

namespace {

// Next code point of UTF-8 `s` at `i` (advancing it); U+FFFD for a bad byte.
std::uint32_t next_code_point(std::string_view s, std::size_t& i) {
    auto byte = [&](std::size_t k) { return static_cast<std::uint8_t>(s[k]); };
    std::uint8_t b0 = byte(i);
    std::size_t len = 0;
    std::uint32_t cp = 0;
    std::uint32_t min = 0;
    if (b0 < 0x80) {
        ++i;
        return b0;
    } else if ((b0 & 0xE0) == 0xC0) {
        len = 2, cp = b0 & 0x1F, min = 0x80;
    } else if ((b0 & 0xF0) == 0xE0) {
        len = 3, cp = b0 & 0x0F, min = 0x800;
    } else if ((b0 & 0xF8) == 0xF0) {
        len = 4, cp = b0 & 0x07, min = 0x10000;
    } else {
        ++i;
        return 0xFFFD;
    }
    if (i + len > s.size()) {
        ++i;
        return 0xFFFD;
    }
    for (std::size_t k = 1; k < len; ++k) {
        if ((byte(i + k) & 0xC0) != 0x80) {
            ++i;
            return 0xFFFD;
        }
        cp = (cp << 6) | (byte(i + k) & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        ++i;
        return 0xFFFD;
    }
    i += len;
    return cp;
}

}  // namespace

std::int32_t java_string_hash(std::string_view s) {
    std::uint32_t h = 0;  // Java int arithmetic wraps; unsigned does the same here
    for (std::size_t i = 0; i < s.size();) {
        auto cp = next_code_point(s, i);
        if (cp >= 0x10000) {
            cp -= 0x10000;
            h = 31 * h + (0xD800 + (cp >> 10));
            h = 31 * h + (0xDC00 + (cp & 0x3FF));
        } else {
            h = 31 * h + cp;
        }
    }
    return static_cast<std::int32_t>(h);
}

std::int32_t partition_for(std::string_view group_id, std::int32_t partitions) {
    if (partitions <= 0) return 0;
    auto h = java_string_hash(group_id);
    std::int32_t abs = h == INT32_MIN ? 0 : (h < 0 ? -h : h);
    return abs % partitions;
}

}  // namespace weir::coordinator::store
