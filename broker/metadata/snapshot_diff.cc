#include "broker/metadata/snapshot_diff.h"

#include <set>

namespace weir::metadata {
namespace {

MetadataChange topic_change(MetadataChange::Kind kind, const TopicPtr& before, const TopicPtr& after) {
    const TopicPtr& any = after ? after : before;
    return {kind, any->name, any->id, before, after, std::nullopt};
}

bool same_states(const TopicInfo& a, const TopicInfo& b) { return a.partitions == b.partitions; }

}  // namespace

std::vector<MetadataChange> diff_snapshots(const MetadataSnapshot& before, const MetadataSnapshot& after) {
    using Kind = MetadataChange::Kind;
    std::vector<MetadataChange> out;
    if (before.brokers != after.brokers || before.controller_id != after.controller_id) {
        MetadataChange c;
        c.kind = Kind::brokers_changed;
        out.push_back(c);
    }
    for (const auto& [name, old] : before.topics_by_name) {
        auto now = after.topic(name);
        if (!now || now->id != old->id) out.push_back(topic_change(Kind::topic_deleted, old, nullptr));
    }
    for (const auto& [name, now] : after.topics_by_name) {
        auto old = before.topic(name);
        if (!old || old->id != now->id) {
            out.push_back(topic_change(Kind::topic_created, nullptr, now));
            continue;
        }
        if (old == now) continue;
        if (now->partitions.size() > old->partitions.size()) {
            out.push_back(topic_change(Kind::partitions_added, old, now));
        } else if (!same_states(*old, *now)) {
            out.push_back(topic_change(Kind::partition_state_changed, old, now));
        }
        if (old->configs != now->configs) out.push_back(topic_change(Kind::topic_configs_changed, old, now));
    }
    std::set<std::int32_t> ids;
    for (const auto& [id, c] : before.broker_configs) ids.insert(id);
    for (const auto& [id, c] : after.broker_configs) ids.insert(id);
    for (std::int32_t id : ids) {
        auto a = before.broker_configs.find(id);
        auto b = after.broker_configs.find(id);
        const bool had = a != before.broker_configs.end();
        const bool has = b != after.broker_configs.end();
        if (had != has || (had && a->second != b->second)) {
            MetadataChange c;
            c.kind = Kind::broker_configs_changed;
            c.broker_id = id;
            out.push_back(c);
        }
    }
    if (before.default_broker_configs != after.default_broker_configs) {
        MetadataChange c;
        c.kind = Kind::broker_configs_changed;
        out.push_back(c);
    }
    return out;
}

}  // namespace weir::metadata
