#pragma once
// Dynamic broker configs (Kafka's KIP-226, DynamicBrokerConfig): which keys may
// change without a restart and at which level, the values the broker runs with
// once they are laid over server.properties, and the checks a change passes.
//
// Weir acts on the dynamic value of a key exactly where it reads the key at
// all: the log.* topic defaults (and message.max.bytes, compression.type, ...)
// reach every topic without its own override, as the static values do. Keys it
// accepts only for compatibility (SSL/SASL, thread pools, connection quotas,
// metric reporters, producer state) are validated, stored and described, and
// otherwise ignored, like their server.properties counterparts.
#include <optional>
#include <string>
#include <string_view>

#include "broker/config/config_def.h"
#include "broker/config/config_types.h"

namespace weir::config {

struct BrokerConfig;

// The two dynamic levels, canonical values: this broker's own set (resource
// name = its id; DYNAMIC_BROKER_CONFIG) and the cluster-wide defaults
// (resource name ""; DYNAMIC_DEFAULT_BROKER_CONFIG).
struct DynamicBrokerConfigs {
    ConfigMap broker;
    ConfigMap cluster_default;

    bool empty() const noexcept { return broker.empty() && cluster_default.empty(); }
};

// Kafka's DynamicBrokerConfig.AllDynamicConfigs; DescribeConfigs reports every
// other name read-only.
bool is_dynamic_broker_config(std::string_view name);

// The definition a broker config name is typed by (Kafka's
// KafkaConfig.configType): a server.properties key, a key that only exists
// dynamically (the replication throttles), or for a listener override the key
// it overrides. nullptr for custom names, which Kafka stores untyped for
// plugins and describes as sensitive.
const ConfigKey* broker_config_key_for(std::string_view name);

// The stored sets without the entries Kafka drops when it loads them
// (DynamicBrokerConfig.fromPersistentProps): keys that are not dynamic,
// per-broker keys in the default set, values that no longer parse.
DynamicBrokerConfigs applicable_dynamic_configs(const DynamicBrokerConfigs& stored);

// The props the broker runs with: server.properties, then the cluster
// defaults, then this broker's own set. Each laid-over key first removes its
// synonyms (DynamicBrokerConfig.overrideProps), so a dynamic
// log.retention.hours beats a static log.retention.ms.
ConfigMap current_broker_props(const ConfigMap& static_props, const DynamicBrokerConfigs& stored);

// Checks `proposed` as the complete new set of one level (per_broker: this
// broker's own, else the cluster default) as Kafka's DynamicBrokerConfig.validate
// does: names, types and values, then the whole broker config as it would be,
// then what each reconfigurable part accepts. Returns the message of the
// INVALID_REQUEST answer (ConfigAdminManager turns every failure into one), or
// nothing; on success `normalized` (if given) receives the values to store.
std::optional<std::string> validate_dynamic_broker_configs(const BrokerConfig& config,
                                                           const DynamicBrokerConfigs& stored,
                                                           const ConfigMap& proposed, bool per_broker,
                                                           ConfigMap* normalized = nullptr);

}  // namespace weir::config
