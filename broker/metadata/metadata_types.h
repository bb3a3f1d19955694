#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "broker/config/config_types.h"
#include "broker/config/dynamic_broker_config.h"
#include "broker/metadata/uuid.h"

namespace weir::metadata {

// The Kafka error codes metadata operations produce (values are Kafka's).
enum class ErrorCode : int16_t {
  None = 0,
  UnknownServerError = -1,
  UnknownTopicOrPartition = 3,
  InvalidTopic = 17,              // INVALID_TOPIC_EXCEPTION
  TopicAlreadyExists = 36,
  InvalidPartitions = 37,
  InvalidReplicationFactor = 38,
  InvalidReplicaAssignment = 39,
  InvalidConfig = 40,
  InvalidRequest = 42,
  UnknownTopicId = 100,
};

struct Status {
  ErrorCode error = ErrorCode::None;
  std::string message;  // Kafka-style error message; empty on success

  bool ok() const noexcept { return error == ErrorCode::None; }
  static Status failure(ErrorCode code, std::string msg) { return {code, std::move(msg)}; }
};

struct BrokerEndpoint {
  std::string listener;  // listener name, e.g. PLAINTEXT
  std::string host;
  int32_t port = 0;
  bool operator==(const BrokerEndpoint&) const = default;
};

// A live broker. Metadata responses use the endpoint of the listener the
// request arrived on.
struct BrokerInfo {
  int32_t id = 0;
  std::vector<BrokerEndpoint> endpoints;
  std::optional<std::string> rack;

  const BrokerEndpoint* endpoint(std::string_view listener) const noexcept {
    for (const auto& e : endpoints)
      if (e.listener == listener) return &e;
    return nullptr;
  }
  bool operator==(const BrokerInfo&) const = default;
};

struct PartitionInfo {
  int32_t partition = 0;
  int32_t leader = -1;  // -1: no leader
  int32_t leader_epoch = 0;
  std::vector<int32_t> replicas;
  std::vector<int32_t> isr;
  std::vector<int32_t> offline_replicas;
  bool operator==(const PartitionInfo&) const = default;
};

struct TopicInfo {
  std::string name;
  Uuid id;
  bool internal = false;  // Metadata's is_internal (__consumer_offsets, __transaction_state)
  std::vector<PartitionInfo> partitions;  // index == partition id
  config::ConfigMap configs;              // topic-level overrides only (canonical values)
};

using TopicPtr = std::shared_ptr<const TopicInfo>;

// An immutable, consistent view of the cluster metadata.
struct MetadataSnapshot {
  std::string cluster_id;
  int32_t controller_id = -1;
  std::vector<BrokerInfo> brokers;  // live brokers, by id
  std::map<std::string, TopicPtr, std::less<>> topics_by_name;
  std::map<Uuid, TopicPtr> topics_by_id;
  // Dynamic broker configs (KIP-226) as stored, per broker id and the
  // cluster-wide defaults; canonical values.
  std::map<int32_t, config::ConfigMap> broker_configs;
  config::ConfigMap default_broker_configs;
  uint64_t version = 0;  // increases with every change

  TopicPtr topic(std::string_view name) const {
    auto it = topics_by_name.find(name);
    return it == topics_by_name.end() ? nullptr : it->second;
  }
  TopicPtr topic_by_id(const Uuid& id) const {
    auto it = topics_by_id.find(id);
    return it == topics_by_id.end() ? nullptr : it->second;
  }
  const BrokerInfo* broker(int32_t id) const noexcept {
    for (const auto& b : brokers)
      if (b.id == id) return &b;
    return nullptr;
  }
  // The two dynamic levels that apply to one broker.
  config::DynamicBrokerConfigs dynamic_broker_configs(int32_t broker_id) const {
    config::DynamicBrokerConfigs out;
    if (auto it = broker_configs.find(broker_id); it != broker_configs.end()) out.broker = it->second;
    out.cluster_default = default_broker_configs;
    return out;
  }
};

// CreateTopics input. Either num_partitions + replication_factor (both >= 1;
// map Kafka's -1 to num.partitions / default.replication.factor before
// calling), or an explicit assignment with both set to -1.
struct NewTopic {
  std::string name;
  int32_t num_partitions = 1;
  int16_t replication_factor = 1;
  std::map<int32_t, std::vector<int32_t>> assignments;  // partition -> replicas
  config::ConfigMap configs;                            // topic-level overrides
};

struct CreateTopicResult : Status {
  Uuid topic_id;  // zero when failed or validate_only
  TopicPtr topic; // the created topic (null when failed or validate_only)
};

struct MetadataChange {
  enum class Kind {
    TopicCreated,
    TopicDeleted,
    PartitionsAdded,
    TopicConfigsChanged,
    PartitionStateChanged,
    BrokersChanged,
    BrokerConfigsChanged,
  };
  Kind kind = Kind::TopicCreated;
  std::string topic;  // empty for BrokersChanged / BrokerConfigsChanged
  Uuid topic_id;
  TopicPtr before;    // null for TopicCreated / BrokersChanged / BrokerConfigsChanged
  TopicPtr after;     // null for TopicDeleted / BrokersChanged / BrokerConfigsChanged
  // BrokerConfigsChanged: whose dynamic configs changed; nullopt for the
  // cluster-wide defaults.
  std::optional<int32_t> broker_id;
};

// The store cannot be opened (unreadable or corrupt state, broker id mismatch).
class MetadataStoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace weir::metadata
