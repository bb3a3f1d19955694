#include "protocol/uuid.h"

#include <random>

namespace weir {

namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int decode_char(char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '-') return 62;
    if (c == '_') return 63;
    return -1;
}

}  // namespace

Uuid Uuid::random() {
    std::random_device rd;
    while (true) {
        Uuid id;
        for (std::size_t i = 0; i < id.bytes.size(); i += 4) {
            std::uint32_t r = rd();
            for (std::size_t k = 0; k < 4; ++k) id.bytes[i + k] = static_cast<std::uint8_t>(r >> (8 * k));
        }
        id.bytes[6] = static_cast<std::uint8_t>((id.bytes[6] & 0x0F) | 0x40);  // version 4
        id.bytes[8] = static_cast<std::uint8_t>((id.bytes[8] & 0x3F) | 0x80);  // IETF variant
        if (id.is_zero() || id == from_halves(0, 1) || id.to_string().front() == '-') continue;
        return id;
    }
}

Uuid Uuid::from_halves(std::uint64_t most_significant, std::uint64_t least_significant) {
    Uuid id;
    for (std::size_t i = 0; i < 8; ++i) {
        id.bytes[i] = static_cast<std::uint8_t>(most_significant >> (56 - 8 * i));
        id.bytes[8 + i] = static_cast<std::uint8_t>(least_significant >> (56 - 8 * i));
    }
    return id;
}

std::optional<Uuid> Uuid::from_string(std::string_view s) {
    if (s.size() != 22) return std::nullopt;
    Uuid id;
    std::uint32_t acc = 0;
    int bits = 0;
    std::size_t out = 0;
    for (char c : s) {
        int v = decode_char(c);
        if (v < 0) return std::nullopt;
        acc = (acc << 6) | static_cast<std::uint32_t>(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (out == id.bytes.size()) return std::nullopt;
            id.bytes[out++] = static_cast<std::uint8_t>(acc >> bits);
        }
    }
    // 22 chars carry 132 bits: the 4 spare bits must be zero (canonical form).
    if (out != id.bytes.size() || (acc & ((1U << bits) - 1)) != 0) return std::nullopt;
    return id;
}

std::string Uuid::to_string() const {
    std::string out;
    out.reserve(22);
    std::uint32_t acc = 0;
    int bits = 0;
    for (std::uint8_t b : bytes) {
        acc = (acc << 8) | b;
        bits += 8;
        while (bits >= 6) {
            bits -= 6;
            out += kAlphabet[(acc >> bits) & 0x3F];
        }
    }
    if (bits > 0) out += kAlphabet[(acc << (6 - bits)) & 0x3F];
    return out;
}

bool Uuid::is_zero() const noexcept {
    for (std::uint8_t b : bytes)
        if (b != 0) return false;
    return true;
}

std::uint64_t Uuid::most_significant() const noexcept {
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < 8; ++i) v = (v << 8) | bytes[i];
    return v;
}

std::uint64_t Uuid::least_significant() const noexcept {
    std::uint64_t v = 0;
    for (std::size_t i = 8; i < 16; ++i) v = (v << 8) | bytes[i];
    return v;
}

}  // namespace weir
