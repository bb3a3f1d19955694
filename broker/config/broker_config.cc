#include "broker/config/broker_config.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <set>

#include "broker/config/config_def.h"
#include "broker/config/config_error.h"
#include "broker/config/config_keys.h"

namespace weir::config {
namespace {

constexpr std::int64_t kMsPerMinute = 60 * 1000;
constexpr std::int64_t kMsPerHour = 60 * kMsPerMinute;

std::string local_host_name() {
    std::array<char, 256> buf{};
    if (::gethostname(buf.data(), buf.size() - 1) != 0 || buf[0] == '\0') return "localhost";
    return buf.data();
}

std::string upper(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return out;
}

std::string names_of(const std::vector<Listener>& ls) {
    std::string out;
    for (const auto& l : ls) {
        if (!out.empty()) out += ',';
        out += l.name;
    }
    return out;
}

// Canonical values of the known keys that were set, with lookups that fall
// back to the key's default.
class Values {
public:
    explicit Values(const ConfigMap& set) : set_(set) {}

    bool is_set(std::string_view name) const { return set_.find(name) != set_.end(); }

    std::optional<std::string> get(std::string_view name) const {
        if (auto it = set_.find(name); it != set_.end()) return it->second;
        const ConfigKey* key = find_broker_config_key(name);
        if (key != nullptr && key->default_value) return std::string(*key->default_value);
        return std::nullopt;
    }
    // Set and non-empty (string keys whose empty value means "unset").
    std::optional<std::string> non_empty(std::string_view name) const {
        auto v = get(name);
        if (v && v->empty()) return std::nullopt;
        return v;
    }
    std::string str(std::string_view name) const { return get(name).value_or(""); }
    std::int64_t num(std::string_view name) const { return as_int(str(name)); }
    std::int32_t i32(std::string_view name) const { return static_cast<std::int32_t>(num(name)); }
    bool flag(std::string_view name) const { return as_bool(str(name)); }
    std::optional<std::int64_t> opt_num(std::string_view name) const {
        auto v = non_empty(name);
        if (!v) return std::nullopt;
        return as_int(*v);
    }

private:
    const ConfigMap& set_;
};

void build_listeners(const Values& v, BrokerConfig& cfg, std::vector<std::string>& errors) {
    SecurityProtocolMap protocols;
    try {
        protocols =
            parse_security_protocol_map("listener.security.protocol.map", v.str("listener.security.protocol.map"));
    } catch (const ConfigError& e) {
        errors.push_back(e.what());
        return;
    }

    const std::string listeners_text = v.str("listeners");
    try {
        cfg.listeners = parse_listeners("listeners", listeners_text, protocols);
    } catch (const ConfigError& e) {
        errors.push_back(e.what());
        return;
    }
    if (cfg.listeners.empty()) {
        errors.push_back(invalid_value_message("listeners", listeners_text, "At least one listener is required"));
        return;
    }
    bool ok = true;
    std::set<std::string> names;
    for (std::size_t i = 0; i < cfg.listeners.size(); ++i) {
        const Listener& l = cfg.listeners[i];
        if (l.protocol != SecurityProtocol::plaintext) {
            errors.push_back(invalid_value_message("listeners", listeners_text,
                                                   "Listener " + l.name + " uses security protocol " +
                                                       std::string(to_string(l.protocol)) +
                                                       ", which Weir does not support (only PLAINTEXT)"));
            ok = false;
        }
        if (!names.insert(l.name).second) {
            errors.push_back(
                invalid_value_message("listeners", listeners_text, "Each listener must have a different name"));
            ok = false;
        }
        for (std::size_t j = 0; j < i; ++j) {
            const Listener& o = cfg.listeners[j];
            const bool v6 = l.host.find(':') != std::string::npos;
            const bool other_v6 = o.host.find(':') != std::string::npos;
            const bool different_families = !l.host.empty() && !o.host.empty() && v6 != other_v6;
            if (l.port != 0 && l.port == o.port && !different_families) {
                errors.push_back(
                    invalid_value_message("listeners", listeners_text, "Each listener must have a different port"));
                ok = false;
            }
        }
    }
    if (!ok) return;

    if (auto adv_text = v.non_empty("advertised.listeners")) {
        try {
            cfg.advertised_listeners = parse_listeners("advertised.listeners", *adv_text, protocols);
        } catch (const ConfigError& e) {
            errors.push_back(e.what());
            return;
        }
        std::set<std::string> adv_names;
        for (const Listener& l : cfg.advertised_listeners) {
            if (!adv_names.insert(l.name).second) {
                errors.push_back(invalid_value_message("advertised.listeners", *adv_text,
                                                       "Each listener must have a different name"));
                return;
            }
            if (!names.contains(l.name)) {
                errors.push_back(invalid_value_message("advertised.listeners", *adv_text,
                                                       "advertised.listeners listener names must be equal to or a "
                                                       "subset of the ones defined in listeners (" +
                                                           names_of(cfg.listeners) + ")"));
                return;
            }
        }
    } else {
        cfg.advertised_listeners = cfg.listeners;
    }
    for (Listener& l : cfg.advertised_listeners) {
        if (l.host == "0.0.0.0" || l.host == "::") {
            errors.push_back(invalid_value_message(
                v.is_set("advertised.listeners") ? "advertised.listeners" : "listeners", l.to_string(),
                "advertised.listeners cannot use the nonroutable meta-address " + l.host +
                    ". Use a routable IP address (set advertised.listeners)."));
            return;
        }
        if (l.host.empty()) l.host = local_host_name();
    }

    const bool name_set = v.non_empty("inter.broker.listener.name").has_value();
    if (name_set && v.is_set("security.inter.broker.protocol")) {
        errors.push_back("Only one of inter.broker.listener.name and security.inter.broker.protocol should be set.");
        return;
    }
    cfg.inter_broker_listener_name =
        name_set ? upper(*v.non_empty("inter.broker.listener.name")) : v.str("security.inter.broker.protocol");
    const bool found = std::any_of(cfg.advertised_listeners.begin(), cfg.advertised_listeners.end(),
                                   [&](const Listener& l) { return l.name == cfg.inter_broker_listener_name; });
    if (!found) {
        errors.push_back(
            "inter.broker.listener.name must be a listener name defined in advertised.listeners. "
            "The inter-broker listener is " +
            cfg.inter_broker_listener_name + "; the valid options based on currently configured listeners are " +
            names_of(cfg.advertised_listeners) + " (set inter.broker.listener.name).");
    }
}

void build_log_dirs(const Values& v, BrokerConfig& cfg, std::vector<std::string>& errors) {
    const bool from_dirs = v.non_empty("log.dirs").has_value();
    const char* key = from_dirs ? "log.dirs" : "log.dir";
    const std::string text = v.str(key);
    cfg.log_dirs.clear();
    std::set<std::string> seen;
    for (const std::string& d : as_list(text)) {
        if (d.empty()) continue;
        std::filesystem::path normal = std::filesystem::path(d).lexically_normal();
        if (!normal.has_filename() && normal != normal.root_path()) normal = normal.parent_path();  // "a/" == "a"
        if (!seen.insert(normal.string()).second) {
            errors.push_back(invalid_value_message(key, text, "Duplicate log directory " + d));
            return;
        }
        cfg.log_dirs.emplace_back(d);
    }
    if (cfg.log_dirs.empty()) errors.push_back("At least one log directory must be defined via log.dirs or log.dir.");
}

std::optional<AdminListener> parse_admin_listener(std::string_view text) {
    if (text.empty()) return std::nullopt;
    if (text.starts_with("http://")) text.remove_prefix(7);
    auto hp = parse_host_port(text);  // validated already
    if (!hp) return std::nullopt;
    return AdminListener{hp->host, hp->port};
}

}  // namespace

std::string BrokerConfig::static_value(std::string_view key) const {
    return broker_value_or_default(static_props, key);
}

std::int16_t BrokerConfig::internal_topic_replication_factor(int live_brokers) const noexcept {
    const int live = std::max(live_brokers, 1);
    return static_cast<std::int16_t>(std::min<int>(offsets_topic_replication_factor, live));
}

std::int16_t BrokerConfig::transaction_topic_replication_factor(int live_brokers) const noexcept {
    const int live = std::max(live_brokers, 1);
    return static_cast<std::int16_t>(std::min<int>(transaction_state_log_replication_factor, live));
}

const Listener* BrokerConfig::advertised_listener(std::string_view name) const noexcept {
    for (const Listener& l : advertised_listeners)
        if (l.name == name) return &l;
    return nullptr;
}

BrokerConfig build_broker_config(const ConfigMap& props, std::vector<std::string>& warnings) {
    std::vector<std::string> errors;
    BrokerConfig cfg;

    for (const auto& [name, raw] : props) {
        const ConfigKey* key = find_broker_config_key(name);
        if (key == nullptr) {
            warnings.push_back("The configuration '" + name + "' was supplied but isn't a known config.");
            continue;
        }
        try {
            cfg.static_props.insert_or_assign(name, normalize_value(*key, raw));
        } catch (const ConfigError& e) {
            errors.push_back(e.what());
        }
    }
    if (!errors.empty()) throw ConfigError(std::move(errors));

    const Values v(cfg.static_props);

    // broker.id, with node.id as an alias.
    {
        auto bid = v.is_set("broker.id") ? std::optional<std::int64_t>(v.num("broker.id")) : std::nullopt;
        auto nid = v.opt_num("node.id");
        if (bid && nid && *bid != *nid) {
            errors.push_back("broker.id (" + std::to_string(*bid) + ") and node.id (" + std::to_string(*nid) +
                             ") must be equal when both are set.");
        }
        cfg.broker_id = static_cast<std::int32_t>(bid ? *bid : nid ? *nid : v.num("broker.id"));
    }
    cfg.rack = v.non_empty("broker.rack");

    build_listeners(v, cfg, errors);
    cfg.admin_listener = parse_admin_listener(v.str("weir.admin.listener"));
    build_log_dirs(v, cfg, errors);

    cfg.num_partitions = v.i32("num.partitions");
    cfg.default_replication_factor = v.i32("default.replication.factor");
    cfg.auto_create_topics_enable = v.flag("auto.create.topics.enable");
    cfg.delete_topic_enable = v.flag("delete.topic.enable");
    cfg.message_max_bytes = v.i32("message.max.bytes");
    cfg.socket_request_max_bytes = v.i32("socket.request.max.bytes");
    cfg.connections_max_idle_ms = v.num("connections.max.idle.ms");
    cfg.connection_stall_timeout_ms = v.num("weir.connection.stall.timeout.ms");
    cfg.fetch_zero_copy = v.flag("weir.fetch.zero.copy");
    cfg.log_max_open_files = v.i32("weir.log.max.open.files");
    cfg.queued_max_request_bytes = v.num("queued.max.request.bytes");
    cfg.max_connections = v.i32("max.connections");
    cfg.max_connections_per_ip = v.i32("max.connections.per.ip");
    cfg.max_connections_per_ip_overrides = v.str("max.connections.per.ip.overrides");
    cfg.max_incremental_fetch_session_cache_slots = v.i32("max.incremental.fetch.session.cache.slots");
    cfg.queued_max_requests = v.i32("queued.max.requests");
    cfg.num_network_threads = v.i32("num.network.threads");
    cfg.num_io_threads = v.i32("num.io.threads");

    cfg.log_segment_bytes = v.i32("log.segment.bytes");
    cfg.log_roll_ms = v.opt_num("log.roll.ms").value_or(v.num("log.roll.hours") * kMsPerHour);
    if (cfg.log_roll_ms < 1)
        errors.push_back(invalid_value_message("log.roll.ms", std::to_string(cfg.log_roll_ms),
                                               "log.roll.ms must be greater than or equal to 1"));
    cfg.log_roll_jitter_ms = v.opt_num("log.roll.jitter.ms").value_or(v.num("log.roll.jitter.hours") * kMsPerHour);
    if (cfg.log_roll_jitter_ms < 0)
        errors.push_back(invalid_value_message("log.roll.jitter.ms", std::to_string(cfg.log_roll_jitter_ms),
                                               "log.roll.jitter.ms must be greater than or equal to 0"));

    // Kafka's precedence: ms, then minutes, then hours; negative means forever.
    {
        std::int64_t millis = 0;
        std::string source;
        if (auto ms = v.opt_num("log.retention.ms")) {
            millis = *ms;
            source = "log.retention.ms";
        } else if (auto minutes = v.opt_num("log.retention.minutes")) {
            millis = *minutes * kMsPerMinute;
            source = "log.retention.minutes";
        } else {
            millis = v.num("log.retention.hours") * kMsPerHour;
            source = "log.retention.hours";
        }
        cfg.log_retention_ms = millis < 0 ? -1 : millis;
        if (cfg.log_retention_ms == 0) {
            errors.push_back(invalid_value_message(
                source, v.str(source), "log.retention.ms must be unlimited (-1) or, equal or greater than 1"));
        }
    }
    cfg.log_retention_bytes = v.num("log.retention.bytes");
    cfg.log_retention_check_interval_ms = v.num("log.retention.check.interval.ms");
    {
        cfg.log_cleanup_policy = CleanupPolicy{false, false};
        for (const std::string& p : as_list(v.str("log.cleanup.policy"))) {
            if (p == "delete") cfg.log_cleanup_policy.remove = true;
            if (p == "compact") cfg.log_cleanup_policy.compact = true;
        }
    }
    cfg.log_cleaner_enable = v.flag("log.cleaner.enable");
    cfg.log_index_interval_bytes = v.i32("log.index.interval.bytes");
    cfg.log_index_size_max_bytes = v.i32("log.index.size.max.bytes");
    cfg.log_flush_interval_messages = v.num("log.flush.interval.messages");
    cfg.log_flush_interval_ms = v.opt_num("log.flush.interval.ms");
    cfg.log_flush_scheduler_interval_ms = v.num("log.flush.scheduler.interval.ms");
    cfg.log_segment_delete_delay_ms = v.num("log.segment.delete.delay.ms");
    cfg.log_preallocate = v.flag("log.preallocate");
    cfg.log_message_timestamp_type = v.str("log.message.timestamp.type") == "LogAppendTime"
                                         ? records::TimestampType::log_append_time
                                         : records::TimestampType::create_time;
    cfg.log_message_timestamp_difference_max_ms = v.num("log.message.timestamp.difference.max.ms");
    cfg.compression_type = v.str("compression.type");
    cfg.min_insync_replicas = v.i32("min.insync.replicas");
    cfg.unclean_leader_election_enable = v.flag("unclean.leader.election.enable");
    {
        const std::int64_t threads = v.num("log.cleaner.threads");
        if (threads > 0 && v.num("log.cleaner.dedupe.buffer.size") / threads <= 1024 * 1024) {
            errors.push_back(
                invalid_value_message("log.cleaner.dedupe.buffer.size", v.str("log.cleaner.dedupe.buffer.size"),
                                      "log.cleaner.dedupe.buffer.size must be at least 1MB per cleaner thread."));
        }
    }

    cfg.group_initial_rebalance_delay_ms = v.i32("group.initial.rebalance.delay.ms");
    cfg.group_min_session_timeout_ms = v.i32("group.min.session.timeout.ms");
    cfg.group_max_session_timeout_ms = v.i32("group.max.session.timeout.ms");
    cfg.group_max_size = v.i32("group.max.size");
    cfg.offsets_topic_num_partitions = v.i32("offsets.topic.num.partitions");
    cfg.offsets_topic_replication_factor = static_cast<std::int16_t>(v.num("offsets.topic.replication.factor"));
    cfg.offsets_topic_segment_bytes = v.i32("offsets.topic.segment.bytes");
    cfg.offsets_retention_minutes = v.i32("offsets.retention.minutes");
    cfg.offsets_retention_check_interval_ms = v.num("offsets.retention.check.interval.ms");
    cfg.offsets_commit_timeout_ms = v.i32("offsets.commit.timeout.ms");
    cfg.offsets_load_buffer_size = v.i32("offsets.load.buffer.size");
    cfg.transaction_state_log_num_partitions = v.i32("transaction.state.log.num.partitions");
    cfg.transaction_state_log_replication_factor =
        static_cast<std::int16_t>(v.num("transaction.state.log.replication.factor"));
    cfg.transaction_state_log_segment_bytes = v.i32("transaction.state.log.segment.bytes");
    cfg.transaction_state_log_load_buffer_size = v.i32("transaction.state.log.load.buffer.size");
    cfg.transaction_max_timeout_ms = v.i32("transaction.max.timeout.ms");
    cfg.transactional_id_expiration_ms = v.i32("transactional.id.expiration.ms");
    cfg.transaction_abort_timed_out_transaction_cleanup_interval_ms =
        v.i32("transaction.abort.timed.out.transaction.cleanup.interval.ms");
    cfg.transaction_remove_expired_transaction_cleanup_interval_ms =
        v.i32("transaction.remove.expired.transaction.cleanup.interval.ms");
    {
        const std::int64_t acks = v.num("offsets.commit.required.acks");
        if (acks < -1 || acks > cfg.offsets_topic_replication_factor) {
            errors.push_back(
                invalid_value_message("offsets.commit.required.acks", v.str("offsets.commit.required.acks"),
                                      "offsets.commit.required.acks must be greater or equal -1 and less or equal "
                                      "to offsets.topic.replication.factor"));
        }
    }

    cfg.zookeeper_connect = v.non_empty("zookeeper.connect").value_or("");
    cfg.zookeeper_session_timeout_ms = v.i32("zookeeper.session.timeout.ms");
    cfg.zookeeper_connection_timeout_ms = static_cast<std::int32_t>(
        v.opt_num("zookeeper.connection.timeout.ms").value_or(cfg.zookeeper_session_timeout_ms));
    cfg.zookeeper_max_in_flight_requests = v.i32("zookeeper.max.in.flight.requests");
    cfg.replica_lag_time_max_ms = v.num("replica.lag.time.max.ms");
    cfg.replica_fetch_max_bytes = v.i32("replica.fetch.max.bytes");
    cfg.replica_fetch_min_bytes = v.i32("replica.fetch.min.bytes");
    cfg.replica_fetch_wait_max_ms = v.i32("replica.fetch.wait.max.ms");
    cfg.replica_fetch_backoff_ms = v.i32("replica.fetch.backoff.ms");
    cfg.replica_socket_timeout_ms = v.i32("replica.socket.timeout.ms");
    cfg.replica_high_watermark_checkpoint_interval_ms = v.num("replica.high.watermark.checkpoint.interval.ms");
    cfg.num_replica_fetchers = v.i32("num.replica.fetchers");
    cfg.controller_socket_timeout_ms = v.i32("controller.socket.timeout.ms");
    if (cfg.replica_fetch_wait_max_ms > cfg.replica_socket_timeout_ms) {
        errors.push_back("replica.socket.timeout.ms (" + std::to_string(cfg.replica_socket_timeout_ms) +
                         ") should always be at least replica.fetch.wait.max.ms (" +
                         std::to_string(cfg.replica_fetch_wait_max_ms) + ") to prevent unnecessary socket timeouts");
    }
    if (cfg.replica_fetch_wait_max_ms > cfg.replica_lag_time_max_ms) {
        errors.push_back("replica.fetch.wait.max.ms (" + std::to_string(cfg.replica_fetch_wait_max_ms) +
                         ") should always be less than or equal to replica.lag.time.max.ms (" +
                         std::to_string(cfg.replica_lag_time_max_ms) + ") to prevent frequent changes in ISR");
    }

    if (!errors.empty()) throw ConfigError(std::move(errors));
    return cfg;
}

}  // namespace weir::config
