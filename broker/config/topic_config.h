#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "broker/config/broker_config.h"
#include "broker/config/config_keys.h"
#include "broker/config/config_types.h"
#include "broker/config/dynamic_broker_config.h"
#include "protocol/records/record_batch.h"

namespace weir::config {

// Effective configuration of one topic: its overrides over the broker's
// defaults (Kafka's LogConfig). `values` holds every topic key's canonical value.
struct TopicConfig {
    std::int64_t retention_ms = 604800000;  // -1: forever
    std::int64_t retention_bytes = -1;
    std::int32_t segment_bytes = 1073741824;
    std::int64_t segment_ms = 604800000;
    std::int64_t segment_jitter_ms = 0;
    std::int32_t segment_index_bytes = 10485760;
    CleanupPolicy cleanup_policy{};
    records::TimestampType message_timestamp_type = records::TimestampType::create_time;
    std::int64_t message_timestamp_difference_max_ms = INT64_MAX;
    std::int32_t max_message_bytes = 1048588;
    std::int32_t min_insync_replicas = 1;
    std::int32_t index_interval_bytes = 4096;
    std::int64_t flush_messages = INT64_MAX;
    std::int64_t flush_ms = INT64_MAX;
    std::string compression_type = "producer";
    std::int64_t delete_retention_ms = 86400000;
    std::int64_t min_compaction_lag_ms = 0;
    std::int64_t max_compaction_lag_ms = INT64_MAX;
    double min_cleanable_dirty_ratio = 0.5;
    std::int64_t file_delete_delay_ms = 60000;
    bool preallocate = false;
    bool unclean_leader_election_enable = false;

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
