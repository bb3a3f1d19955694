#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace weir::metadata {

// Kafka's Uuid: 16 bytes, on the wire as two big-endian int64s (the bytes in
// order), shown as 22 characters of URL-safe base64 without padding.
struct Uuid {
  std::array<uint8_t, 16> bytes{};

  // A random (version 4) id avoiding what Kafka's Uuid.randomUuid avoids: the
  // zero id, the metadata topic id (0, 1) and strings starting with '-'.
  static Uuid random();
  static std::optional<Uuid> from_string(std::string_view base64);
  static Uuid from_halves(uint64_t most_significant, uint64_t least_significant);

  std::string to_string() const;
  bool is_zero() const noexcept;
  uint64_t most_significant() const noexcept;
  uint64_t least_significant() const noexcept;

  auto operator<=>(const Uuid&) const = default;
};

}  // namespace weir::metadata
