#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "broker/config/config_types.h"

namespace weir::config {

// Kafka's ConfigDef validators, as data.
struct Validator {
  enum class Kind : uint8_t {
    None,
    AtLeast,   // number >= min
    Between,   // min <= number <= max
    OneOf,     // string in choices (case-sensitive, as ConfigDef.ValidString)
    ListOf,    // every list element in choices (ConfigDef.ValidList)
    Custom,    // check(normalized) returns an error reason or nothing
  };
  Kind kind = Kind::None;
  int64_t min = 0;
  int64_t max = 0;
  std::span<const std::string_view> choices{};
  std::optional<std::string> (*check)(std::string_view normalized) = nullptr;

  static constexpr Validator at_least(int64_t v) { return {Kind::AtLeast, v, 0, {}, nullptr}; }
  static constexpr Validator between(int64_t lo, int64_t hi) { return {Kind::Between, lo, hi, {}, nullptr}; }
  static constexpr Validator one_of(std::span<const std::string_view> c) { return {Kind::OneOf, 0, 0, c, nullptr}; }
  static constexpr Validator list_of(std::span<const std::string_view> c) { return {Kind::ListOf, 0, 0, c, nullptr}; }
  static constexpr Validator custom(std::optional<std::string> (*f)(std::string_view)) {
    return {Kind::Custom, 0, 0, {}, f};
  }
};

// One known configuration key (broker or topic level).
struct ConfigKey {
  std::string_view name;
  ConfigType type = ConfigType::String;
  std::optional<std::string_view> default_value;  // nullopt: Kafka's null default
  Importance importance = Importance::Medium;
  std::string_view doc;
  Validator validator{};
  // Kafka can change it without a restart (DynamicBrokerConfig); DescribeConfigs
  // reports read_only = !dynamic for broker keys. Topic keys are never read-only.
  bool dynamic = false;
  // Weir reads this key; otherwise it is accepted for compatibility and ignored.
  bool used = true;

  bool sensitive() const noexcept { return type == ConfigType::Password; }
};

// Converts a raw value the way Kafka's ConfigDef.parseType + convertToString do
// (trim; booleans case-insensitive; numbers range-checked for their type; lists
// split on commas with surrounding whitespace dropped), then applies the key's
// validator. Returns the canonical string; throws ConfigError with Kafka's
// "Invalid value <v> for configuration <k>: <reason>" message.
std::string normalize_value(const ConfigKey& key, std::string_view raw);

// Typed reads of a canonical value (as returned by normalize_value).
bool as_bool(std::string_view canonical);
int64_t as_int(std::string_view canonical);  // INT, SHORT, LONG
double as_double(std::string_view canonical);
std::vector<std::string> as_list(std::string_view canonical);

// Kafka's Java-style string trim (drops every char <= ' ' at both ends).
std::string_view trim(std::string_view s) noexcept;

// Builds the Kafka-style message.
std::string invalid_value_message(std::string_view key, std::string_view value, std::string_view reason);

}  // namespace weir::config
