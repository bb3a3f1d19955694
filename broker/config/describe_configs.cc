#include "broker/config/describe_configs.h"

#include <algorithm>

#include "broker/config/config_keys.h"
#include "broker/config/topic_config.h"

namespace weir::config {
namespace {

// ConfigHelper.configSynonyms without dynamic configs: static values, then
// defaults, of each synonym; leading entries for other names are dropped.
std::vector<ConfigSynonymEntry> broker_synonym_entries(const BrokerConfig& broker, std::string_view name, bool sensitive) {
  std::vector<ConfigSynonymEntry> out;
  const auto synonyms = broker_config_synonyms(name);
  for (std::string_view s : synonyms) {
    if (auto it = broker.static_props.find(s); it != broker.static_props.end()) {
      out.push_back({std::string(s), sensitive ? std::nullopt : std::optional<std::string>(it->second),
                     ConfigSource::StaticBrokerConfig});
    }
  }
  for (std::string_view s : synonyms) {
    const ConfigKey* key = find_broker_config_key(s);
    if (key != nullptr && key->default_value) {
      out.push_back({std::string(s), sensitive ? std::nullopt : std::optional<std::string>(*key->default_value),
                     ConfigSource::DefaultConfig});
    }
  }
  auto first = std::find_if(out.begin(), out.end(), [&](const ConfigSynonymEntry& e) { return e.name == name; });
  out.erase(out.begin(), first);
  return out;
}

}  // namespace

std::vector<ConfigEntry> describe_broker_configs(const BrokerConfig& broker) {
  std::vector<ConfigEntry> out;
  for (const ConfigKey& key : broker_config_keys()) {
    ConfigEntry e;
    e.name = std::string(key.name);
    e.is_sensitive = key.sensitive();
    if (!e.is_sensitive) {
      if (auto it = broker.static_props.find(key.name); it != broker.static_props.end()) {
        e.value = it->second;
      } else if (key.default_value) {
        e.value = std::string(*key.default_value);
      }
    }
    e.synonyms = broker_synonym_entries(broker, key.name, e.is_sensitive);
    e.source = e.synonyms.empty() ? ConfigSource::DefaultConfig : e.synonyms.front().source;
    e.read_only = !key.dynamic;
    e.type = key.type;
    e.documentation = key.doc;
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<ConfigEntry> describe_topic_configs(const BrokerConfig& broker, const ConfigMap& topic_overrides) {
  const TopicConfig effective = resolve_topic_config(broker, topic_overrides);
  std::vector<ConfigEntry> out;
  for (const TopicConfigKey& key : topic_config_keys()) {
    ConfigEntry e;
    e.name = std::string(key.key.name);
    e.is_sensitive = key.key.sensitive();
    if (!e.is_sensitive) e.value = effective.values.at(e.name);
    if (topic_overrides.find(key.key.name) != topic_overrides.end()) {
      e.synonyms.push_back({e.name, e.value, ConfigSource::DynamicTopicConfig});
    }
    if (!key.synonyms.empty()) {
      auto broker_entries = broker_synonym_entries(broker, key.synonyms.front().name, e.is_sensitive);
      e.synonyms.insert(e.synonyms.end(), broker_entries.begin(), broker_entries.end());
    }
    e.source = e.synonyms.empty() ? ConfigSource::DefaultConfig : e.synonyms.front().source;
    e.read_only = false;
    e.type = key.key.type;
    e.documentation = key.key.doc;
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace weir::config
