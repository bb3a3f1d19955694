#pragma once
// Minimal line logger to stderr: "2026-12-02T08:00:00.123Z INFO message".
// One write() per line so concurrent lines never interleave.
#include <fmt/format.h>

#include <string_view>

namespace weir::logging {

enum class Level { debug, info, warn, error };

void write(Level level, std::string_view message);
void set_min_level(Level level);
bool enabled(Level level);

template <typename... Args>
void info(fmt::format_string<Args...> f, Args&&... args) {
    write(Level::info, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void warn(fmt::format_string<Args...> f, Args&&... args) {
    write(Level::warn, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void error(fmt::format_string<Args...> f, Args&&... args) {
    write(Level::error, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void debug(fmt::format_string<Args...> f, Args&&... args) {
    if (enabled(Level::debug)) write(Level::debug, fmt::format(f, std::forward<Args>(args)...));
}

}  // namespace weir::logging
