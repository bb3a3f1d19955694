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
    enum class Kind : std::uint8_t {
        none,
        at_least,  // number >= min
        between,   // min <= number <= max
        one_of,    // string in choices (case-sensitive, as ConfigDef.ValidString)
        list_of,   // every list element in choices (ConfigDef.ValidList)
        custom,    // check(normalized) returns an error reason or nothing
    };
    Kind kind = Kind::none;
    std::int64_t min = 0;
    std::int64_t max = 0;
    std::span<const std::string_view> choices{};
    std::optional<std::string> (*check)(std::string_view normalized) = nullptr;

    static constexpr Validator at_least(std::int64_t v) { return {Kind::at_least, v, 0, {}, nullptr}; }
    static constexpr Validator between(std::int64_t lo, std::int64_t hi) {
        return {Kind::between, lo, hi, {}, nullptr};
    }
    static constexpr Validator one_of(std::span<const std::string_view> c) { return {Kind::one_of, 0, 0, c, nullptr}; }
    static constexpr Validator list_of(std::span<const std::string_view> c) {
        return {Kind::list_of, 0, 0, c, nullptr};
    }
    static constexpr Validator custom(std::optional<std::string> (*f)(std::string_view)) {
        return {Kind::custom, 0, 0, {}, f};
    }
};

// One known configuration key (broker or topic level).
struct ConfigKey {
    std::string_view name;
    ConfigType type = ConfigType::string;
    std::optional<std::string_view> default_value;  // nullopt: Kafka's null default
    Importance importance = Importance::medium;
    std::string_view doc;
    Validator validator{};
    // Kafka can change it without a restart (DynamicBrokerConfig); DescribeConfigs
    // reports read_only = !dynamic for broker keys. Topic keys are never read-only.
    bool dynamic = false;
    // Weir reads this key; otherwise it is accepted for compatibility and ignored.
    bool used = true;

    bool sensitive() const noexcept { return type == ConfigType::password; }
};

// Converts a raw value the way Kafka's ConfigDef.parseType + convertToString do
// (trim; booleans case-insensitive; numbers range-checked for their type; lists
// split on commas with surrounding whitespace dropped), then applies the key's
// validator. Returns the canonical string; throws ConfigError with Kafka's
// "Invalid value <v> for configuration <k>: <reason>" message.
std::string normalize_value(const ConfigKey& key, std::string_view raw);

// Typed reads of a canonical value (as returned by normalize_value).
bool as_bool(std::string_view canonical);
std::int64_t as_int(std::string_view canonical);  // INT, SHORT, LONG
double as_double(std::string_view canonical);
std::vector<std::string> as_list(std::string_view canonical);

// Kafka's Java-style string trim (drops every char <= ' ' at both ends).
std::string_view trim(std::string_view s) noexcept;

// Builds the Kafka-style message.
std::string invalid_value_message(std::string_view key, std::string_view value, std::string_view reason);

}  // namespace weir::config
