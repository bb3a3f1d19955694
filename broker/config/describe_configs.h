#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker/config/broker_config.h"
#include "broker/config/config_types.h"
#include "broker/config/dynamic_broker_config.h"

namespace weir::config {

struct ConfigSynonymEntry {
    std::string name;
    std::optional<std::string> value;
    ConfigSource source = ConfigSource::default_config;
};

// One DescribeConfigs result entry, computed as Kafka's ConfigHelper does.
struct ConfigEntry {
    std::string name;
    std::optional<std::string> value;  // null: sensitive, or unset without default
    ConfigSource source = ConfigSource::default_config;
    bool read_only = false;
    bool is_sensitive = false;
    ConfigType type = ConfigType::unknown;
    std::string_view documentation;
    // Always filled; drop them when the request has IncludeSynonyms=false.
    std::vector<ConfigSynonymEntry> synonyms;

    // DescribeConfigs v0's IsDefault.
    bool is_default() const noexcept { return source == ConfigSource::default_config; }
};

// Every known broker key of this broker (resource type BROKER, name = broker
// id), then the other names its dynamic configs set (listener overrides,
// throttles, custom keys). Synonyms run from this broker's dynamic value over
// the cluster default and server.properties to Kafka's default.
std::vector<ConfigEntry> describe_broker_configs(const BrokerConfig& broker, const DynamicBrokerConfigs& dynamic = {});

// The cluster-wide dynamic defaults (resource type BROKER, name ""): only the
// names set at that level, each with only its default-level synonyms.
std::vector<ConfigEntry> describe_default_broker_configs(const DynamicBrokerConfigs& dynamic);

// Every topic key of a topic with these (validated) overrides.
std::vector<ConfigEntry> describe_topic_configs(const BrokerConfig& broker, const ConfigMap& topic_overrides,
                                                const DynamicBrokerConfigs& dynamic = {});

}  // namespace weir::config
