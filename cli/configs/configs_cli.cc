#include "cli/configs/configs_cli.h"

#include <algorithm>
#include <iostream>
#include <map>

#include "cli/configs/configs_args.h"
#include "cli/topics/admin_config.h"
#include "cli/topics/kafka_topic_admin.h"

namespace weir::cli::configs {

namespace {

constexpr int kOk = 0;
constexpr int kFailed = 1;
constexpr std::string_view kDynamicTopicConfig = "DYNAMIC_TOPIC_CONFIG";

// Kafka's InvalidConfigurationException: printed alone, as kafka-configs.sh does.
class InvalidConfiguration : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

std::vector<topics::ConfigEntry> topic_configs(topics::TopicAdmin& admin, const std::string& topic) {
    auto described = admin.describe_configs({topic});
    auto it = described.find(topic);
    if (it == described.end()) throw topics::AdminError(topics::kUnknownTopicOrPartition, "no configs for " + topic);
    std::sort(it->second.begin(), it->second.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    return it->second;
}

void describe(topics::TopicAdmin& admin, const ConfigsOptions& o, std::ostream& out) {
    out << (o.all ? "All" : "Dynamic") << " configs for topic " << o.topic << " are:\n";
    for (const auto& e : topic_configs(admin, o.topic)) {
        if (!o.all && e.source != kDynamicTopicConfig) continue;
        std::string synonyms;
        for (const auto& s : e.synonyms)
            synonyms += (synonyms.empty() ? "" : ", ") + s.source + ":" + s.name + "=" + s.value.value_or("null");
        out << "  " << e.name << "=" << (e.sensitive ? "null" : e.value.value_or("null"))
            << " sensitive=" << (e.sensitive ? "true" : "false") << " synonyms={" << synonyms << "}\n";
    }
}

void alter(topics::TopicAdmin& admin, const ConfigsOptions& o, std::ostream& out) {
    std::map<std::string, std::string> overrides;
    for (const auto& e : topic_configs(admin, o.topic))
        if (e.source == kDynamicTopicConfig) overrides[e.name] = e.value.value_or("");
    std::string invalid;
    for (const auto& k : o.to_delete)
        if (!overrides.contains(k)) invalid += (invalid.empty() ? "" : ",") + k;
    if (!invalid.empty()) throw InvalidConfiguration("Invalid config(s): " + invalid);
    for (const auto& k : o.to_delete) overrides.erase(k);
    for (const auto& [k, v] : o.to_add) overrides[k] = v;
    admin.alter_topic_configs(o.topic, {overrides.begin(), overrides.end()});
    out << "Completed updating config for topic " << o.topic << ".\n";
}

std::string joined(const std::vector<std::string>& args) {
    std::string s;
    for (const auto& a : args) s += (s.empty() ? "" : " ") + a;
    return s;
}

}  // namespace

int run_configs(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
                const topics::TopicAdminFactory& admin_factory) {
    ConfigsOptions o;
    try {
        o = parse_configs_args(args);
    } catch (const ConfigsUsageError& e) {
        err << e.what() << '\n' << configs_usage_text();
        return kFailed;
    }
    if (o.help) {
        out << configs_usage_text();
        return kOk;
    }
    try {
        auto config = topics::admin_config(o.bootstrap, o.command_config, err);
        auto admin = admin_factory ? admin_factory(config) : std::make_unique<topics::KafkaTopicAdmin>(config);
        if (o.action == ConfigsAction::Describe)
            describe(*admin, o, out);
        else
            alter(*admin, o, out);
        return kOk;
    } catch (const InvalidConfiguration& e) {
        err << e.what() << '\n';
    } catch (const std::exception& e) {
        err << "Error while executing config command with args '" << joined(args) << "'\n" << e.what() << '\n';
    }
    return kFailed;
}

int configs_main(const std::vector<std::string>& args) { return run_configs(args, std::cout, std::cerr); }

}  // namespace weir::cli::configs
