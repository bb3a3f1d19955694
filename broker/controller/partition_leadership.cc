#include "broker/controller/partition_leadership.h"

#include <algorithm>
#include <map>

namespace weir::controller {
namespace {

bool contains(const std::vector<std::int32_t>& v, std::int32_t id) {
    return std::find(v.begin(), v.end(), id) != v.end();
}

}  // namespace

std::optional<zk::LeaderAndIsr> next_partition_state(const PartitionView& view) {
    auto is_live = [&](std::int32_t id) { return view.live.contains(id); };
    if (!view.current) {
        zk::LeaderAndIsr s;
        for (auto r : view.replicas)
            if (is_live(r)) s.isr.push_back(r);
        if (s.isr.empty()) return std::nullopt;
        s.leader = s.isr.front();
        s.leader_epoch = 0;
        s.controller_epoch = view.controller_epoch;
        return s;
    }
    const zk::LeaderAndIsr& cur = *view.current;
    std::vector<std::int32_t> live_isr;
    for (auto r : cur.isr)
        if (is_live(r)) live_isr.push_back(r);

    zk::LeaderAndIsr next = cur;
    next.controller_epoch = view.controller_epoch;
    next.leader_epoch = cur.leader_epoch + 1;
    if (cur.leader >= 0 && is_live(cur.leader)) {
        if (live_isr.size() == cur.isr.size()) return std::nullopt;
        next.isr = live_isr;
        return next;
    }
    for (auto r : view.replicas) {
        if (contains(live_isr, r)) {
            next.leader = r;
            next.isr = live_isr;
            return next;
        }
    }
    if (view.unclean_election) {
        for (auto r : view.replicas) {
            if (is_live(r)) {
                next.leader = r;
                next.isr = {r};
                return next;
            }
        }
    }
    // Offline. Already recorded as such: nothing to write.
    if (cur.leader < 0) return std::nullopt;
    next.leader = -1;
    return next;
}

std::vector<TopicPartition> preferred_leader_elections(const metadata::MetadataSnapshot& cluster,
                                                       double imbalance_percentage) {
    struct Preferred {
        int total = 0;
        int misplaced = 0;
        std::vector<TopicPartition> electable;  // misplaced, and in sync
    };
    std::map<std::int32_t, Preferred> by_broker;
    for (const auto& [name, topic] : cluster.topics_by_name) {
        for (const auto& p : topic->partitions) {
            if (p.replicas.empty()) continue;
            const auto preferred = p.replicas.front();
            if (!cluster.broker(preferred)) continue;
            auto& b = by_broker[preferred];
            ++b.total;
            if (p.leader == preferred) continue;
            ++b.misplaced;
            if (contains(p.isr, preferred)) b.electable.push_back({topic->name, p.partition});
        }
    }
    std::vector<TopicPartition> out;
    for (auto& [broker, b] : by_broker) {
        const double ratio = 100.0 * b.misplaced / b.total;
        if (ratio > imbalance_percentage) out.insert(out.end(), b.electable.begin(), b.electable.end());
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::optional<zk::LeaderAndIsr> preferred_leader_state(const PartitionView& view) {
    if (!view.current || view.replicas.empty()) return std::nullopt;
    const auto preferred = view.replicas.front();
    const auto& cur = *view.current;
    if (cur.leader == preferred || !view.live.contains(preferred) || !contains(cur.isr, preferred)) return std::nullopt;
    zk::LeaderAndIsr next = cur;
    next.leader = preferred;
    next.leader_epoch = cur.leader_epoch + 1;
    next.controller_epoch = view.controller_epoch;
    return next;
}

std::vector<std::string> leaderless_first(const std::set<std::string>& topics,
                                          const metadata::MetadataSnapshot& cluster,
                                          const std::set<std::int32_t>& live) {
    std::vector<std::string> order;
    std::vector<std::string> rest;
    for (const auto& name : topics) {
        const auto topic = cluster.topic(name);
        const bool leaderless = !topic || std::any_of(topic->partitions.begin(), topic->partitions.end(),
                                                      [&](const auto& p) { return !live.contains(p.leader); });
        (leaderless ? order : rest).push_back(name);
    }
    order.insert(order.end(), rest.begin(), rest.end());
    return order;
}

}  // namespace weir::controller
