#include "cli/topics/topics_cli.h"

#include <fmt/format.h>

#include <charconv>
#include <iostream>

#include "broker/config/properties.h"
#include "cli/topics/kafka_topic_admin.h"
#include "cli/topics/topic_commands.h"
#include "cli/topics/topics_args.h"
#include "cli/topics/topics_errors.h"

namespace weir::cli::topics {

namespace {

constexpr int kOk = 0;
constexpr int kFailed = 1;

constexpr std::int64_t kMaxTimeoutMs = 86'400'000;  // a day; keeps every derived wait within an int

// The Java client's own timeout key sets our bound; the rest go to librdkafka, except the keys it
// does not know, which are dropped with the Java client's warning for an unknown key.
AdminConfig admin_config(const TopicsOptions& o, std::ostream& err) {
    AdminConfig config;
    config.bootstrap = o.bootstrap;
    if (!o.command_config) return config;
    auto properties = weir::config::load_properties_file(*o.command_config);
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

// Kafka prints this line on stdout and logs the exception on stderr; scripts read either.
void report_failure(const std::string& message, const std::string& hint, std::ostream& out, std::ostream& err) {
    out << "Error while executing topic command : " << message << '\n';
    err << "ERROR " << message << hint << '\n';
}

}  // namespace

int run_topics(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
               const TopicAdminFactory& admin_factory) {
    TopicsOptions o;
    try {
        o = parse_topics_args(args);
    } catch (const UsageError& e) {
        err << e.what() << '\n';
        if (e.with_usage()) err << topics_usage_text();
        return kFailed;
    } catch (const CommandError& e) {
        report_failure(e.what(), "", out, err);
        return kFailed;
    }

    // Kafka builds its admin client before executing, so these failures are plain messages on stderr.
    AdminConfig config;
    std::unique_ptr<TopicAdmin> admin;
    try {
        config = admin_config(o, err);
        admin = admin_factory ? admin_factory(config) : std::make_unique<KafkaTopicAdmin>(config);
    } catch (const std::exception& e) {
        err << e.what() << '\n';
        return kFailed;
    }

    try {
        run_topic_command(*admin, o, out);
        return kOk;
    } catch (const AdminError& e) {
        // librdkafka's own errors ("Local: Timed out", "Local: Broker transport failure") usually
        // mean the cluster was not reached: say where we looked and for how long.
        std::string hint;
        if (e.code() < 0)
            hint = fmt::format(" (bootstrap {}, timeout {} ms)", config.bootstrap, config.timeout.count());
        report_failure(e.what(), hint, out, err);
    } catch (const std::exception& e) {
        report_failure(e.what(), "", out, err);
    }
    return kFailed;
}

int topics_main(const std::vector<std::string>& args) { return run_topics(args, std::cout, std::cerr); }

}  // namespace weir::cli::topics
