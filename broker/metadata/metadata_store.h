#pragma once

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker/config/config_types.h"
#include "broker/metadata/metadata_types.h"
#include "protocol/topic_partition.h"

namespace weir::metadata {

template <typename T>
using Task = boost::asio::awaitable<T>;

// How long a broker waits to learn a topic that exists but that it does not
// show yet (normally milliseconds behind the broker that created it); past
// it, the topic is unknown as before, and the client retries.
inline constexpr std::chrono::milliseconds kLearnTopicTimeout{1000};

// Cluster metadata: brokers, controller, topics, partitions, topic configs,
// dynamic broker configs.
// Backends: EmbeddedMetadataStore (single node, JSON file) and, later,
// ZooKeeper. Implementations are thread-safe. Reads return immutable
// snapshots at once. Mutations are coroutines that answer Kafka error codes
// and messages: the broker's network runs on one I/O thread, so a backend that
// waits for someone else (ZooKeeper) suspends the request that asked instead
// of blocking every connection. The embedded store completes without
// suspending. The checks every backend makes are in topic_validation.h.
// Mutations take their arguments by value: a suspended coroutine must not
// refer to its caller's temporaries.
class MetadataStore {
public:
    using ChangeListener = std::function<void(const MetadataChange&)>;
    using ListenerId = std::uint64_t;

    virtual ~MetadataStore() = default;

    // The current state, consistent across all its parts.
    virtual std::shared_ptr<const MetadataSnapshot> snapshot() const = 0;

    // This broker's id.
    virtual std::int32_t local_broker_id() const = 0;

    // Creates a topic after validate_new_topic's checks. Topic ids are random;
    // internal names (__consumer_offsets) are flagged internal.
    // validate_only: check everything, change nothing.
    virtual Task<CreateTopicResult> create_topic(NewTopic topic, bool validate_only) = 0;

    // Several at once (one CreateTopics request), a result for each in order;
    // as delete_topics, the embedded store writes its state once for all.
    virtual Task<std::vector<CreateTopicResult>> create_topics(std::vector<NewTopic> topics, bool validate_only) {
        std::vector<CreateTopicResult> out;
        out.reserve(topics.size());
        for (auto& topic : topics) out.push_back(co_await create_topic(std::move(topic), validate_only));
        co_return out;
    }

    // After validate_topic_deletion's checks (unknown, internal).
    virtual Task<Status> delete_topic(std::string name) = 0;

    // Several at once (one DeleteTopics request), a status for each name in
    // order. A backend that writes its whole state per change (the embedded
    // store) writes it once for all of them.
    virtual Task<std::vector<Status>> delete_topics(std::vector<std::string> names) {
        std::vector<Status> out;
        out.reserve(names.size());
        for (auto& name : names) out.push_back(co_await delete_topic(std::move(name)));
        co_return out;
    }

    // Grows a topic to new_total partitions, after validate_new_partitions'
    // checks. `assignments` is empty (automatic placement) or one replica list
    // per new partition.
    virtual Task<Status> create_partitions(std::string name, std::int32_t new_total,
                                           std::vector<std::vector<std::int32_t>> assignments, bool validate_only) = 0;

    // Replaces the topic's overrides with `configs` (AlterConfigs semantics;
    // IncrementalAlterConfigs merges before calling), after
    // validate_topic_config_change's checks.
    virtual Task<Status> alter_topic_configs(std::string name, config::ConfigMap configs, bool validate_only) = 0;

    // Replaces the dynamic configs (KIP-226) of one broker, or with nullopt the
    // cluster-wide defaults; an empty set removes them. ZooKeeper keeps these at
    // /config/brokers/<id> and /config/brokers/<default>. Values are stored as
    // given: validating them needs the broker's static config, so callers run
    // config::validate_dynamic_broker_configs first.
    virtual Task<Status> alter_broker_configs(std::optional<std::int32_t> broker_id, config::ConfigMap configs) = 0;

    // A partition leader's new ISR (Kafka's ZooKeeper-mode ISR update, later
    // AlterPartition), written only if this broker still leads the partition
    // in `leader_epoch` (else FENCED_LEADER_EPOCH). Completes once this
    // broker's snapshot shows it. Backends whose ISR never changes (a single
    // node) refuse it.
    virtual Task<Status> alter_partition_isr(TopicPartition tp, std::int32_t leader_epoch,
                                             std::vector<std::int32_t> isr) {
        co_return Status::failure(ErrorCode::invalid_request,
                                  "ISR of " + tp.to_string() + " cannot change on a single node (epoch " +
                                      std::to_string(leader_epoch) + ", " + std::to_string(isr.size()) + " replicas)");
    }

    // Moves a partition's leadership to another in-sync replica on demand
    // (the admin API's leader_change fault, as librdkafka's mock
    // rd_kafka_mock_partition_set_leader): to `to`, or else to the live ISR
    // member after the current leader; same ISR, next leader epoch, as an
    // election would. Completes once this broker's snapshot shows it. A
    // single node has no other replica and refuses.
    virtual Task<Status> move_leader(TopicPartition tp, std::optional<std::int32_t> to) {
        co_return Status::failure(ErrorCode::invalid_request,
                                  "leadership of " + tp.to_string() + " cannot move on a single node" +
                                      (to ? " (asked for broker " + std::to_string(*to) + ")" : std::string()));
    }

    // For a topic the snapshot does not show: whether it exists where the
    // cluster keeps its metadata all the same (created a moment ago through
    // another broker, and not yet learned here); if so, waits up to `timeout`
    // for the snapshot to show it. True once it does. A store that is its
    // own source (a single node) has nothing to learn: false at once.
    virtual Task<bool> catch_up_on_topic(std::string /*name*/, std::chrono::milliseconds /*timeout*/) {
        co_return false;
    }

    // The snapshot, after catch_up_on_topic when it does not show `name`: a
    // request that names an existing topic (grow it, alter its configs,
    // delete it) finds one created through another broker a moment ago, as
    // it would at Kafka's controller, which reads ZooKeeper.
    Task<std::shared_ptr<const MetadataSnapshot>> snapshot_showing(std::string name) {
        if (auto now = snapshot(); now->topic(name)) co_return now;
        co_await catch_up_on_topic(std::move(name), kLearnTopicTimeout);
        co_return snapshot();
    }

    // The next block of producer ids for this broker, durable before it is
    // returned (ZooKeeper: /latest_producer_id_block, as Kafka writes it).
    virtual Task<ProducerIdBlockResult> allocate_producer_id_block() = 0;

    // Called after each change is durable, before the mutation that made it
    // completes, on the thread that made it, in change order. A listener may
    // read the store; a mutation it starts (co_spawn) is its own change.
    virtual ListenerId add_listener(ChangeListener listener) = 0;
    virtual void remove_listener(ListenerId id) = 0;

    // Conveniences over snapshot().
    std::string cluster_id() const { return snapshot()->cluster_id; }
    std::int32_t controller_id() const { return snapshot()->controller_id; }
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
