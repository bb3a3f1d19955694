#pragma once

#include <filesystem>
#include <string_view>

#include "broker/config/config_types.h"

namespace weir::config {

// Parses text in java.util.Properties format, as Kafka reads server.properties and
// kafka-topics.sh its --command-config file (`weir topics` reads that with this too):
// '#'/'!' comment lines, key=value / key:value / key value, '\' line continuation
// (leading whitespace of the next line dropped), escapes \t \n \r \f \uXXXX and
// '\x' -> 'x'. A later key replaces an earlier one. Like Java, trailing whitespace
// of a value is kept (Kafka trims when it converts the value; so does BrokerConfig).
// Bytes outside ASCII pass through unchanged; \uXXXX is written as UTF-8, a pair
// of surrogate escapes as the one code point they encode and a lone surrogate
// as U+FFFD (UTF-8 has no encoding for it).
// Throws ConfigError on a malformed \u escape, as Java does.
ConfigMap parse_properties(std::string_view text);

// Reads and parses a file. Throws ConfigError "<path> (<reason>)" if it cannot be
// read, worded as Java's FileInputStream, which is what kafka-topics.sh prints;
// a parse error is prefixed with "<path>: ".
ConfigMap load_properties_file(const std::filesystem::path& path);

}  // namespace weir::config
