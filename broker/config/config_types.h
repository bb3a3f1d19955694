#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

namespace weir::config {

// Key -> value, ordered; std::less<> allows lookups by string_view.
using ConfigMap = std::map<std::string, std::string, std::less<>>;

// Values are DescribeConfigsResponse's ConfigType field.
// Kafka's ConfigDef.Type names, as the protocol definitions spell integer and
// floating types (INT is int32, SHORT int16, LONG int64, DOUBLE float64).
enum class ConfigType : std::int8_t {
    unknown = 0,
    boolean = 1,
    string = 2,
    int32 = 3,
    int16 = 4,
    int64 = 5,
    float64 = 6,
    list = 7,
    class_name = 8,
    password = 9,
};

// Values are DescribeConfigsResponse's ConfigSource field.
enum class ConfigSource : std::int8_t {
    unknown = 0,
    dynamic_topic_config = 1,
    dynamic_broker_config = 2,
    dynamic_default_broker_config = 3,
    static_broker_config = 4,
    default_config = 5,
    dynamic_broker_logger_config = 6,
};

enum class Importance : std::uint8_t { high, medium, low };

const char* to_string(ConfigType type) noexcept;  // "INT", "LONG", ...

}  // namespace weir::config
