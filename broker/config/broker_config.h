#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker/config/config_types.h"
#include "broker/config/listener.h"
#include "protocol/records/record_batch.h"

namespace weir::config {

struct CleanupPolicy {
    bool remove = true;    // "delete"
    bool compact = false;  // "compact"
    bool operator==(const CleanupPolicy&) const = default;
};

struct AdminListener {
    std::string host;        // empty: all interfaces
    std::uint16_t port = 0;  // 0: any free port (logged at start-up)
    bool operator==(const AdminListener&) const = default;
};

// The values the broker uses, typed. Member defaults equal the defaults of
// config_keys.cc (a test checks that build_broker_config({}) matches them).
struct BrokerConfig {
    std::int32_t broker_id = 0;
    std::optional<std::string> rack;
    std::vector<Listener> listeners{{"PLAINTEXT", SecurityProtocol::plaintext, "127.0.0.1", 9092}};
    // Never empty: listeners when advertised.listeners is unset; an empty host is
    // replaced by this machine's host name, as Kafka does.
    std::vector<Listener> advertised_listeners{{"PLAINTEXT", SecurityProtocol::plaintext, "127.0.0.1", 9092}};
    std::string inter_broker_listener_name = "PLAINTEXT";
    std::optional<AdminListener> admin_listener =
        AdminListener{"127.0.0.1", 9644};  // weir.admin.listener; nullopt: off

    std::vector<std::filesystem::path> log_dirs{"./weir-data"};

    std::int32_t num_partitions = 1;
    std::int32_t default_replication_factor = 1;
    bool auto_create_topics_enable = true;
    bool delete_topic_enable = true;
    std::int32_t message_max_bytes = 1048588;
    std::int32_t socket_request_max_bytes = 104857600;
    std::int64_t connections_max_idle_ms = 600000;
    std::int64_t connection_stall_timeout_ms = 30000;  // weir.connection.stall.timeout.ms
    bool fetch_zero_copy = true;                       // weir.fetch.zero.copy
    std::int32_t log_max_open_files = 8192;            // weir.log.max.open.files
    std::int64_t queued_max_request_bytes = -1;
    std::int32_t max_connections = 2147483647;
    std::int32_t max_connections_per_ip = 2147483647;
    std::string max_connections_per_ip_overrides;
    std::int32_t max_incremental_fetch_session_cache_slots = 1000;
    std::int32_t queued_max_requests = 500;
    std::int32_t num_network_threads = 3;  // accepted, may be ignored
    std::int32_t num_io_threads = 8;       // accepted, may be ignored

    std::int32_t log_segment_bytes = 1073741824;
    std::int64_t log_roll_ms = 168LL * 3600 * 1000;  // log.roll.ms, else log.roll.hours
    std::int64_t log_roll_jitter_ms = 0;
    std::int64_t log_retention_ms = 168LL * 3600 * 1000;  // ms > minutes > hours; -1 = forever
    std::int64_t log_retention_bytes = -1;
    std::int64_t log_retention_check_interval_ms = 300000;
    CleanupPolicy log_cleanup_policy{};
    bool log_cleaner_enable = true;
    std::int32_t log_index_interval_bytes = 4096;
    std::int32_t log_index_size_max_bytes = 10485760;
    std::int64_t log_flush_interval_messages = INT64_MAX;
    std::optional<std::int64_t> log_flush_interval_ms;  // unset: no time-based flush
    std::int64_t log_flush_scheduler_interval_ms = INT64_MAX;
    std::int64_t log_segment_delete_delay_ms = 60000;
    bool log_preallocate = false;
    records::TimestampType log_message_timestamp_type = records::TimestampType::create_time;
    std::int64_t log_message_timestamp_difference_max_ms = INT64_MAX;
    std::string compression_type = "producer";
    std::int32_t min_insync_replicas = 1;
    bool unclean_leader_election_enable = false;

    std::int32_t group_initial_rebalance_delay_ms = 3000;
    std::int32_t group_min_session_timeout_ms = 6000;
    std::int32_t group_max_session_timeout_ms = 1800000;
    std::int32_t group_max_size = INT32_MAX;
    std::int32_t offsets_topic_num_partitions = 50;
    std::int16_t offsets_topic_replication_factor = 3;  // as configured; see internal_topic_replication_factor
    std::int32_t offsets_topic_segment_bytes = 104857600;
    std::int32_t offsets_retention_minutes = 10080;
    std::int64_t offsets_retention_check_interval_ms = 600000;
    std::int32_t offsets_commit_timeout_ms = 5000;
    std::int32_t offsets_load_buffer_size = 5242880;
    std::int32_t transaction_state_log_num_partitions = 50;
    std::int16_t transaction_state_log_replication_factor = 3;  // as configured; see internal_topic_replication_factor
    std::int32_t transaction_state_log_segment_bytes = 104857600;
    std::int32_t transaction_state_log_load_buffer_size = 5242880;
    std::int32_t transaction_max_timeout_ms = 900000;
    std::int32_t transactional_id_expiration_ms = 604800000;
    std::int32_t transaction_abort_timed_out_transaction_cleanup_interval_ms = 10000;
    std::int32_t transaction_remove_expired_transaction_cleanup_interval_ms = 3600000;

    std::string zookeeper_connect;  // empty: single embedded node
    std::int32_t zookeeper_session_timeout_ms = 18000;
    std::int32_t zookeeper_connection_timeout_ms = 18000;  // defaults to the session timeout
    std::int32_t zookeeper_max_in_flight_requests = 10;
    std::int64_t replica_lag_time_max_ms = 30000;
    std::int32_t replica_fetch_max_bytes = 1048576;
    std::int32_t replica_fetch_min_bytes = 1;
    std::int32_t replica_fetch_wait_max_ms = 500;
    std::int32_t replica_fetch_backoff_ms = 1000;
    std::int32_t replica_socket_timeout_ms = 30000;
    std::int64_t replica_high_watermark_checkpoint_interval_ms = 5000;
    std::int32_t num_replica_fetchers = 1;
    std::int32_t controller_socket_timeout_ms = 30000;

    // Known keys given in the file or by --override, canonical values. Keys that
    // are absent take their default (DescribeConfigs: DEFAULT_CONFIG vs
    // STATIC_BROKER_CONFIG; topic defaults: see resolve_topic_config).
    ConfigMap static_props;

    bool single_node() const noexcept { return zookeeper_connect.empty(); }

    // A broker key as server.properties (or --override) sets it, else Kafka's
    // default; canonical text ("" for a null default). For keys read where
    // they act rather than parsed into a field above.
    std::string static_value(std::string_view key) const;

    // Internal topics (__consumer_offsets) are created with the configured
    // factor, limited to the live brokers (at least 1) so a single node works
    // with Kafka's default of 3.
    std::int16_t internal_topic_replication_factor(int live_brokers) const noexcept;
    // The same for __transaction_state.
    std::int16_t transaction_topic_replication_factor(int live_brokers) const noexcept;

    // nullptr when there is no listener with that name.
    const Listener* advertised_listener(std::string_view name) const noexcept;
};

// Builds the typed config from server.properties keys (file then overrides,
// already merged). Unknown keys produce a warning each; invalid values throw
// ConfigError listing every problem.
BrokerConfig build_broker_config(const ConfigMap& props, std::vector<std::string>& warnings);

}  // namespace weir::config
