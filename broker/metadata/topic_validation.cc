#include "broker/metadata/topic_validation.h"

#include <set>
#include <string>

#include "broker/config/topic_config.h"
#include "broker/metadata/topic_name.h"

namespace weir::metadata {

namespace {

std::string join_ids(const std::vector<std::int32_t>& ids) {
    std::string out;
    for (std::int32_t id : ids) {
        if (!out.empty()) out += ", ";
        out += std::to_string(id);
    }
    return out;
}

Status unknown_topic(std::string_view topic) {
    return Status::failure(ErrorCode::unknown_topic_or_partition,
                           "The topic '" + std::string(topic) + "' does not exist.");
}

Status too_few_brokers(std::int64_t replication_factor, std::size_t live_brokers) {
    return Status::failure(ErrorCode::invalid_replication_factor,
                           "Replication factor: " + std::to_string(replication_factor) +
                               " larger than available brokers: " + std::to_string(live_brokers) + ".");
}

Status check_explicit_assignment(const MetadataSnapshot& cluster, const NewTopic& topic) {
    if (topic.num_partitions != -1 || topic.replication_factor != -1) {
        return Status::failure(ErrorCode::invalid_request,
                               "Both numPartitions or replicationFactor and replicasAssignments were set. Both cannot "
                               "be used at the same time.");
    }
    std::int32_t expected = 0;
    for (const auto& [partition, replicas] : topic.assignments) {
        if (partition != expected++) {
            return Status::failure(ErrorCode::invalid_replica_assignment,
                                   "Partitions should be a consecutive 0-based integer sequence");
        }
        if (auto s = check_replica_list(cluster, replicas, partition); !s.ok()) return s;
        if (replicas.size() != topic.assignments.begin()->second.size()) {
            return Status::failure(ErrorCode::invalid_replica_assignment,
                                   "All partitions should have the same number of replicas");
        }
    }
    return {};
}

Status check_counts(const MetadataSnapshot& cluster, const NewTopic& topic) {
    if (topic.num_partitions < 1) {
        return Status::failure(ErrorCode::invalid_partitions, "Number of partitions must be larger than 0.");
    }
    if (topic.replication_factor < 1) {
        return Status::failure(ErrorCode::invalid_replication_factor, "Replication factor must be larger than 0.");
    }
    if (topic.replication_factor > static_cast<std::int64_t>(cluster.brokers.size()))
        return too_few_brokers(topic.replication_factor, cluster.brokers.size());
    return {};
}

}  // namespace

Status check_topic_name(std::string_view name) {
    if (auto error = validate_topic_name(name)) return Status::failure(ErrorCode::invalid_topic_exception, *error);
    return {};
}

Status check_topic_configs(const config::ConfigMap& configs, config::ConfigMap* normalized) {
    if (auto error = config::validate_topic_configs(configs, normalized))
        return Status::failure(ErrorCode::invalid_config, *error);
    return {};
}

Status check_replica_list(const MetadataSnapshot& cluster, const std::vector<std::int32_t>& replicas,
                          std::int32_t partition) {
    if (replicas.empty()) {
        return Status::failure(ErrorCode::invalid_replica_assignment,
                               "Partition " + std::to_string(partition) + " has an empty replica assignment.");
    }
    std::set<std::int32_t> unique(replicas.begin(), replicas.end());
    if (unique.size() != replicas.size()) {
        return Status::failure(ErrorCode::invalid_replica_assignment,
                               "Duplicate brokers not allowed in replica assignment: " + join_ids(replicas) +
                                   " for partition id " + std::to_string(partition) + ".");
    }
    std::vector<std::int32_t> unknown;
    for (std::int32_t r : replicas)
        if (cluster.broker(r) == nullptr) unknown.push_back(r);
    if (!unknown.empty()) {
        return Status::failure(ErrorCode::invalid_replica_assignment,
                               "Unknown broker(s) in replica assignment: " + join_ids(unknown) + ".");
    }
    return {};
}

Status validate_new_topic(const MetadataSnapshot& cluster, const NewTopic& topic,
                          config::ConfigMap* normalized_configs) {
    if (auto s = check_topic_name(topic.name); !s.ok()) return s;
    if (cluster.topic(topic.name)) {
        return Status::failure(ErrorCode::topic_already_exists, "Topic '" + topic.name + "' already exists.");
    }
    std::string colliding;
    for (const auto& [name, t] : cluster.topics_by_name)
        if (topic_names_collide(name, topic.name)) colliding += (colliding.empty() ? "" : ", ") + name;
    if (!colliding.empty()) {
        return Status::failure(ErrorCode::invalid_topic_exception,
                               "Topic '" + topic.name + "' collides with existing topics: " + colliding);
    }
    auto layout = topic.assignments.empty() ? check_counts(cluster, topic) : check_explicit_assignment(cluster, topic);
    if (!layout.ok()) return layout;
    return check_topic_configs(topic.configs, normalized_configs);
}

Status validate_new_partitions(const MetadataSnapshot& cluster, std::string_view topic, std::int32_t new_total,
                               const std::vector<std::vector<std::int32_t>>& assignments) {
    TopicPtr t = cluster.topic(topic);
    if (!t) return unknown_topic(topic);
    const auto existing = static_cast<std::int32_t>(t->partitions.size());
    if (new_total < existing) {
        return Status::failure(ErrorCode::invalid_partitions, "Topic currently has " + std::to_string(existing) +
                                                                  " partitions, which is higher than the requested " +
                                                                  std::to_string(new_total) + ".");
    }
    if (new_total == existing) {
        return Status::failure(ErrorCode::invalid_partitions,
                               "Topic already has " + std::to_string(existing) + " partitions.");
    }
    const std::int32_t to_add = new_total - existing;
    const std::size_t replication = t->partitions.empty() ? 1 : t->partitions.front().replicas.size();
    if (assignments.empty()) {
        if (replication > cluster.brokers.size())
            return too_few_brokers(static_cast<std::int64_t>(replication), cluster.brokers.size());
        return {};
    }
    if (static_cast<std::int32_t>(assignments.size()) != to_add) {
        return Status::failure(ErrorCode::invalid_replica_assignment,
                               "Increasing the number of partitions by " + std::to_string(to_add) + " but " +
                                   std::to_string(assignments.size()) + " assignments provided.");
    }
    for (std::size_t i = 0; i < assignments.size(); ++i) {
        const std::int32_t partition = existing + static_cast<std::int32_t>(i);
        if (auto s = check_replica_list(cluster, assignments[i], partition); !s.ok()) return s;
        if (assignments[i].size() != replication) {
            return Status::failure(ErrorCode::invalid_replica_assignment,
                                   "Inconsistent replication factor between partitions, partition 0 has " +
                                       std::to_string(replication) + " while partition " + std::to_string(partition) +
                                       " has " + std::to_string(assignments[i].size()) + ".");
        }
    }
    return {};
}

Status validate_topic_config_change(const MetadataSnapshot& cluster, std::string_view topic,
                                    const config::ConfigMap& configs, config::ConfigMap* normalized) {
    if (!cluster.topic(topic)) return unknown_topic(topic);
    return check_topic_configs(configs, normalized);
}

Status validate_topic_deletion(const MetadataSnapshot& cluster, std::string_view topic) {
    TopicPtr t = cluster.topic(topic);
    if (!t) {
        return Status::failure(ErrorCode::unknown_topic_or_partition,
                               "This server does not host this topic-partition.");
    }
    if (t->internal) {
        return Status::failure(ErrorCode::invalid_request,
                               "Topic " + t->name +
                                   " is a kafka internal topic and is not allowed to be marked for "
                                   "deletion.");
    }
    return {};
}

}  // namespace weir::metadata
