#pragma once

// --command-config files are Java property files (java.util.Properties.load).
#include <map>
#include <string>
#include <string_view>

namespace weir::cli::topics {

// `key=value`, `key: value` or `key value` per logical line; # and ! comments; a line ending in
// an odd number of backslashes continues on the next; \t \n \r \f \uXXXX and \<char> escapes.
// A key given twice keeps its last value.
std::map<std::string, std::string> parse_java_properties(std::string_view text);

// Reads and parses a file; throws std::runtime_error "<path> (<reason>)" as Java words it.
std::map<std::string, std::string> load_java_properties(const std::string& path);

}  // namespace weir::cli::topics
