#pragma once

// The command line of `weir configs`: Kafka 3.7's kafka-configs.sh for topic configs.
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace weir::cli::configs {

enum class ConfigsAction { Describe, Alter };

struct ConfigsOptions {
    std::string bootstrap;
    std::optional<std::string> command_config;
    std::string topic;  // --entity-type topics --entity-name T, or --topic T
    ConfigsAction action = ConfigsAction::Describe;
    bool all = false;                                         // --describe --all
    std::vector<std::pair<std::string, std::string>> to_add;  // --add-config
    std::vector<std::string> to_delete;                       // --delete-config
    bool help = false;
};

// What kafka-configs.sh refuses before it starts; the message is printed on stderr with the usage.
class ConfigsUsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Parses what follows `weir configs`; throws ConfigsUsageError.
ConfigsOptions parse_configs_args(const std::vector<std::string>& args);

// --add-config: k1=v1,k2=[v1,v2] (a value in brackets may hold commas; the brackets go).
std::vector<std::pair<std::string, std::string>> parse_configs_to_add(const std::string& text);

std::string configs_usage_text();

}  // namespace weir::cli::configs
