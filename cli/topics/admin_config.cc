#include "cli/topics/admin_config.h"

#include <fmt/format.h>

#include <charconv>
#include <ostream>
#include <stdexcept>

#include "broker/config/properties.h"
#include "cli/topics/kafka_topic_admin.h"

namespace weir::cli::topics {

namespace {
constexpr std::int64_t kMaxTimeoutMs = 86'400'000;  // a day; keeps every derived wait within an int
}

AdminConfig admin_config(const std::string& bootstrap, const std::optional<std::string>& command_config,
                         std::ostream& err) {
    AdminConfig config;
    config.bootstrap = bootstrap;
    if (!command_config) return config;
    auto properties = weir::config::load_properties_file(*command_config);
    if (auto it = properties.find("default.api.timeout.ms"); it != properties.end()) {
        std::int64_t ms = 0;
        const std::string& text = it->second;
        auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), ms);
        if (ec != std::errc{} || ptr != text.data() + text.size() || ms <= 0 || ms > kMaxTimeoutMs)
            throw std::runtime_error(
                fmt::format("Invalid value {} for configuration default.api.timeout.ms: expected milliseconds in 1..{}",
                            text, kMaxTimeoutMs));
        config.timeout = std::chrono::milliseconds(ms);
        properties.erase(it);
    }
    for (const auto& key : unknown_client_properties(properties)) {
        err << "WARN The configuration '" << key << "' was supplied but isn't a known config.\n";
        properties.erase(key);
    }
    config.properties.assign(properties.begin(), properties.end());
    return config;
}

}  // namespace weir::cli::topics
