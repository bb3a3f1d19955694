#include "broker/metrics/metrics_registry.h"

#include <algorithm>

namespace weir::metrics {

void Histogram::observe(double seconds) {
    auto bucket =
        std::lower_bound(kDurationBuckets.begin(), kDurationBuckets.end(), seconds) - kDurationBuckets.begin();
    ++counts[static_cast<std::size_t>(bucket)];
    sum += seconds;
    ++count;
}

ApiMetrics& MetricsRegistry::api(std::int16_t api_key) {
    auto index = static_cast<std::size_t>(std::max<std::int16_t>(api_key, 0));
    if (index >= apis_.size()) apis_.resize(index + 1);
    return apis_[index];
}

void MetricsRegistry::record_request(std::int16_t api_key, std::chrono::steady_clock::duration elapsed) {
    auto& a = api(api_key);
    ++a.requests;
    a.duration.observe(std::chrono::duration<double>(elapsed).count());
}

void MetricsRegistry::record_error(std::int16_t api_key, ErrorCode error, std::uint64_t n) {
    auto& errors = api(api_key).errors;
    for (auto& [code, count] : errors) {
        if (code == error) {
            count += n;
            return;
        }
    }
    errors.emplace_back(error, n);
}

TopicTraffic& MetricsRegistry::topic(std::string_view name) {
    if (auto it = topics_.find(name); it != topics_.end()) return it->second;
    return topics_.emplace(std::string(name), TopicTraffic{}).first->second;
}

}  // namespace weir::metrics
