#include "broker/config/describe_configs.h"

#include <algorithm>

#include "broker/config/config_keys.h"
#include "broker/config/topic_config.h"

namespace weir::config {
namespace {

// ConfigHelper.configSynonyms: every synonym's value at each level, this
// broker's dynamic set first, then the cluster defaults, server.properties and
// Kafka's defaults; leading entries for other names are dropped.
std::vector<ConfigSynonymEntry> broker_synonym_entries(const ConfigMap& static_props,
                                                       const DynamicBrokerConfigs& applicable, std::string_view name,
                                                       bool sensitive) {
    std::vector<ConfigSynonymEntry> out;
    const auto synonyms = broker_config_synonyms(name, true);
    auto add = [&](const ConfigMap& level, ConfigSource source) {
        for (std::string_view s : synonyms) {
            if (auto it = level.find(s); it != level.end())
                out.push_back(
                    {std::string(s), sensitive ? std::nullopt : std::optional<std::string>(it->second), source});
        }
    };
    add(applicable.broker, ConfigSource::dynamic_broker_config);
    add(applicable.cluster_default, ConfigSource::dynamic_default_broker_config);
    add(static_props, ConfigSource::static_broker_config);
    for (std::string_view s : synonyms) {
        const ConfigKey* key = find_broker_config_key(s);
        if (key != nullptr && key->default_value) {
            out.push_back({std::string(s), sensitive ? std::nullopt : std::optional<std::string>(*key->default_value),
                           ConfigSource::default_config});
        }
    }
    auto first = std::find_if(out.begin(), out.end(), [&](const ConfigSynonymEntry& e) { return e.name == name; });
    out.erase(out.begin(), first);
    return out;
}

// A name set only dynamically: a listener override, a throttle or a custom
// key. Kafka cannot type a custom key, so it hides its value.
ConfigEntry dynamic_only_entry(std::string_view name, const std::optional<std::string>& value) {
    const ConfigKey* key = broker_config_key_for(name);
    ConfigEntry e;
    e.name = std::string(name);
    e.is_sensitive = key == nullptr || key->sensitive();
    if (!e.is_sensitive) e.value = value;
    e.read_only = !is_dynamic_broker_config(name);
    e.type = key != nullptr ? key->type : ConfigType::unknown;
    return e;
}

}  // namespace

std::vector<ConfigEntry> describe_broker_configs(const BrokerConfig& broker, const DynamicBrokerConfigs& dynamic) {
    const DynamicBrokerConfigs applicable = applicable_dynamic_configs(dynamic);
    const ConfigMap current = current_broker_props(broker.static_props, applicable);
    std::vector<ConfigEntry> out;
    for (const ConfigKey& key : broker_config_keys()) {
        ConfigEntry e;
        e.name = std::string(key.name);
        e.is_sensitive = key.sensitive();
        if (!e.is_sensitive) {
            if (auto it = current.find(key.name); it != current.end()) {
                e.value = it->second;
            } else if (key.default_value) {
                e.value = std::string(*key.default_value);
            }
        }
        e.synonyms = broker_synonym_entries(broker.static_props, applicable, key.name, e.is_sensitive);
        e.source = e.synonyms.empty() ? ConfigSource::default_config : e.synonyms.front().source;
        e.read_only = !key.dynamic;
        e.type = key.type;
        e.documentation = key.doc;
        out.push_back(std::move(e));
    }
    for (const auto& [name, value] : current) {
        if (find_broker_config_key(name) != nullptr) continue;
        ConfigEntry e = dynamic_only_entry(name, value);
        e.synonyms = broker_synonym_entries(broker.static_props, applicable, name, e.is_sensitive);
        e.source = e.synonyms.empty() ? ConfigSource::default_config : e.synonyms.front().source;
        out.push_back(std::move(e));
    }
    return out;
}

std::vector<ConfigEntry> describe_default_broker_configs(const DynamicBrokerConfigs& dynamic) {
    const DynamicBrokerConfigs applicable = applicable_dynamic_configs(dynamic);
    std::vector<ConfigEntry> out;
    for (const auto& [name, value] : applicable.cluster_default) {
        ConfigEntry e = dynamic_only_entry(name, value);
        for (auto& s : broker_synonym_entries({}, applicable, name, e.is_sensitive))
            if (s.source == ConfigSource::dynamic_default_broker_config) e.synonyms.push_back(std::move(s));
        e.source = e.synonyms.empty() ? ConfigSource::default_config : e.synonyms.front().source;
        if (const ConfigKey* key = find_broker_config_key(name)) e.documentation = key->doc;
        out.push_back(std::move(e));
    }
    return out;
}

std::vector<ConfigEntry> describe_topic_configs(const BrokerConfig& broker, const ConfigMap& topic_overrides,
                                                const DynamicBrokerConfigs& dynamic) {
    const DynamicBrokerConfigs applicable = applicable_dynamic_configs(dynamic);
    const TopicConfig effective = resolve_topic_config(broker, topic_overrides, applicable);
    std::vector<ConfigEntry> out;
    for (const TopicConfigKey& key : topic_config_keys()) {
        ConfigEntry e;
        e.name = std::string(key.key.name);
        e.is_sensitive = key.key.sensitive();
        if (!e.is_sensitive) e.value = effective.values.at(e.name);
        if (topic_overrides.find(key.key.name) != topic_overrides.end()) {
            e.synonyms.push_back({e.name, e.value, ConfigSource::dynamic_topic_config});
        }
        if (!key.synonyms.empty()) {
            auto broker_entries =
                broker_synonym_entries(broker.static_props, applicable, key.synonyms.front().name, e.is_sensitive);
            e.synonyms.insert(e.synonyms.end(), broker_entries.begin(), broker_entries.end());
        }
        e.source = e.synonyms.empty() ? ConfigSource::default_config : e.synonyms.front().source;
        e.read_only = false;
        e.type = key.key.type;
        e.documentation = key.key.doc;
        out.push_back(std::move(e));
    }
    return out;
}

}  // namespace weir::config
