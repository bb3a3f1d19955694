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
#include "protocol/errors.h"
#include "protocol/topic_partition.h"
#include "protocol/uuid.h"

namespace weir::metadata {

// The outcome of a metadata operation: a Kafka error code, as the request
// that asked for it answers, and Kafka's message for it.
struct Status {
    ErrorCode error = ErrorCode::none;
    std::string message;  // Kafka-style error message; empty on success

    [[nodiscard]] bool ok() const noexcept { return error == ErrorCode::none; }
    static Status failure(ErrorCode code, std::string msg) { return {code, std::move(msg)}; }
};

struct BrokerEndpoint {
    std::string listener;  // listener name, e.g. PLAINTEXT
    std::string host;
    std::int32_t port = 0;
    bool operator==(const BrokerEndpoint&) const = default;
};

// A live broker. Metadata responses use the endpoint of the listener the
// request arrived on.
struct BrokerInfo {
    std::int32_t id = 0;
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
    std::int32_t partition = 0;
    std::int32_t leader = -1;  // -1: no leader
    std::int32_t leader_epoch = 0;
    std::vector<std::int32_t> replicas;
    std::vector<std::int32_t> isr;
    std::vector<std::int32_t> offline_replicas;
    bool operator==(const PartitionInfo&) const = default;
};

struct TopicInfo {
    std::string name;
    Uuid id;
    bool internal = false;                  // Metadata's is_internal (__consumer_offsets, __transaction_state)
    std::vector<PartitionInfo> partitions;  // index == partition id
    config::ConfigMap configs;              // topic-level overrides only (canonical values)
};

using TopicPtr = std::shared_ptr<const TopicInfo>;

// An immutable, consistent view of the cluster metadata.
struct MetadataSnapshot {
    std::string cluster_id;
    std::int32_t controller_id = -1;
    std::vector<BrokerInfo> brokers;  // live brokers, by id
    std::map<std::string, TopicPtr, std::less<>> topics_by_name;
    std::map<Uuid, TopicPtr> topics_by_id;
    // Dynamic broker configs (KIP-226) as stored, per broker id and the
    // cluster-wide defaults; canonical values.
    std::map<std::int32_t, config::ConfigMap> broker_configs;
    config::ConfigMap default_broker_configs;
    std::uint64_t version = 0;  // increases with every change

    TopicPtr topic(std::string_view name) const {
        auto it = topics_by_name.find(name);
        return it == topics_by_name.end() ? nullptr : it->second;
    }
    TopicPtr topic_by_id(const Uuid& id) const {
        auto it = topics_by_id.find(id);
        return it == topics_by_id.end() ? nullptr : it->second;
    }
    // Kafka's MetadataCache.contains(TopicPartition).
    bool contains(const TopicPartition& tp) const {
        auto t = topic(tp.topic);
        return t && tp.partition >= 0 && static_cast<std::size_t>(tp.partition) < t->partitions.size();
    }
    const BrokerInfo* broker(std::int32_t id) const noexcept {
        for (const auto& b : brokers)
            if (b.id == id) return &b;
        return nullptr;
    }
    std::vector<std::int32_t> broker_ids() const {
        std::vector<std::int32_t> ids;
        for (const auto& b : brokers) ids.push_back(b.id);
        return ids;
    }
    // The two dynamic levels that apply to one broker.
    config::DynamicBrokerConfigs dynamic_broker_configs(std::int32_t broker_id) const {
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
    std::int32_t num_partitions = 1;
    std::int16_t replication_factor = 1;
    std::map<std::int32_t, std::vector<std::int32_t>> assignments;  // partition -> replicas
    config::ConfigMap configs;                                      // topic-level overrides
};

struct CreateTopicResult : Status {
    Uuid topic_id;   // zero when failed or validate_only
    TopicPtr topic;  // the created topic (null when failed or validate_only)
};

// Producer ids one broker may hand out (Kafka's ProducerIdsBlock): the store
// gives each block once, durably, so no id is ever given twice, even after a
// crash or across brokers.
struct ProducerIdBlock {
    std::int32_t broker_id = -1;
    std::int64_t first = 0;
    std::int32_t size = 0;
    [[nodiscard]] std::int64_t last() const { return first + size - 1; }
    bool operator==(const ProducerIdBlock&) const = default;
};

// Kafka's ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE.
inline constexpr std::int32_t kProducerIdBlockSize = 1000;

struct ProducerIdBlockResult : Status {
    ProducerIdBlock block;
};

struct MetadataChange {
    enum class Kind {
        topic_created,
        topic_deleted,
        partitions_added,
        topic_configs_changed,
        partition_state_changed,
        brokers_changed,
        broker_configs_changed,
    };
    Kind kind = Kind::topic_created;
    std::string topic;  // empty for brokers_changed / broker_configs_changed
    Uuid topic_id;
    TopicPtr before;  // null for topic_created / brokers_changed / broker_configs_changed
    TopicPtr after;   // null for topic_deleted / brokers_changed / broker_configs_changed
    // broker_configs_changed: whose dynamic configs changed; nullopt for the
    // cluster-wide defaults.
    std::optional<std::int32_t> broker_id;
};

// The store cannot be opened (unreadable or corrupt state, broker id mismatch).
class MetadataStoreError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace weir::metadata
