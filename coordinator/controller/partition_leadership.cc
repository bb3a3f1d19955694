#include "coordinator/controller/partition_leadership.h"

#include <algorithm>

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

}  // namespace weir::controller
