#include "broker/config/topic_config.h"

#include "broker/config/config_def.h"
#include "broker/config/config_error.h"

namespace weir::config {
namespace {

std::string convert(std::string_view canonical, SynonymConversion conversion) {
    switch (conversion) {
        case SynonymConversion::none:
            return std::string(canonical);
        case SynonymConversion::hours_to_ms:
            return std::to_string(as_int(canonical) * 60 * 60 * 1000);
        case SynonymConversion::minutes_to_ms:
            return std::to_string(as_int(canonical) * 60 * 1000);
    }
    return std::string(canonical);
}

}  // namespace

std::optional<std::string> validate_topic_configs(const ConfigMap& overrides, ConfigMap* normalized) {
    ConfigMap out;
    for (const auto& [name, raw] : overrides) {
        const TopicConfigKey* key = find_topic_config_key(name);
        if (key == nullptr) return "Unknown topic config name: " + name;
        try {
            out.insert_or_assign(name, normalize_value(key->key, raw));
        } catch (const ConfigError& e) {
            return std::string(e.what());
        }
    }
    // Kafka's LogConfig.validateValues, against LogConfig's own defaults.
    auto value_of = [&](std::string_view name) {
        if (auto it = out.find(name); it != out.end()) return as_int(it->second);
        return as_int(*find_topic_config_key(name)->key.default_value);
    };
    const std::int64_t min_lag = value_of("min.compaction.lag.ms");
    const std::int64_t max_lag = value_of("max.compaction.lag.ms");
    if (min_lag > max_lag) {
        return "conflict topic config setting min.compaction.lag.ms (" + std::to_string(min_lag) +
               ") > max.compaction.lag.ms (" + std::to_string(max_lag) + ")";
    }
    if (normalized != nullptr) *normalized = std::move(out);
    return std::nullopt;
}

std::string topic_default_value(const ConfigMap& broker_props, const TopicConfigKey& key) {
    std::optional<std::string> value;
    for (const BrokerSynonym& s : key.synonyms) {
        if (auto it = broker_props.find(s.name); it != broker_props.end() && !it->second.empty()) {
            value = convert(it->second, s.conversion);
            break;
        }
    }
    if (!value) {
        for (const BrokerSynonym& s : key.synonyms) {
            const ConfigKey* bk = find_broker_config_key(s.name);
            if (bk != nullptr && bk->default_value) {
                value = convert(*bk->default_value, s.conversion);
                break;
            }
        }
    }
    if (!value) return std::string(key.key.default_value.value_or(""));
    // KafkaConfig.logRetentionTimeMillis: any negative retention means forever.
    if (key.key.name == "retention.ms" && as_int(*value) < 0) return "-1";
    return *value;
}

TopicConfig resolve_topic_config(const BrokerConfig& broker, const ConfigMap& overrides,
                                 const DynamicBrokerConfigs& dynamic) {
    // Copies the props only when there is something to lay over them.
    std::optional<ConfigMap> current;
    if (!dynamic.empty()) current = current_broker_props(broker.static_props, dynamic);
    const ConfigMap& broker_props = current ? *current : broker.static_props;
    TopicConfig tc;
    for (const TopicConfigKey& key : topic_config_keys()) {
        std::string value;
        bool overridden = false;
        if (auto it = overrides.find(key.key.name); it != overrides.end()) {
            try {
                value = normalize_value(key.key, it->second);
                overridden = true;
            } catch (const ConfigError&) {
            }
        }
        if (!overridden) value = topic_default_value(broker_props, key);
        if (key.field != nullptr) key.field(tc, value);
        tc.values.insert_or_assign(std::string(key.key.name), std::move(value));
    }
    return tc;
}

}  // namespace weir::config
