#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "broker/config/broker_config.h"
#include "broker/config/config_keys.h"
#include "broker/config/config_types.h"
#include "broker/config/dynamic_broker_config.h"
#include "broker/storage/log_config.h"

namespace weir::config {

// Effective configuration of one topic: its overrides over the broker's
// defaults. `log` is what the log and the partition act on (Kafka's
// LogConfig); `values` holds every topic key's canonical value, for
// DescribeConfigs. Which key sets which field is the table's column
// (config_keys.cc), so a key is one line there.
struct TopicConfig {
    storage::LogConfig log;
    bool unclean_leader_election_enable = false;  // read by the controller

    ConfigMap values;
};

// Checks topic-level overrides (CreateTopics configs, AlterConfigs). Returns
// nothing when valid, else the message for an INVALID_CONFIG error
// ("Unknown topic config name: x", "Invalid value ... for configuration ...").
// On success, `normalized` (if given) receives the canonical values to store.
std::optional<std::string> validate_topic_configs(const ConfigMap& overrides, ConfigMap* normalized = nullptr);

// The value a topic without an override gets: the broker's setting of the
// synonym keys in `broker_props` (the props the broker runs with, see
// current_broker_props), then their defaults, converting hours/minutes to ms;
// else Kafka's topic default.
std::string topic_default_value(const ConfigMap& broker_props, const TopicConfigKey& key);

// Broker defaults + overrides. Overrides that do not validate are ignored
// (stores only hold validated ones). The broker defaults include its dynamic
// configs, so changing log.retention.ms at runtime reaches every topic that
// does not set retention.ms itself (Kafka's DynamicLogConfig).
TopicConfig resolve_topic_config(const BrokerConfig& broker, const ConfigMap& overrides,
                                 const DynamicBrokerConfigs& dynamic = {});

}  // namespace weir::config
