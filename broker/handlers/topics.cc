// CreateTopics, DeleteTopics, CreatePartitions: every version, answered as
// Kafka's KafkaApis + ZkAdminManager answer them. The metadata store does the
// change; partition logs follow through the Broker's metadata listener.
// Like Kafka, a request with timeout_ms <= 0 gets REQUEST_TIMED_OUT for the
// topics it did change (the change is made; the client just doesn't wait).
#include <algorithm>
#include <map>
#include <set>

#include "broker/config/describe_configs.h"
#include "broker/config/topic_config.h"
#include "broker/handlers/handlers.h"
#include "protocol/errors.h"

namespace weir::handlers {

namespace {

constexpr std::string_view kClusterMetadataTopic = "__cluster_metadata";

std::string join(const std::vector<std::string>& items, std::string_view separator) {
    std::string out;
    for (const auto& i : items) {
        if (!out.empty()) out += separator;
        out += i;
    }
    return out;
}

// ---- CreateTopics ----------------------------------------------------------

using CreateResult = msg::CreateTopicsResponse::CreatableTopicResult;

// The checks ZkAdminManager.createTopics makes before AdminZkClient's, in its
// order; every store then runs the rest (name, collisions, assignment shape,
// configs: metadata::validate_new_topic).
metadata::Status precheck(const metadata::MetadataSnapshot& snapshot, const msg::CreateTopicsRequest::CreatableTopic& t,
                          const metadata::NewTopic& resolved) {
    using metadata::Status;
    if (snapshot.topic(t.name))
        return Status::failure(ErrorCode::topic_already_exists, "Topic '" + t.name + "' already exists.");
    std::vector<std::string> null_configs;
    for (const auto& c : t.configs)
        if (!c.value) null_configs.push_back(c.name);
    if (!null_configs.empty())
        return Status::failure(ErrorCode::invalid_config,
                               "Null value not supported for topic configs: " + join(null_configs, ","));
    if ((t.num_partitions != -1 || t.replication_factor != -1) && !t.assignments.empty())
        return Status::failure(ErrorCode::invalid_request,
                               "Both numPartitions or replicationFactor and replicasAssignments were set. Both cannot "
                               "be used at the same time.");
    if (t.assignments.empty()) {
        if (resolved.num_partitions <= 0)
            return Status::failure(ErrorCode::invalid_partitions, "Number of partitions must be larger than 0.");
        if (resolved.replication_factor <= 0)
            return Status::failure(ErrorCode::invalid_replication_factor, "Replication factor must be larger than 0.");
        if (resolved.replication_factor > static_cast<std::int32_t>(snapshot.brokers.size()))
            return Status::failure(ErrorCode::invalid_replication_factor,
                                   "Replication factor: " + std::to_string(resolved.replication_factor) +
                                       " larger than available brokers: " + std::to_string(snapshot.brokers.size()) +
                                       ".");
    }
    return {};
}

metadata::NewTopic resolve_new_topic(const config::BrokerConfig& config,
                                     const msg::CreateTopicsRequest::CreatableTopic& t) {
    metadata::NewTopic n;
    n.name = t.name;
    if (t.assignments.empty()) {
        n.num_partitions = t.num_partitions == -1 ? config.num_partitions : t.num_partitions;
        n.replication_factor = t.replication_factor == -1 ? static_cast<std::int16_t>(config.default_replication_factor)
                                                          : t.replication_factor;
    } else {
        n.num_partitions = t.num_partitions;
        n.replication_factor = t.replication_factor;
        for (const auto& a : t.assignments) n.assignments[a.partition_index] = a.broker_ids;
    }
    for (const auto& c : t.configs)
        if (c.value) n.configs.insert_or_assign(c.name, *c.value);
    return n;
}

// v5+: the configs the topic has (or would have), as CreateTopics reports them.
void fill_created(CreateResult& out, const BrokerContext& broker, const metadata::NewTopic& n) {
    config::ConfigMap normalized;
    if (config::validate_topic_configs(n.configs, &normalized)) normalized.clear();
    auto& configs = out.configs.emplace();
    const auto dynamic = broker.metadata.snapshot()->dynamic_broker_configs(broker.config.broker_id);
    for (const auto& e : config::describe_topic_configs(broker.config, normalized, dynamic)) {
        auto& c = configs.emplace_back();
        c.name = e.name;
        c.value = e.value;
        c.read_only = e.read_only;
        c.config_source = static_cast<std::int8_t>(e.source);
        c.is_sensitive = e.is_sensitive;
    }
    if (n.assignments.empty()) {
        out.num_partitions = n.num_partitions;
        out.replication_factor = n.replication_factor;
    } else {
        out.num_partitions = static_cast<std::int32_t>(n.assignments.size());
        out.replication_factor = static_cast<std::int16_t>(n.assignments.begin()->second.size());
    }
}

void reset_created(CreateResult& out) {
    out.configs.emplace();
    out.num_partitions = -1;
    out.replication_factor = -1;
    out.topic_config_error_code = 0;
}

// ---- DeleteTopics ----------------------------------------------------------

using DeleteResult = msg::DeleteTopicsResponse::DeletableTopicResult;

DeleteResult delete_result(std::optional<std::string> name, const Uuid& id, ErrorCode error) {
    DeleteResult r;
    r.name = std::move(name);
    r.topic_id = id;
    r.error_code = to_int(error);
    return r;
}

// ---- CreatePartitions ------------------------------------------------------

using PartitionsResult = msg::CreatePartitionsResponse::CreatePartitionsTopicResult;

// ZkAdminManager.createPartitions' own checks, in its order; the store checks
// the rest (metadata::validate_new_partitions: replication factor of each new
// partition, brokers for placement).
metadata::Status precheck_partitions(const metadata::MetadataSnapshot& snapshot,
                                     const msg::CreatePartitionsRequest::CreatePartitionsTopic& t) {
    using metadata::Status;
    auto info = snapshot.topic(t.name);
    if (!info)
        return Status::failure(ErrorCode::unknown_topic_or_partition, "The topic '" + t.name + "' does not exist.");
    const auto existing = static_cast<std::int32_t>(info->partitions.size());
    if (t.count < existing)
        return Status::failure(ErrorCode::invalid_partitions, "Topic currently has " + std::to_string(existing) +
                                                                  " partitions, which is higher than the requested " +
                                                                  std::to_string(t.count) + ".");
    if (t.count == existing)
        return Status::failure(ErrorCode::invalid_partitions,
                               "Topic already has " + std::to_string(existing) + " partitions.");
    if (t.assignments) {
        std::vector<std::string> unknown;
        std::set<std::int32_t> reported;
        for (const auto& a : *t.assignments)
            for (auto id : a.broker_ids)
                if (!snapshot.broker(id) && reported.insert(id).second) unknown.push_back(std::to_string(id));
        if (!unknown.empty())
            return Status::failure(ErrorCode::invalid_replica_assignment,
                                   "Unknown broker(s) in replica assignment: " + join(unknown, ", ") + ".");
        const auto increment = t.count - existing;
        if (static_cast<std::int32_t>(t.assignments->size()) != increment)
            return Status::failure(ErrorCode::invalid_replica_assignment,
                                   "Increasing the number of partitions by " + std::to_string(increment) + " but " +
                                       std::to_string(t.assignments->size()) + " assignments provided.");
    }
    return {};
}

}  // namespace

Task<msg::CreateTopicsResponse> handle(BrokerContext& broker, const RequestContext& ctx,
                                       msg::CreateTopicsRequest request) {
    const auto version = ctx.version();
    const bool validate_only = version >= 1 && request.validate_only;
    std::map<std::string, int, std::less<>> occurrences;
    for (const auto& t : request.topics) ++occurrences[t.name];

    msg::CreateTopicsResponse response;
    response.topics.reserve(request.topics.size());
    auto fail = [](CreateResult& out, ErrorCode error, std::optional<std::string> message) {
        out.error_code = to_int(error);
        out.error_message = std::move(message);
        reset_created(out);
    };
    const auto snapshot = broker.metadata.snapshot();
    // What passes the request's own checks is created in one store call.
    std::vector<std::size_t> asked;  // the response entry of each topic in `topics`
    std::vector<metadata::NewTopic> topics;
    for (const auto& t : request.topics) {
        auto& out = response.topics.emplace_back();
        out.name = t.name;
        out.error_message = std::nullopt;
        if (occurrences[t.name] > 1) {
            out.error_code = to_int(ErrorCode::invalid_request);
            out.error_message = "Found multiple entries for this topic.";
            continue;
        }
        if (t.name == kClusterMetadataTopic) {
            out.error_code = to_int(ErrorCode::topic_authorization_failed);
            out.error_message = "Authorization failed.";
            continue;
        }
        auto resolved = resolve_new_topic(broker.config, t);
        if (auto s = precheck(*snapshot, t, resolved); !s.ok()) {
            fail(out, s.error, s.message);
            continue;
        }
        asked.push_back(response.topics.size() - 1);
        topics.push_back(std::move(resolved));
    }
    if (topics.empty()) co_return response;
    const auto results = co_await broker.metadata.create_topics(topics, validate_only);
    for (std::size_t i = 0; i < asked.size(); ++i) {
        auto& out = response.topics[asked[i]];
        const auto& result = results[i];
        if (!result.ok()) {
            fail(out, result.error, result.message);
            continue;
        }
        fill_created(out, broker, topics[i]);
        if (!validate_only) {
            out.topic_id = result.topic_id;
            if (request.timeout_ms <= 0) {
                out.error_code = to_int(ErrorCode::request_timed_out);
                reset_created(out);
            }
        }
    }
    co_return response;
}

Task<msg::DeleteTopicsResponse> handle(BrokerContext& broker, const RequestContext& ctx,
                                       msg::DeleteTopicsRequest request) {
    const auto version = ctx.version();
    if (version < 6) {
        for (auto& name : request.topic_names) {
            auto& t = request.topics.emplace_back();
            t.name = std::move(name);
        }
    }
    msg::DeleteTopicsResponse response;
    response.responses.reserve(request.topics.size());

    if (!broker.config.delete_topic_enable) {
        auto error = version < 3 ? ErrorCode::invalid_request : ErrorCode::topic_deletion_disabled;
        for (const auto& t : request.topics) response.responses.push_back(delete_result(t.name, t.topic_id, error));
        co_return response;
    }
    const bool name_and_id = std::any_of(request.topics.begin(), request.topics.end(),
                                         [](const auto& t) { return t.name && !t.topic_id.is_zero(); });
    if (name_and_id) {
        // Kafka rejects the whole request ("Topic name and topic ID can not both be specified.").
        for (const auto& t : request.topics)
            response.responses.push_back(delete_result(t.name, t.topic_id, ErrorCode::invalid_request));
        co_return response;
    }

    auto snapshot = broker.metadata.snapshot();
    std::map<std::string, std::vector<std::size_t>, std::less<>> to_delete;  // name -> result indexes
    for (const auto& t : request.topics) {
        std::optional<std::string> name = t.name;
        if (!t.topic_id.is_zero()) {
            auto info = snapshot->topic_by_id(t.topic_id);
            name = info ? std::optional<std::string>(info->name) : std::nullopt;
        }
        if (name && !snapshot->topic(*name)) snapshot = co_await broker.metadata.snapshot_showing(*name);
        if (!name) {
            response.responses.push_back(delete_result(std::nullopt, t.topic_id, ErrorCode::unknown_topic_id));
        } else if (!snapshot->topic(*name)) {
            response.responses.push_back(delete_result(name, t.topic_id, ErrorCode::unknown_topic_or_partition));
        } else {
            to_delete[*name].push_back(response.responses.size());
            response.responses.push_back(delete_result(name, t.topic_id, ErrorCode::none));
        }
    }
    std::vector<std::string> names;
    for (const auto& [name, indexes] : to_delete) names.push_back(name);
    const auto statuses = co_await broker.metadata.delete_topics(std::move(names));
    auto status_of = statuses.begin();
    for (const auto& [name, indexes] : to_delete) {
        const auto& status = *status_of++;
        for (auto i : indexes) {
            auto& r = response.responses[i];
            if (!status.ok()) {
                r.error_code = to_int(status.error);
                if (status.error != ErrorCode::unknown_topic_or_partition) r.error_message = status.message;
            } else if (request.timeout_ms <= 0) {
                r.error_code = to_int(ErrorCode::request_timed_out);
            }
        }
    }
    co_return response;
}

Task<msg::CreatePartitionsResponse> handle(BrokerContext& broker, const RequestContext&,
                                           msg::CreatePartitionsRequest request) {
    std::map<std::string, int, std::less<>> occurrences;
    for (const auto& t : request.topics) ++occurrences[t.name];

    msg::CreatePartitionsResponse response;
    std::set<std::string, std::less<>> answered;
    for (const auto& t : request.topics) {
        if (!answered.insert(t.name).second) continue;  // one answer per topic name
        auto& out = response.results.emplace_back();
        out.name = t.name;
        if (occurrences[t.name] > 1) {
            out.error_code = to_int(ErrorCode::invalid_request);
            out.error_message = "Duplicate topic in request.";
            continue;
        }
        auto snapshot = co_await broker.metadata.snapshot_showing(t.name);
        auto status = precheck_partitions(*snapshot, t);
        if (status.ok()) {
            std::vector<std::vector<std::int32_t>> assignments;
            if (t.assignments)
                for (const auto& a : *t.assignments) assignments.push_back(a.broker_ids);
            status = co_await broker.metadata.create_partitions(t.name, t.count, std::move(assignments),
                                                                request.validate_only);
        }
        if (!status.ok()) {
            out.error_code = to_int(status.error);
            out.error_message = status.message;
        } else if (!request.validate_only && request.timeout_ms <= 0) {
            out.error_code = to_int(ErrorCode::request_timed_out);
        }
    }
    co_return response;
}

}  // namespace weir::handlers
