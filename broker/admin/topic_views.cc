#include "broker/admin/topic_views.h"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include "broker/partitions/replica_manager.h"
#include "broker/storage/log_manager.h"

namespace weir::admin {

namespace json = boost::json;

namespace {

json::array ids(const std::vector<std::int32_t>& v) { return json::array(v.begin(), v.end()); }

json::object partition_json(const AdminContext& context, const std::string& topic, const metadata::PartitionInfo& p) {
    json::object out;
    out["partition"] = p.partition;
    out["leader"] = p.leader;
    out["leader_epoch"] = p.leader_epoch;
    out["replicas"] = ids(p.replicas);
    out["isr"] = ids(p.isr);
    out["offline_replicas"] = ids(p.offline_replicas);
    const TopicPartition tp{topic, p.partition};
    auto hosted = context.broker.partitions.get(tp);
    auto log = context.logs.get(tp);
    if (hosted && log) {
        out["log_start_offset"] = hosted->log_start_offset();
        out["log_end_offset"] = hosted->log_end_offset();
        out["high_watermark"] = hosted->high_watermark();
        out["size_bytes"] = log->size_bytes();
    } else {
        for (const char* key : {"log_start_offset", "log_end_offset", "high_watermark", "size_bytes"})
            out[key] = nullptr;
    }
    return out;
}

}  // namespace

json::value topics_json(const AdminContext& context) {
    auto snapshot = context.broker.metadata.snapshot();
    json::array out;
    for (const auto& [name, topic] : snapshot->topics_by_name) {
        json::object t;
        t["name"] = name;
        t["id"] = topic->id.to_string();
        t["internal"] = topic->internal;
        t["partitions"] = topic->partitions.size();
        t["replication_factor"] = topic->partitions.empty() ? 0 : topic->partitions.front().replicas.size();
        out.push_back(std::move(t));
    }
    return out;
}

std::optional<json::value> topic_json(const AdminContext& context, std::string_view name) {
    auto topic = context.broker.metadata.snapshot()->topic(name);
    if (!topic) return std::nullopt;
    json::object out;
    out["name"] = topic->name;
    out["id"] = topic->id.to_string();
    out["internal"] = topic->internal;
    // Overrides only, as kafka-topics.sh --describe lists them.
    json::object configs;
    for (const auto& [key, value] : topic->configs) configs[key] = value;
    out["configs"] = std::move(configs);
    json::array partitions;
    for (const auto& p : topic->partitions) partitions.push_back(partition_json(context, topic->name, p));
    out["partitions"] = std::move(partitions);
    return out;
}

}  // namespace weir::admin
