#pragma once
// Kafka's Uuid (topic ids, and more ids as later API versions add them): 16
// bytes, on the wire as two big-endian int64s (the bytes in order), shown as 22
// characters of URL-safe base64 without padding. The zero id is Kafka's
// Uuid.ZERO_UUID, which the protocol uses for "none".
#include <array>
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace weir {

struct Uuid {
    std::array<std::uint8_t, 16> bytes{};

    // A random (version 4) id avoiding what Kafka's Uuid.randomUuid avoids: the
    // zero id, the metadata topic id (0, 1) and strings starting with '-'.
    static Uuid random();
    static std::optional<Uuid> from_string(std::string_view base64);
    static Uuid from_halves(std::uint64_t most_significant, std::uint64_t least_significant);

    [[nodiscard]] std::string to_string() const;
    [[nodiscard]] bool is_zero() const noexcept;
    [[nodiscard]] std::uint64_t most_significant() const noexcept;
    [[nodiscard]] std::uint64_t least_significant() const noexcept;

    auto operator<=>(const Uuid&) const = default;
};

}  // namespace weir
