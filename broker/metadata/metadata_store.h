#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "broker/config/config_types.h"
#include "broker/metadata/metadata_types.h"

namespace weir::metadata {

// Cluster metadata: brokers, controller, topics, partitions, topic configs,
// dynamic broker configs.
// Backends: EmbeddedMetadataStore (single node, JSON file) and, later,
// ZooKeeper. Implementations are thread-safe. Reads return immutable
// snapshots; mutations return Kafka error codes and messages. A mutation may
// block (the ZooKeeper backend waits for ZooKeeper).
class MetadataStore {
 public:
  using ChangeListener = std::function<void(const MetadataChange&)>;
  using ListenerId = uint64_t;

  virtual ~MetadataStore() = default;

  // The current state, consistent across all its parts.
  virtual std::shared_ptr<const MetadataSnapshot> snapshot() const = 0;

  // This broker's id.
  virtual int32_t local_broker_id() const = 0;

  // Creates a topic: validates the name (INVALID_TOPIC_EXCEPTION), existence
  // (TOPIC_ALREADY_EXISTS), partitions (INVALID_PARTITIONS), replication
  // factor against live brokers (INVALID_REPLICATION_FACTOR), assignment
  // (INVALID_REPLICA_ASSIGNMENT) and configs (INVALID_CONFIG). Topic ids are
  // random; internal names (__consumer_offsets) are flagged internal.
  // validate_only: check everything, change nothing.
  virtual CreateTopicResult create_topic(const NewTopic& topic, bool validate_only) = 0;

  // UNKNOWN_TOPIC_OR_PARTITION if absent; internal topics cannot be deleted
  // (INVALID_REQUEST).
  virtual Status delete_topic(std::string_view name) = 0;

  // Grows a topic to new_total partitions (INVALID_PARTITIONS if not larger).
  // `assignments` is empty (automatic placement) or one replica list per new
  // partition.
  virtual Status create_partitions(std::string_view name, int32_t new_total,
                                   const std::vector<std::vector<int32_t>>& assignments, bool validate_only) = 0;

  // Replaces the topic's overrides with `configs` (AlterConfigs semantics;
  // IncrementalAlterConfigs merges before calling). INVALID_CONFIG if invalid.
  virtual Status alter_topic_configs(std::string_view name, const config::ConfigMap& configs, bool validate_only) = 0;

  // Replaces the dynamic configs (KIP-226) of one broker, or with nullopt the
  // cluster-wide defaults; an empty set removes them. ZooKeeper keeps these at
  // /config/brokers/<id> and /config/brokers/<default>. Values are stored as
  // given: validating them needs the broker's static config, so callers run
  // config::validate_dynamic_broker_configs first.
  virtual Status alter_broker_configs(std::optional<int32_t> broker_id, const config::ConfigMap& configs) = 0;

  // Called after each change is durable, on the thread that made it, in
  // change order. A listener may read the store (and even mutate it, which
  // nests a notification).
  virtual ListenerId add_listener(ChangeListener listener) = 0;
  virtual void remove_listener(ListenerId id) = 0;

  // Conveniences over snapshot().
  std::string cluster_id() const { return snapshot()->cluster_id; }
  int32_t controller_id() const { return snapshot()->controller_id; }
  std::vector<BrokerInfo> brokers() const { return snapshot()->brokers; }
  TopicPtr topic(std::string_view name) const { return snapshot()->topic(name); }
  TopicPtr topic_by_id(const Uuid& id) const { return snapshot()->topic_by_id(id); }
  std::vector<TopicPtr> topics() const {
    auto s = snapshot();
    std::vector<TopicPtr> out;
    out.reserve(s->topics_by_name.size());
    for (const auto& [name, t] : s->topics_by_name) out.push_back(t);
    return out;
  }

 protected:
  MetadataStore() = default;
  MetadataStore(const MetadataStore&) = delete;
  MetadataStore& operator=(const MetadataStore&) = delete;
};

}  // namespace weir::metadata
