// Metadata: every version. Brokers are described by their endpoint on the
// listener the request arrived on. Unknown topics a client asks for are
// auto-created (auto.create.topics.enable and, v4+, allow_auto_topic_creation).
// Deviation from Kafka: a topic created here is answered at once with its
// partitions and error NONE (Kafka answers LEADER_NOT_AVAILABLE and lets the
// client retry), and the replication factor is clamped to the live brokers.
// In cluster mode a topic this broker has not learned yet, though it exists in
// ZooKeeper, is waited for briefly: Kafka's controller tells every broker of
// a new topic at once, a Weir broker learns it through its own watches.
#include <algorithm>
#include <set>

#include "broker/config/config_keys.h"
#include "broker/handlers/handlers.h"
#include "broker/metadata/topic_name.h"
#include "broker/partitions/replica_manager.h"
#include "protocol/errors.h"

// GCC 12 reports a spurious -Wmismatched-new-delete on handle()'s asio
// coroutine frame once it awaits a coroutine that awaits the metadata store
// (asio allocates and frees the frame with its own operator new/delete pair).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace weir::handlers {

namespace {

using Response = msg::MetadataResponse;
using ResponseTopic = Response::MetadataResponseTopic;

// No authorizer: every operation the resource type supports (Kafka's
// AclEntry.supportedOperations as a bit field).
constexpr std::int32_t kTopicOperations =
    3576;  // READ WRITE CREATE DELETE ALTER DESCRIBE DESCRIBE_CONFIGS ALTER_CONFIGS
constexpr std::int32_t kClusterOperations =
    8096;  // CREATE ALTER DESCRIBE CLUSTER_ACTION DESCRIBE/ALTER_CONFIGS IDEMPOTENT_WRITE
constexpr std::int32_t kNoLeader = -1;

std::int16_t code(ErrorCode e) { return to_int(e); }

bool has_endpoint(const metadata::MetadataSnapshot& s, std::int32_t id, std::string_view listener) {
    const auto* b = s.broker(id);
    return b != nullptr && b->endpoint(listener) != nullptr;
}

// The partitions this broker hosts in a log dir whose disk failed.
struct LocalOffline {
    const partitions::ReplicaManager& partitions;
    std::int32_t broker_id;

