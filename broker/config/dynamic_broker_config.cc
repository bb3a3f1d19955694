#include "broker/config/dynamic_broker_config.h"

#include <algorithm>

#include "broker/config/broker_config.h"
#include "broker/config/config_error.h"
#include "broker/config/config_keys.h"

namespace weir::config {
namespace {

// QuotaConfig.brokerQuotaConfigs: set only dynamically, never in
// server.properties. Weir has no replication to throttle.
const ConfigKey kDynamicOnlyKeys[] = {
    {"leader.replication.throttled.rate", ConfigType::int64, "9223372036854775807", Importance::medium,
     "Accepted for compatibility.", Validator::at_least(0), false, false},
    {"follower.replication.throttled.rate", ConfigType::int64, "9223372036854775807", Importance::medium,
     "Accepted for compatibility.", Validator::at_least(0), false, false},
    {"replica.alter.log.dirs.io.max.bytes.per.second", ConfigType::int64, "9223372036854775807", Importance::medium,
     "Accepted for compatibility.", Validator::at_least(0), false, false},
};

// SslConfigs.RECONFIGURABLE_CONFIGS: a keystore belongs to one listener, so
// these change only with the listener prefix.
constexpr std::string_view kListenerOnlySecurityConfigs[] = {
    "ssl.keystore.type",   "ssl.keystore.location",      "ssl.keystore.password",   "ssl.key.password",
    "ssl.truststore.type", "ssl.truststore.location",    "ssl.truststore.password", "ssl.keystore.certificate.chain",
    "ssl.keystore.key",    "ssl.truststore.certificates"};

// DynamicListenerConfig.ReconfigurableConfigs.
constexpr std::string_view kListenerConfigs[] = {"advertised.listeners",
                                                 "listeners",
                                                 "listener.security.protocol.map",
                                                 "principal.builder.class",
                                                 "ssl.protocol",
                                                 "ssl.provider",
                                                 "ssl.cipher.suites",
                                                 "ssl.enabled.protocols",
                                                 "ssl.keystore.type",
                                                 "ssl.keystore.location",
                                                 "ssl.keystore.password",
                                                 "ssl.key.password",
                                                 "ssl.truststore.type",
                                                 "ssl.truststore.location",
                                                 "ssl.truststore.password",
                                                 "ssl.keymanager.algorithm",
                                                 "ssl.trustmanager.algorithm",
                                                 "ssl.endpoint.identification.algorithm",
                                                 "ssl.secure.random.implementation",
                                                 "ssl.client.auth",
                                                 "ssl.engine.factory.class",
                                                 "sasl.mechanism.inter.broker.protocol",
                                                 "sasl.jaas.config",
                                                 "sasl.enabled.mechanisms",
                                                 "sasl.kerberos.service.name",
                                                 "sasl.kerberos.kinit.cmd",
                                                 "sasl.kerberos.ticket.renew.window.factor",
                                                 "sasl.kerberos.ticket.renew.jitter",
                                                 "sasl.kerberos.min.time.before.relogin",
                                                 "sasl.kerberos.principal.to.local.rules",
                                                 "sasl.login.refresh.window.factor",
                                                 "sasl.login.refresh.window.jitter",
                                                 "sasl.login.refresh.min.period.seconds",
                                                 "sasl.login.refresh.buffer.seconds",
                                                 "max.connections",
                                                 "max.connection.creation.rate",
                                                 "num.network.threads"};

// Listener settings that are the same on every broker of a cluster.
constexpr std::string_view kClusterLevelListenerConfigs[] = {"max.connections", "max.connection.creation.rate",
                                                             "num.network.threads"};

// DynamicThreadPool.ReconfigurableConfigs plus the network threads of
// DataPlaneAcceptor, which follow the same rule.
constexpr std::string_view kThreadPoolConfigs[] = {"num.network.threads", "num.io.threads", "num.replica.fetchers",
                                                   "num.recovery.threads.per.data.dir", "background.threads"};

// LogCleaner.ReconfigurableConfigs.
constexpr std::string_view kLogCleanerConfigs[] = {"log.cleaner.threads",
                                                   "log.cleaner.dedupe.buffer.size",
                                                   "log.cleaner.io.buffer.load.factor",
                                                   "log.cleaner.io.buffer.size",
                                                   "message.max.bytes",
                                                   "log.cleaner.io.max.bytes.per.second",
                                                   "log.cleaner.backoff.ms"};

template <std::size_t N>
bool contains(const std::string_view (&names)[N], std::string_view name) {
    return std::find(std::begin(names), std::end(names), name) != std::end(names);
}

const ConfigKey* find_dynamic_only_key(std::string_view name) {
    for (const ConfigKey& k : kDynamicOnlyKeys)
        if (k.name == name) return &k;
    return nullptr;
}

// DynamicBrokerConfig.perBrokerConfigs: names that only make sense for one
// broker (its listeners, keystores, SASL login).
bool is_per_broker(std::string_view name) {
    if (auto base = listener_override_base(name)) return !contains(kClusterLevelListenerConfigs, *base);
    return (contains(kListenerOnlySecurityConfigs, name) || contains(kListenerConfigs, name)) &&
           !contains(kClusterLevelListenerConfigs, name);
}

bool is_static(std::string_view name) {
    const ConfigKey* key = find_broker_config_key(name);
    return key != nullptr && !key->dynamic;
}

// The definition Kafka's DynamicConfig.Broker checks a value against: dynamic
// keys and the dynamic-only ones, listener overrides by their base name.
// Anything else is a custom config and is stored unchecked.
const ConfigKey* checked_key(std::string_view name) {
    const std::string_view base = listener_override_base(name).value_or(name);
    if (const ConfigKey* key = find_broker_config_key(base)) return key->dynamic ? key : nullptr;
    return find_dynamic_only_key(base);
}

std::string scala_set(const std::vector<std::string>& names) {
    std::string out = "Set(";
    for (std::size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
    return out + ")";
}

ConfigMap applicable_level(const ConfigMap& stored, bool per_broker) {
    ConfigMap out;
    for (const auto& [name, value] : stored) {
        const bool dropped =
            is_static(name) || contains(kListenerOnlySecurityConfigs, name) || (!per_broker && is_per_broker(name));
        if (dropped) continue;
        if (const ConfigKey* key = checked_key(name)) {
            try {
                out.emplace(name, normalize_value(*key, value));
            } catch (const ConfigError&) {
            }
        } else {
            out.emplace(name, value);
        }
    }
    return out;
}

void lay_over(ConfigMap& props, const ConfigMap& layer) {
    for (const auto& [name, value] : layer) {
        for (std::string_view synonym : broker_config_synonyms(name)) {
            if (auto it = props.find(synonym); it != props.end()) props.erase(it);
        }
        props.insert_or_assign(name, value);
    }
}

ConfigMap lay_over_static(const ConfigMap& static_props, const DynamicBrokerConfigs& applicable) {
    ConfigMap props = static_props;
    lay_over(props, applicable.cluster_default);
    lay_over(props, applicable.broker);
    return props;
}

std::optional<std::string> value_of(const ConfigMap& props, std::string_view name) {
    if (auto it = props.find(name); it != props.end()) return it->second;
    return std::nullopt;
}

std::int64_t number_of(const ConfigMap& props, std::string_view name) {
    if (auto v = value_of(props, name)) return as_int(*v);
    const ConfigKey* key = find_broker_config_key(name);
    return key != nullptr && key->default_value ? as_int(*key->default_value) : 0;
}

// DynamicThreadPool.validateReconfiguration: a pool may at most halve or double.
std::optional<std::string> check_thread_count(std::string_view name, std::int64_t current, std::int64_t next) {
    if (next == current) return std::nullopt;
    const std::string prefix =
        "Dynamic thread count update validation failed for " + std::string(name) + "=" + std::to_string(next);
    if (next <= 0) return prefix + ", value should be at least 1";
    if (next < current / 2)
        return prefix + ", value should be at least half the current value " + std::to_string(current);
    if (next > current * 2)
        return prefix + ", value should not be greater than double the current value " + std::to_string(current);
    return std::nullopt;
}

// LogCleaner.validateReconfiguration.
std::optional<std::string> check_cleaner_threads(std::int64_t current, std::int64_t next) {
    if (next < 1) return "Log cleaner threads should be at least 1";
    if (next < current / 2)
        return "Log cleaner threads cannot be reduced to less than half the current value " + std::to_string(current);
    if (next > current * 2)
        return "Log cleaner threads cannot be increased to more than double the current value " +
               std::to_string(current);
    return std::nullopt;
}

// What the client reads when a part of the broker refuses a change:
// DynamicBrokerConfig.processReconfiguration wraps the reason in
// `new ConfigException("Invalid dynamic configuration", e)`, which is the
// (name, value) constructor.
std::string invalid_dynamic_configuration(const std::string& reason) {
    return "Invalid value org.apache.kafka.common.config.ConfigException: " + reason +
           " for configuration Invalid dynamic configuration";
}

}  // namespace

bool is_dynamic_broker_config(std::string_view name) {
    const ConfigKey* key = find_broker_config_key(name);
    return key != nullptr && key->dynamic;
}

const ConfigKey* broker_config_key_for(std::string_view name) {
    if (const ConfigKey* key = find_broker_config_key(name)) return key;
    if (const ConfigKey* key = find_dynamic_only_key(name)) return key;
    for (std::string_view synonym : broker_config_synonyms(name, true)) {
        if (const ConfigKey* key = find_broker_config_key(synonym)) return key;
    }
    return nullptr;
}

DynamicBrokerConfigs applicable_dynamic_configs(const DynamicBrokerConfigs& stored) {
    return {applicable_level(stored.broker, true), applicable_level(stored.cluster_default, false)};
}

ConfigMap current_broker_props(const ConfigMap& static_props, const DynamicBrokerConfigs& stored) {
    if (stored.empty()) return static_props;
    return lay_over_static(static_props, applicable_dynamic_configs(stored));
}

std::optional<std::string> validate_dynamic_broker_configs(const BrokerConfig& config,
                                                           const DynamicBrokerConfigs& stored,
                                                           const ConfigMap& proposed, bool per_broker,
                                                           ConfigMap* normalized) {
    std::vector<std::string> refused;
    for (const auto& [name, value] : proposed)
        if (is_static(name)) refused.push_back(name);
    if (!refused.empty()) return "Cannot update these configs dynamically: " + scala_set(refused);
    for (std::string_view name : kListenerOnlySecurityConfigs)
        if (proposed.find(name) != proposed.end()) refused.emplace_back(name);
    if (!refused.empty()) {
        return "These security configs can be dynamically updated only per-listener using the listener prefix: " +
               scala_set(refused);
    }
    ConfigMap values;
    for (const auto& [name, value] : proposed) {
        if (const ConfigKey* key = checked_key(name)) {
            try {
                values.emplace(name, normalize_value(*key, value));
            } catch (const ConfigError& e) {
                return std::string(e.what());
            }
        } else {
            values.emplace(name, value);
        }
    }
    if (!per_broker) {
        for (const auto& [name, value] : values)
            if (is_per_broker(name)) refused.push_back(name);
        if (!refused.empty()) {
            return "Cannot update these configs at default cluster level, broker id must be specified: " +
                   scala_set(refused);
        }
    }

    // The broker config as it would be must still be one the broker starts with.
    const DynamicBrokerConfigs current = applicable_dynamic_configs(stored);
    DynamicBrokerConfigs next = current;
    (per_broker ? next.broker : next.cluster_default) = values;
    const ConfigMap before_props = lay_over_static(config.static_props, current);
    const ConfigMap after_props = lay_over_static(config.static_props, next);
    std::vector<std::string> warnings;
    BrokerConfig after;
    try {
        after = build_broker_config(after_props, warnings);
    } catch (const ConfigError& e) {
        return e.errors().empty() ? std::string(e.what()) : e.errors().front();
    }
    BrokerConfig before = config;
    try {
        before = build_broker_config(before_props, warnings);
    } catch (const ConfigError&) {
    }

    auto changed = [&](std::string_view name) { return value_of(before_props, name) != value_of(after_props, name); };
    for (std::string_view name : kThreadPoolConfigs) {
        if (!changed(name)) continue;
        if (auto reason = check_thread_count(name, number_of(before_props, name), number_of(after_props, name)))
            return invalid_dynamic_configuration(*reason);
    }
    if (before.log_cleaner_enable &&
        std::any_of(std::begin(kLogCleanerConfigs), std::end(kLogCleanerConfigs), changed)) {
        if (auto reason = check_cleaner_threads(number_of(before_props, "log.cleaner.threads"),
                                                number_of(after_props, "log.cleaner.threads")))
            return invalid_dynamic_configuration(*reason);
    }
    // Kafka rebinds its acceptors; Weir binds its listeners once, at start-up.
    if (after.listeners != before.listeners || after.advertised_listeners != before.advertised_listeners) {
        return invalid_dynamic_configuration(
            "Weir cannot change its listeners without a restart: set listeners, advertised.listeners and "
            "listener.security.protocol.map in server.properties");
    }
    if (normalized != nullptr) *normalized = std::move(values);
    return std::nullopt;
}

}  // namespace weir::config
