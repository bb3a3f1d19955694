#pragma once
// Bounds-checked reader for the Kafka wire format. Every read either succeeds
// or throws DecodeError; nothing reads past the end of the span.
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/uuid.h"

namespace weir::wire {

using Bytes = std::vector<std::uint8_t>;
using ByteSpan = std::span<const std::uint8_t>;
// The same type as weir::Uuid: codec code may keep naming it wire::Uuid.
using Uuid = weir::Uuid;

class DecodeError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class Reader {
public:
    explicit Reader(ByteSpan data) : data_(data) {}
    // With an owner, decoded `records` fields alias the input (zero copy) and
    // share ownership of it; without one they copy.
    Reader(ByteSpan data, std::shared_ptr<const void> owner) : data_(data), owner_(std::move(owner)) {}

    [[nodiscard]] const std::shared_ptr<const void>& owner() const { return owner_; }

    [[nodiscard]] std::size_t remaining() const { return data_.size() - pos_; }
    [[nodiscard]] std::size_t position() const { return pos_; }
    [[nodiscard]] bool at_end() const { return pos_ == data_.size(); }
    [[nodiscard]] ByteSpan rest() const { return data_.subspan(pos_); }

    std::int8_t int8() { return static_cast<std::int8_t>(fixed<std::uint8_t>()); }
    std::int16_t int16() { return static_cast<std::int16_t>(fixed<std::uint16_t>()); }
    std::int32_t int32() { return static_cast<std::int32_t>(fixed<std::uint32_t>()); }
    std::int64_t int64() { return static_cast<std::int64_t>(fixed<std::uint64_t>()); }
    std::uint8_t uint8() { return fixed<std::uint8_t>(); }
    std::uint16_t uint16() { return fixed<std::uint16_t>(); }
    std::uint32_t uint32() { return fixed<std::uint32_t>(); }
    std::uint64_t uint64() { return fixed<std::uint64_t>(); }
    double float64() { return std::bit_cast<double>(fixed<std::uint64_t>()); }
    bool boolean() { return uint8() != 0; }

    Uuid uuid() {
        Uuid u;
        auto b = take(u.bytes.size());
        std::memcpy(u.bytes.data(), b.data(), u.bytes.size());
        return u;
    }

    std::uint32_t unsigned_varint() {
        std::uint32_t value = 0;
        for (int shift = 0; shift < 35; shift += 7) {
            std::uint8_t b = uint8();
            if (shift == 28 && (b & 0xf0) != 0) throw DecodeError("unsigned varint overflows 32 bits");
            value |= static_cast<std::uint32_t>(b & 0x7f) << shift;
            if ((b & 0x80) == 0) return value;
        }
        throw DecodeError("unsigned varint too long");
    }

    std::uint64_t unsigned_varlong() {
        std::uint64_t value = 0;
        for (int shift = 0; shift < 70; shift += 7) {
            std::uint8_t b = uint8();
            if (shift == 63 && (b & 0xfe) != 0) throw DecodeError("unsigned varlong overflows 64 bits");
            value |= static_cast<std::uint64_t>(b & 0x7f) << shift;
            if ((b & 0x80) == 0) return value;
        }
        throw DecodeError("unsigned varlong too long");
    }

    // Zig-zag encoded signed varints (record fields).
    std::int32_t varint() {
        std::uint32_t v = unsigned_varint();
        return static_cast<std::int32_t>((v >> 1) ^ (~(v & 1) + 1));
    }
    std::int64_t varlong() {
        std::uint64_t v = unsigned_varlong();
        return static_cast<std::int64_t>((v >> 1) ^ (~(v & 1) + 1));
    }

    ByteSpan take(std::size_t n) {
        if (n > remaining()) throw DecodeError("truncated input");
        auto s = data_.subspan(pos_, n);
        pos_ += n;
        return s;
    }
    void skip(std::size_t n) { (void)take(n); }

    // Length prefixes. Returns -1 for null; throws on any other negative value
    // or a length larger than what is left (so callers can reserve safely).
    std::int32_t length(bool compact) {
        std::int64_t n = compact ? static_cast<std::int64_t>(unsigned_varint()) - 1 : int32();
        if (n < -1) throw DecodeError("negative length");
        return static_cast<std::int32_t>(n);
    }
    std::int32_t string_length(bool compact) {
        std::int64_t n = compact ? static_cast<std::int64_t>(unsigned_varint()) - 1 : int16();
        if (n < -1) throw DecodeError("negative string length");
        return static_cast<std::int32_t>(n);
    }
    // Array element count; each element takes at least one byte, so a count
    // above the remaining bytes is malformed (guards against huge reserves).
    std::int32_t array_length(bool compact) {
        std::int32_t n = length(compact);
        if (n > 0 && static_cast<std::size_t>(n) > remaining()) throw DecodeError("array length exceeds input");
        return n;
    }

    std::string string(bool compact) {
        auto n = string_length(compact);
        if (n < 0) throw DecodeError("null string in non-nullable field");
        auto b = take(static_cast<std::size_t>(n));
        return {reinterpret_cast<const char*>(b.data()), b.size()};
    }
    std::optional<std::string> nullable_string(bool compact) {
        auto n = string_length(compact);
        if (n < 0) return std::nullopt;
        auto b = take(static_cast<std::size_t>(n));
        return std::string(reinterpret_cast<const char*>(b.data()), b.size());
    }
    // Returns a view into the input; std::nullopt for null.
    std::optional<ByteSpan> nullable_bytes_view(bool compact) {
        auto n = length(compact);
        if (n < 0) return std::nullopt;
        return take(static_cast<std::size_t>(n));
    }
    ByteSpan bytes_view(bool compact) {
        auto v = nullable_bytes_view(compact);
        if (!v) throw DecodeError("null bytes in non-nullable field");
        return *v;
    }
    Bytes bytes(bool compact) {
        auto v = bytes_view(compact);
        return Bytes(v.begin(), v.end());
    }
    std::optional<Bytes> nullable_bytes(bool compact) {
        auto v = nullable_bytes_view(compact);
        if (!v) return std::nullopt;
        return Bytes(v->begin(), v->end());
    }

private:
    template <typename T>
    T fixed() {
        auto b = take(sizeof(T));
        T v;
        std::memcpy(&v, b.data(), sizeof(T));
        if constexpr (std::endian::native == std::endian::little && sizeof(T) > 1) v = byteswap(v);
        return v;
    }
    template <typename T>
    static T byteswap(T v) {
        if constexpr (sizeof(T) == 2)
            return static_cast<T>(__builtin_bswap16(v));
        else if constexpr (sizeof(T) == 4)
            return static_cast<T>(__builtin_bswap32(v));
        else
            return static_cast<T>(__builtin_bswap64(v));
    }

    ByteSpan data_;
    std::shared_ptr<const void> owner_;
    std::size_t pos_ = 0;
};

}  // namespace weir::wire
