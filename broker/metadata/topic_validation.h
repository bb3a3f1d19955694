#pragma once
// The checks a topic change passes before a metadata backend stores it:
// Kafka's AdminZkClient.validateTopicCreate and validateReplicaAssignment, the
// partition and replication checks of createTopics/addPartitions and the
// topic-config checks, in Kafka's order and with its messages. They read the
// cluster from a snapshot and change nothing, so every backend (the embedded
// store, a ZooKeeper store) refuses the same requests with the same answers;
// what is left to a backend is placing replicas and making the change durable.
#include <cstdint>
#include <string_view>
#include <vector>

#include "broker/config/config_types.h"
#include "broker/metadata/metadata_types.h"

namespace weir::metadata {

// CreateTopics. In order: the name (INVALID_TOPIC_EXCEPTION); that no topic
// has it (TOPIC_ALREADY_EXISTS) or collides with it in metric names
// (INVALID_TOPIC_EXCEPTION); then either the explicit assignment (not together
// with a count: INVALID_REQUEST; partitions 0..n-1, each a valid replica list
// of one common length: INVALID_REPLICA_ASSIGNMENT) or the partition count
// (INVALID_PARTITIONS) and the replication factor, at least 1 and at most the
// live brokers (INVALID_REPLICATION_FACTOR); last the configs (INVALID_CONFIG).
// On success `normalized_configs`, if given, receives the canonical values.
Status validate_new_topic(const MetadataSnapshot& cluster, const NewTopic& topic,
                          config::ConfigMap* normalized_configs = nullptr);

// CreatePartitions: the topic exists (UNKNOWN_TOPIC_OR_PARTITION) and grows
// (INVALID_PARTITIONS). `assignments` is empty (automatic placement, which
// needs as many live brokers as the topic's replication factor:
// INVALID_REPLICATION_FACTOR) or one valid replica list per new partition, each
// of the topic's replication factor (INVALID_REPLICA_ASSIGNMENT).
Status validate_new_partitions(const MetadataSnapshot& cluster, std::string_view topic, std::int32_t new_total,
                               const std::vector<std::vector<std::int32_t>>& assignments);

// AlterConfigs of a topic: it exists (UNKNOWN_TOPIC_OR_PARTITION) and the new
// set of overrides is valid (INVALID_CONFIG). On success `normalized`, if
// given, receives the canonical values.
Status validate_topic_config_change(const MetadataSnapshot& cluster, std::string_view topic,
                                    const config::ConfigMap& configs, config::ConfigMap* normalized = nullptr);

// DeleteTopics: the topic exists (UNKNOWN_TOPIC_OR_PARTITION) and is not
// internal (INVALID_REQUEST).
Status validate_topic_deletion(const MetadataSnapshot& cluster, std::string_view topic);

// The single checks the ones above are made of.

// Kafka's Topic.validate (INVALID_TOPIC_EXCEPTION).
Status check_topic_name(std::string_view name);
// Topic-level overrides (INVALID_CONFIG: "Unknown topic config name: x",
// "Invalid value ... for configuration ...").
Status check_topic_configs(const config::ConfigMap& configs, config::ConfigMap* normalized = nullptr);
// One partition's replicas: not empty, no broker twice, every broker live
// (INVALID_REPLICA_ASSIGNMENT).
Status check_replica_list(const MetadataSnapshot& cluster, const std::vector<std::int32_t>& replicas,
                          std::int32_t partition);

}  // namespace weir::metadata