    [[nodiscard]] bool operator()(const TopicPartition& tp) const {
        auto partition = partitions.get(tp);
        return partition && partition->offline();
    }
};

// MetadataCache.getPartitionMetadata.
Response::MetadataResponsePartition describe_partition(const metadata::PartitionInfo& p,
                                                       const metadata::MetadataSnapshot& s, std::string_view listener,
                                                       std::int16_t version, const LocalOffline& local_offline,
                                                       const std::string& topic) {
    Response::MetadataResponsePartition out;
    out.partition_index = p.partition;
    out.leader_epoch = p.leader_epoch;
    out.offline_replicas = p.offline_replicas;
    // v0 drops replicas without an endpoint (and flags it); later versions list them all.
    auto filtered = [&](const std::vector<std::int32_t>& ids) {
        if (version != 0) return ids;
        std::vector<std::int32_t> alive;
        for (auto id : ids)
            if (has_endpoint(s, id, listener)) alive.push_back(id);
        return alive;
    };
    out.replica_nodes = filtered(p.replicas);
    out.isr_nodes = filtered(p.isr);
    if (!has_endpoint(s, p.leader, listener)) {
        const bool alive = s.broker(p.leader) != nullptr;
        out.error_code = code(!alive || version < 6 ? ErrorCode::leader_not_available : ErrorCode::listener_not_found);
        out.leader_id = kNoLeader;
    } else {
        out.leader_id = p.leader;
        const bool missing = out.replica_nodes.size() < p.replicas.size() || out.isr_nodes.size() < p.isr.size();
        out.error_code = code(missing ? ErrorCode::replica_not_available : ErrorCode::none);
    }
    if (local_offline(TopicPartition{topic, p.partition})) {
        // What Kafka's controller publishes once it has learnt of the failed
        // log dir (no other replica here takes over: see docs/operations.md, "A failed disk").
        const auto me = local_offline.broker_id;
        if (std::ranges::find(out.offline_replicas, me) == out.offline_replicas.end())
            out.offline_replicas.push_back(me);
        if (out.leader_id == me) {
            out.leader_id = kNoLeader;
            out.error_code = code(ErrorCode::leader_not_available);
        }
    }
    return out;
}

ResponseTopic describe_topic(const metadata::TopicInfo& t, const metadata::MetadataSnapshot& s,
                             std::string_view listener, std::int16_t version, const LocalOffline& local_offline) {
    ResponseTopic out;
    out.name = t.name;
    out.topic_id = t.id;
    out.is_internal = metadata::is_internal_topic(t.name);
    out.partitions.reserve(t.partitions.size());
    for (const auto& p : t.partitions)
        out.partitions.push_back(describe_partition(p, s, listener, version, local_offline, t.name));
    return out;
}

ResponseTopic topic_error(ErrorCode error, std::optional<std::string> name, const Uuid& id = {}) {
    ResponseTopic out;
    out.error_code = code(error);
    out.is_internal = name && metadata::is_internal_topic(*name);
    out.name = std::move(name);
    out.topic_id = id;
    return out;
}

// AutoTopicCreationManager.creatableTopic: internal topics get their own
// partition count, replication factor and configs.
metadata::NewTopic creatable_topic(const config::BrokerConfig& config, const std::string& name, int live_brokers) {
    metadata::NewTopic t;
    t.name = name;
    auto clamp_rf = [&](std::int64_t rf) {
        return static_cast<std::int16_t>(std::clamp<std::int64_t>(rf, 1, std::max(live_brokers, 1)));
    };
    if (name == metadata::kConsumerOffsetsTopic) {
        t.num_partitions = config.offsets_topic_num_partitions;
        t.replication_factor = config.internal_topic_replication_factor(live_brokers);
        t.configs = {{"cleanup.policy", "compact"},
                     {"compression.type", "producer"},
                     {"segment.bytes", std::to_string(config.offsets_topic_segment_bytes)}};
    } else if (name == metadata::kTransactionStateTopic) {
        t.num_partitions =
            static_cast<std::int32_t>(config::as_int(config.static_value("transaction.state.log.num.partitions")));
        t.replication_factor =
            clamp_rf(config::as_int(config.static_value("transaction.state.log.replication.factor")));
        const auto min_isr = std::min<std::int64_t>(
            config::as_int(config.static_value("transaction.state.log.min.isr")), t.replication_factor);
        t.configs = {{"cleanup.policy", "compact"},
                     {"compression.type", "uncompressed"},
                     {"min.insync.replicas", std::to_string(min_isr)},
                     {"segment.bytes",
                      std::to_string(config::as_int(config.static_value("transaction.state.log.segment.bytes")))},
                     {"unclean.leader.election.enable", "false"}};
    } else {
        t.num_partitions = config.num_partitions;
        t.replication_factor = clamp_rf(config.default_replication_factor);
    }
    return t;
}

// Creates a missing topic a Metadata request asked for; answers it as Kafka's
// AutoTopicCreationManager would, except that success is answered in full.
Task<ResponseTopic> auto_create(BrokerContext& broker, std::string name, std::string_view listener,
                                std::int16_t version) {
    if (metadata::validate_topic_name(name)) co_return topic_error(ErrorCode::invalid_topic_exception, name);
    auto live = static_cast<int>(broker.metadata.snapshot()->brokers.size());
    auto result = co_await broker.metadata.create_topic(creatable_topic(broker.config, name, live), false);
    auto after = broker.metadata.snapshot();
    if (result.ok() || result.error == ErrorCode::topic_already_exists) {
        if (auto t = after->topic(name))
            co_return describe_topic(*t, *after, listener, version,
                                     LocalOffline{broker.partitions, broker.config.broker_id});
        co_return topic_error(ErrorCode::leader_not_available, name);
    }
    co_return topic_error(result.error, name);
}

// A validly named topic this broker does not show. It may exist all the same,
// created through another broker a moment ago: waited for briefly rather
// than denied. Else created if allowed, or unknown.
Task<ResponseTopic> unshown_topic(BrokerContext& broker, std::string name, bool may_create, std::string_view listener,
                                  std::int16_t version) {
    if (co_await broker.metadata.catch_up_on_topic(name, metadata::kLearnTopicTimeout)) {
        auto now = broker.metadata.snapshot();
        if (auto t = now->topic(name))
            co_return describe_topic(*t, *now, listener, version,
                                     LocalOffline{broker.partitions, broker.config.broker_id});
    }
    if (may_create) co_return co_await auto_create(broker, std::move(name), listener, version);
    co_return topic_error(ErrorCode::unknown_topic_or_partition, name);
}

}  // namespace

