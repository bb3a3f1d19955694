#include "broker/common/logging.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <ctime>

namespace weir::logging {
namespace {
// The one process-wide setting; atomic so any thread may log.
std::atomic<Level>& min_level() {
    static std::atomic<Level> level{Level::info};
    return level;
}
constexpr std::string_view name(Level l) {
    switch (l) {
        case Level::debug:
            return "DEBUG";
        case Level::info:
            return "INFO";
        case Level::warn:
            return "WARN";
        case Level::error:
            return "ERROR";
    }
    return "?";
}
}  // namespace

void set_min_level(Level level) { min_level().store(level); }
bool enabled(Level level) { return level >= min_level().load(std::memory_order_relaxed); }

void write(Level level, std::string_view message) {
    if (!enabled(level)) return;
    using namespace std::chrono;
    auto now = system_clock::now();
    auto secs = system_clock::to_time_t(now);
    auto ms = duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000;
    std::tm tm{};
    gmtime_r(&secs, &tm);
    auto line = fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z {} {}\n", tm.tm_year + 1900, tm.tm_mon + 1,
                            tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms, name(level), message);
    [[maybe_unused]] auto n = ::write(STDERR_FILENO, line.data(), line.size());
}

}  // namespace weir::logging
