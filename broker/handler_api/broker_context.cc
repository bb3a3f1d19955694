#include "broker/handler_api/broker_context.h"

#include "broker/partitions/replica_manager.h"

namespace weir::handlers {

config::TopicConfig BrokerContext::topic_config(std::string_view topic) const {
    auto snapshot = metadata.snapshot();
    auto info = snapshot->topic(topic);
    return config::resolve_topic_config(config, info ? info->configs : config::ConfigMap{},
                                        snapshot->dynamic_broker_configs(config.broker_id));
}

std::optional<std::string> BrokerContext::topic_name_for_id(const Uuid& id) const {
    auto info = metadata.topic_by_id(id);
    if (!info) return std::nullopt;
    return info->name;
}

BrokerContext::LocalPartition BrokerContext::local_partition(const metadata::MetadataSnapshot& snapshot,
                                                             const TopicPartition& tp) const {
    if (auto hosted = partitions.get(tp)) return {std::move(hosted), ErrorCode::none};
    return {nullptr, snapshot.contains(tp) ? ErrorCode::not_leader_or_follower : ErrorCode::unknown_topic_or_partition};
}

}  // namespace weir::handlers