Task<msg::MetadataResponse> handle(BrokerContext& broker, const RequestContext& ctx, msg::MetadataRequest request) {
    const auto version = ctx.version();
    const std::string_view listener = ctx.connection.listener;
    const LocalOffline local_offline{broker.partitions, broker.config.broker_id};
    Response response;

    const bool all_topics = !request.topics || (version == 0 && request.topics->empty());
    if (!all_topics && version < 12) {
        // Topic ids in Metadata requests are only accepted from v12 on.
        for (const auto& t : *request.topics) {
            if (t.name && t.topic_id.is_zero()) continue;
            for (const auto& each : *request.topics)
                response.topics.push_back(
                    topic_error(ErrorCode::invalid_request, each.name.value_or(""), each.topic_id));
            co_return response;
        }
    }

    auto snapshot = broker.metadata.snapshot();
    for (const auto& b : snapshot->brokers) {
        const auto* endpoint = b.endpoint(listener);
        if (endpoint == nullptr) continue;
        auto& out = response.brokers.emplace_back();
        out.node_id = b.id;
        out.host = endpoint->host;
        out.port = endpoint->port;
        out.rack = b.rack;
    }
    response.cluster_id = snapshot->cluster_id;
    response.controller_id = snapshot->controller_id;

    if (all_topics) {
        for (const auto& [name, t] : snapshot->topics_by_name)
            response.topics.push_back(describe_topic(*t, *snapshot, listener, version, local_offline));
    } else {
        bool by_id = false;
        for (const auto& t : *request.topics) by_id = by_id || !t.topic_id.is_zero();
        std::set<std::string, std::less<>> seen;
        if (by_id) {
            // Names are ignored once any topic is named by id (Kafka does the same).
            std::vector<ResponseTopic> unknown;
            std::set<Uuid> seen_ids;
            for (const auto& t : *request.topics) {
                if (t.topic_id.is_zero() || !seen_ids.insert(t.topic_id).second) continue;
                auto info = snapshot->topic_by_id(t.topic_id);
                if (!info)
                    unknown.push_back(topic_error(ErrorCode::unknown_topic_id, std::nullopt, t.topic_id));
                else
                    response.topics.push_back(describe_topic(*info, *snapshot, listener, version, local_offline));
            }
            response.topics.insert(response.topics.begin(), unknown.begin(), unknown.end());
        } else {
            const bool may_create = broker.config.auto_create_topics_enable && request.allow_auto_topic_creation;
            for (const auto& t : *request.topics) {
                const std::string name = t.name.value_or("");
                if (!seen.insert(name).second) continue;
                if (auto info = snapshot->topic(name)) {
                    response.topics.push_back(describe_topic(*info, *snapshot, listener, version, local_offline));
                } else if (metadata::validate_topic_name(name)) {
                    response.topics.push_back(topic_error(ErrorCode::invalid_topic_exception, name));
                } else {
                    response.topics.push_back(co_await unshown_topic(broker, name, may_create, listener, version));
                }
            }
        }
    }

    if (version >= 8) {
        if (request.include_cluster_authorized_operations && version <= 10)
            response.cluster_authorized_operations = kClusterOperations;
        if (request.include_topic_authorized_operations)
            for (auto& t : response.topics)
                if (t.error_code != code(ErrorCode::unknown_topic_id)) t.topic_authorized_operations = kTopicOperations;
    }
    co_return response;
}

}  // namespace weir::handlers
