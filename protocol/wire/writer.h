#pragma once
// Appending writer for the Kafka wire format, plus the matching size helpers
// that generated size() functions use to reserve the exact output once.
#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/wire/file_region.h"
#include "protocol/wire/reader.h"

namespace weir::wire {

// Where a file region goes in an encoded frame: before byte `at` of its bytes.
struct Splice {
    std::size_t at = 0;
    FileRegion region;
};

// Below this a file region is copied into the frame even when the writer
// collects splices: a separate write costs more than the copy, and small
// answers stay one packet.
inline constexpr std::size_t kMinSplicedBytes = 16 * 1024;

class Writer {
public:
    explicit Writer(Bytes& out) : out_(out) {}
    // Collects large file regions in `splices` instead of copying them; size()
    // then counts the bytes in memory only.
    Writer(Bytes& out, std::vector<Splice>* splices) : out_(out), splices_(splices) {}

    void int8(std::int8_t v) { out_.push_back(static_cast<std::uint8_t>(v)); }
    void int16(std::int16_t v) { fixed(static_cast<std::uint16_t>(v)); }
    void int32(std::int32_t v) { fixed(static_cast<std::uint32_t>(v)); }
    void int64(std::int64_t v) { fixed(static_cast<std::uint64_t>(v)); }
    void uint8(std::uint8_t v) { out_.push_back(v); }
    void uint16(std::uint16_t v) { fixed(v); }
    void uint32(std::uint32_t v) { fixed(v); }
    void uint64(std::uint64_t v) { fixed(v); }
    void float64(double v) { fixed(std::bit_cast<std::uint64_t>(v)); }
    void boolean(bool v) { out_.push_back(v ? 1 : 0); }
    void uuid(const Uuid& u) { raw(u.bytes); }

    void unsigned_varint(std::uint32_t v) {
        while (v >= 0x80) {
            out_.push_back(static_cast<std::uint8_t>(v | 0x80));
            v >>= 7;
        }
        out_.push_back(static_cast<std::uint8_t>(v));
    }
    void unsigned_varlong(std::uint64_t v) {
        while (v >= 0x80) {
            out_.push_back(static_cast<std::uint8_t>(v | 0x80));
            v >>= 7;
        }
        out_.push_back(static_cast<std::uint8_t>(v));
    }
    void varint(std::int32_t v) {
        unsigned_varint((static_cast<std::uint32_t>(v) << 1) ^ static_cast<std::uint32_t>(v >> 31));
    }
    void varlong(std::int64_t v) {
        unsigned_varlong((static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63));
    }

    void raw(std::span<const std::uint8_t> b) { out_.insert(out_.end(), b.begin(), b.end()); }
    void region(const FileRegion& r) {
        if (splices_ && r.length >= kMinSplicedBytes)
            splices_->push_back({out_.size(), r});
        else
            append_region(out_, r);
    }

    // Length prefix for bytes/arrays (-1 = null).
    void length(bool compact, std::int64_t n) {
        if (compact)
            unsigned_varint(static_cast<std::uint32_t>(n + 1));
        else
            int32(static_cast<std::int32_t>(n));
    }
    void string_length(bool compact, std::int64_t n) {
        if (compact)
            unsigned_varint(static_cast<std::uint32_t>(n + 1));
        else
            int16(static_cast<std::int16_t>(n));
    }

    void string(bool compact, std::string_view s) {
        string_length(compact, static_cast<std::int64_t>(s.size()));
        raw({reinterpret_cast<const std::uint8_t*>(s.data()), s.size()});
    }
    void nullable_string(bool compact, const std::optional<std::string>& s) {
        if (!s)
            string_length(compact, -1);
        else
            string(compact, *s);
    }
    void bytes(bool compact, std::span<const std::uint8_t> b) {
        length(compact, static_cast<std::int64_t>(b.size()));
        raw(b);
    }
    void nullable_bytes(bool compact, const std::optional<Bytes>& b) {
        if (!b)
            length(compact, -1);
        else
            bytes(compact, *b);
    }

    // Reserve a fixed-width slot now and fill it later (sizes, CRCs).
    std::size_t reserve_int32() {
        auto at = out_.size();
        int32(0);
        return at;
    }
    void patch_int32(std::size_t at, std::int32_t v) {
        auto u = static_cast<std::uint32_t>(v);
        if constexpr (std::endian::native == std::endian::little) u = __builtin_bswap32(u);
        std::memcpy(out_.data() + at, &u, 4);
    }

    // Room for `n` more bytes, unless collecting splices: then `n` counts file
    // regions that never enter the buffer, which grows as written instead.
    void reserve_more(std::size_t n) {
        if (!splices_) out_.reserve(out_.size() + n);
    }

    [[nodiscard]] std::size_t size() const { return out_.size(); }
    Bytes& buffer() { return out_; }

private:
    template <typename T>
    void fixed(T v) {
        if constexpr (std::endian::native == std::endian::little && sizeof(T) > 1) {
            if constexpr (sizeof(T) == 2)
                v = static_cast<T>(__builtin_bswap16(v));
            else if constexpr (sizeof(T) == 4)
                v = static_cast<T>(__builtin_bswap32(v));
            else
                v = static_cast<T>(__builtin_bswap64(v));
        }
        std::uint8_t b[sizeof(T)];
        std::memcpy(b, &v, sizeof(T));
        out_.insert(out_.end(), b, b + sizeof(T));
    }

    Bytes& out_;
    std::vector<Splice>* splices_ = nullptr;
};

// Encoded sizes, for exact reservation.
namespace size_of {
constexpr std::size_t unsigned_varint(std::uint32_t v) {
    std::size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        ++n;
    }
    return n;
}
constexpr std::size_t unsigned_varlong(std::uint64_t v) {
    std::size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        ++n;
    }
    return n;
}
constexpr std::size_t varint(std::int32_t v) {
    return unsigned_varint((static_cast<std::uint32_t>(v) << 1) ^ static_cast<std::uint32_t>(v >> 31));
}
constexpr std::size_t varlong(std::int64_t v) {
    return unsigned_varlong((static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63));
}
constexpr std::size_t length(bool compact, std::int64_t n) {
    return compact ? unsigned_varint(static_cast<std::uint32_t>(n + 1)) : 4;
}
constexpr std::size_t string_length(bool compact, std::int64_t n) {
    return compact ? unsigned_varint(static_cast<std::uint32_t>(n + 1)) : 2;
}
inline std::size_t string(bool compact, std::string_view s) {
    return string_length(compact, static_cast<std::int64_t>(s.size())) + s.size();
}
inline std::size_t nullable_string(bool compact, const std::optional<std::string>& s) {
    return s ? string(compact, *s) : string_length(compact, -1);
}
inline std::size_t bytes(bool compact, std::size_t n) { return length(compact, static_cast<std::int64_t>(n)) + n; }
}  // namespace size_of

}  // namespace weir::wire
