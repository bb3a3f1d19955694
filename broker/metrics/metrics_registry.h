#pragma once
// The broker's counters: requests, errors and durations by API, traffic by
// topic, ISR changes. One object owned by the Broker and handed to whoever
// counts; everything runs on the one I/O thread, so counting is a plain
// increment (no atomics, no locks) and scraping reads the same memory.
// Gauges (log offsets, lag, connections) are not kept here: the admin
// listener reads them from their owners when scraped.
#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "protocol/errors.h"

namespace weir::metrics {

// Upper bounds (seconds) of the request duration buckets; +Inf is implied.
inline constexpr std::array<double, 14> kDurationBuckets = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                                            0.1,    0.25,  0.5,    1.0,   2.5,  5.0,   10.0};

struct Histogram {
    // Non-cumulative: counts[i] observations fell in bucket i (the last one is +Inf).
    std::array<std::uint64_t, kDurationBuckets.size() + 1> counts{};
    double sum = 0;
    std::uint64_t count = 0;

    void observe(double seconds);
};

struct ApiMetrics {
    std::uint64_t requests = 0;
    Histogram duration;
    // Few distinct errors per API: a flat list beats a map.
    std::vector<std::pair<ErrorCode, std::uint64_t>> errors;
};

struct TopicTraffic {
    std::uint64_t bytes_in = 0;
    std::uint64_t bytes_out = 0;
    std::uint64_t messages_in = 0;
};

// The background log scrub's totals (weir.log.scrub.*), as the scrubber counts them.
struct ScrubCounters {
    std::uint64_t bytes = 0;
    std::uint64_t damaged_segments = 0;
    std::uint64_t passes = 0;
};

class MetricsRegistry {
public:
    struct StringHash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
    };
    using TopicMap = std::unordered_map<std::string, TopicTraffic, StringHash, std::equal_to<>>;

    void record_request(std::int16_t api_key, std::chrono::steady_clock::duration elapsed);
    void record_error(std::int16_t api_key, ErrorCode error, std::uint64_t n = 1);
    // The topic's counters, created on first use.
    TopicTraffic& topic(std::string_view name);
    // A deleted topic's series go with it.
    void forget_topic(std::string_view name) { topics_.erase(std::string(name)); }
    void isr_shrunk() { ++isr_shrinks_; }
    void isr_expanded() { ++isr_expands_; }
    void set_scrub(ScrubCounters counters) { scrub_ = counters; }
    void set_offline_log_dirs(std::uint64_t n) { offline_log_dirs_ = n; }

    // Indexed by API key; keys never requested have requests == 0.
    [[nodiscard]] const std::vector<ApiMetrics>& apis() const { return apis_; }
    [[nodiscard]] const TopicMap& topics() const { return topics_; }
    [[nodiscard]] std::uint64_t isr_shrinks() const { return isr_shrinks_; }
    [[nodiscard]] std::uint64_t isr_expands() const { return isr_expands_; }
    [[nodiscard]] const ScrubCounters& scrub() const { return scrub_; }
    [[nodiscard]] std::uint64_t offline_log_dirs() const { return offline_log_dirs_; }

private:
    ApiMetrics& api(std::int16_t api_key);

    std::vector<ApiMetrics> apis_;
    TopicMap topics_;
    std::uint64_t isr_shrinks_ = 0;
    std::uint64_t isr_expands_ = 0;
    ScrubCounters scrub_;
    std::uint64_t offline_log_dirs_ = 0;
};

}  // namespace weir::metrics
