#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

namespace weir::config {

// Key -> value, ordered; std::less<> allows lookups by string_view.
using ConfigMap = std::map<std::string, std::string, std::less<>>;

// Values are DescribeConfigsResponse's ConfigType field.
enum class ConfigType : int8_t {
  Unknown = 0,
  Boolean = 1,
  String = 2,
  Int = 3,
  Short = 4,
  Long = 5,
  Double = 6,
  List = 7,
  Class = 8,
  Password = 9,
};

// Values are DescribeConfigsResponse's ConfigSource field.
enum class ConfigSource : int8_t {
  Unknown = 0,
  DynamicTopicConfig = 1,
  DynamicBrokerConfig = 2,
  DynamicDefaultBrokerConfig = 3,
  StaticBrokerConfig = 4,
  DefaultConfig = 5,
  DynamicBrokerLoggerConfig = 6,
};

enum class Importance : uint8_t { High, Medium, Low };

const char* to_string(ConfigType type) noexcept;  // "INT", "LONG", ...

}  // namespace weir::config
