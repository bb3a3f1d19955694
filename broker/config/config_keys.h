#pragma once

#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "broker/config/config_def.h"

namespace weir::config {

// Every server.properties key Weir knows (Kafka's names and defaults, except
// listeners, log.dir and broker.id, whose defaults suit a local single node).
std::span<const ConfigKey> broker_config_keys();
const ConfigKey* find_broker_config_key(std::string_view name);
// `key` as `props` sets it, else its Kafka default ("" for a null default).
std::string broker_value_or_default(const ConfigMap& props, std::string_view key);

// Kafka's DynamicBrokerConfig.brokerConfigSynonyms: the keys that set the same
// value, highest priority first (e.g. log.retention.ms/.minutes/.hours).
// A key without synonyms returns just itself. With match_listener_override, a
// listener override ("listener.name.<l>.<key>") also names the key it
// overrides (DescribeConfigs wants both; overlaying a dynamic override must
// not remove the base key, which other listeners use).
std::vector<std::string_view> broker_config_synonyms(std::string_view name, bool match_listener_override = false);

// "listener.name.<listener>.<rest>" -> "<rest>" (Kafka's ListenerConfigRegex).
std::optional<std::string_view> listener_override_base(std::string_view name);

// How a broker key's value becomes the topic value.
enum class SynonymConversion : std::uint8_t { none, hours_to_ms, minutes_to_ms };

struct BrokerSynonym {
    std::string_view name;
    SynonymConversion conversion = SynonymConversion::none;
};

struct TopicConfig;
// Sets the field of a resolved topic config that a key's canonical value goes
// to; null for keys accepted and described but acted on nowhere.
using TopicConfigField = void (*)(TopicConfig&, std::string_view canonical);

// A topic-level key, the broker keys that provide its default, highest
// priority first (Kafka's ServerTopicConfigSynonyms), and its field.
struct TopicConfigKey {
    ConfigKey key;
    std::span<const BrokerSynonym> synonyms;
    TopicConfigField field = nullptr;
};

// Topic-level keys, sorted by name.
std::span<const TopicConfigKey> topic_config_keys();
const TopicConfigKey* find_topic_config_key(std::string_view name);

// log.retention.ms -> retention.ms, message.max.bytes -> max.message.bytes, ...
// Empty when the broker key is not the primary synonym of a topic key.
std::string_view topic_config_name_for(std::string_view broker_key);

}  // namespace weir::config
