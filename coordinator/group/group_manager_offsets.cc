// Offsets, administration and loading: the group side of Kafka's
// GroupMetadataManager and the admin APIs of its GroupCoordinator.
#include <fmt/format.h>

#include <algorithm>

#include "coordinator/group/group_manager.h"

namespace weir::coordinator {

ErrorCode GroupManager::validate_offset_commit(TimeMs now, const std::string& group_id, const std::string& member_id,
                                               const std::optional<std::string>& instance_id, std::int32_t generation) {
    Group* g = find_mut(group_id);
    if (!g) {
        // Generation -1: a consumer not using group management (assign()), or
        // an admin client; it may commit for a group nobody is in.
        if (generation < 0) {
            create_group(group_id, now);
            return ErrorCode::none;
        }
        return ErrorCode::illegal_generation;
    }
    if (g->is(GroupState::dead)) return ErrorCode::coordinator_not_available;
    if (generation < 0 && g->is(GroupState::empty)) return ErrorCode::none;
    if (generation >= 0 || !member_id.empty() || instance_id) {
        if (auto error = validate_current_member(*g, member_id, instance_id)) return *error;
        if (generation != g->generation_id) return ErrorCode::illegal_generation;
    } else if (!g->is(GroupState::empty)) {
        return ErrorCode::unknown_member_id;  // only members commit for a group with members
    }
    switch (g->state()) {
        case GroupState::empty:
            return ErrorCode::none;
        case GroupState::stable:
        case GroupState::preparing_rebalance:
            // Commits are allowed while rebalancing: the heartbeat response
            // tells the member about the rebalance.
            if (Member* m = g->find(member_id)) schedule_heartbeat(now, *g, *m, m->session_timeout_ms);
            return ErrorCode::none;
        case GroupState::completing_rebalance:
            return ErrorCode::rebalance_in_progress;
        case GroupState::dead:
            return ErrorCode::coordinator_not_available;
    }
    return ErrorCode::none;
}

ErrorCode GroupManager::validate_txn_offset_commit(TimeMs now, const std::string& group_id,
                                                   const std::string& member_id,
                                                   const std::optional<std::string>& instance_id,
                                                   std::int32_t generation) {
    Group* g = find_mut(group_id);
    if (!g) g = &create_group(group_id, now);
    if (g->is(GroupState::dead)) return ErrorCode::coordinator_not_available;
    if (generation >= 0 || !member_id.empty() || instance_id) {
        if (auto error = validate_current_member(*g, member_id, instance_id)) return *error;
        if (generation != g->generation_id) return ErrorCode::illegal_generation;
    }
    return ErrorCode::none;
}

void GroupManager::add_pending_txn_offsets(const std::string& group_id, std::int64_t producer_id,
                                           const std::map<TopicPartition, OffsetAndMetadata>& offsets) {
    Group* g = find_mut(group_id);
    if (!g || g->is(GroupState::dead)) return;
    g->add_pending_txn_offsets(producer_id, offsets);
}

void GroupManager::complete_txn_offsets(std::int64_t producer_id, bool commit,
                                        const std::function<bool(const std::string&)>& selected) {
    for (auto& [id, g] : groups_)
        if (g->has_pending_txn_offsets(producer_id) && selected(id)) g->complete_txn_offsets(producer_id, commit);
}

void GroupManager::prepare_offset_commit(const std::string& group_id, const std::vector<TopicPartition>& tps) {
    if (Group* g = find_mut(group_id)) g->prepare_offset_commit(tps);
}

void GroupManager::complete_offset_commit(const std::string& group_id,
                                          const std::vector<std::pair<TopicPartition, OffsetAndMetadata>>& offsets,
                                          bool success) {
    Group* g = find_mut(group_id);
    if (!g || g->is(GroupState::dead)) return;
    for (const auto& [tp, value] : offsets) g->complete_offset_commit(tp, success ? &value : nullptr);
}

std::vector<FetchedOffset> GroupManager::fetch_offsets(const std::string& group_id, bool require_stable,
                                                       const std::optional<std::vector<TopicPartition>>& tps) const {
    std::vector<FetchedOffset> out;
    const Group* g = find(group_id);
    if (!g || g->is(GroupState::dead)) {
        if (tps)
            for (const auto& tp : *tps) out.push_back({tp, -1, -1, "", ErrorCode::none});
        return out;
    }
    std::vector<TopicPartition> wanted;
    if (tps) {
        wanted = *tps;
    } else {
        for (const auto& [tp, o] : g->offsets()) wanted.push_back(tp);
    }
    for (const auto& tp : wanted) {
        if (require_stable && g->has_pending_offset_commit(tp)) {
            out.push_back({tp, -1, -1, "", ErrorCode::unstable_offset_commit});
        } else if (const auto* o = g->offset(tp)) {
            out.push_back({tp, o->offset, o->leader_epoch, o->metadata, ErrorCode::none});
        } else {
            out.push_back({tp, -1, -1, "", ErrorCode::none});
        }
    }
    return out;
}

GroupSummary GroupManager::describe(const std::string& group_id) const {
    if (const Group* g = find(group_id)) return g->summary();
    GroupSummary dead;
    dead.state = std::string(state_name(GroupState::dead));
    return dead;
}

std::vector<GroupOverview> GroupManager::list() const {
    std::vector<GroupOverview> out;
    out.reserve(groups_.size());
    for (const auto& [id, g] : groups_) out.push_back(g->overview());
    return out;
}

ErrorCode GroupManager::delete_group(TimeMs now, const std::string& group_id, Tombstones& tombstones) {
    Group* g = find_mut(group_id);
    if (!g || g->is(GroupState::dead)) return ErrorCode::group_id_not_found;
    if (!g->is(GroupState::empty)) return ErrorCode::non_empty_group;
    tombstones.group_id = group_id;
    tombstones.offsets = g->remove_all_offsets();
    // Groups that only ever stored offsets (generation 0) have no group record.
    tombstones.group_tombstone = g->generation_id > 0;
    g->transition_to(GroupState::dead, now);
    remove_group(group_id);
    return ErrorCode::none;
}

GroupManager::OffsetDeleteResult GroupManager::delete_offsets(TimeMs now, const std::string& group_id,
                                                              const std::vector<TopicPartition>& tps) {
    OffsetDeleteResult result;
    Group* g = find_mut(group_id);
    if (!g || g->is(GroupState::dead)) {
        result.error = ErrorCode::group_id_not_found;
        return result;
    }
    std::vector<TopicPartition> eligible;
    if (g->is(GroupState::empty)) {
        eligible = tps;
        for (const auto& tp : tps) result.partitions.emplace_back(tp, ErrorCode::none);
    } else if (g->is_consumer_group()) {
        for (const auto& tp : tps) {
            if (g->is_subscribed_to_topic(tp.topic)) {
                result.partitions.emplace_back(tp, ErrorCode::group_subscribed_to_topic);
            } else {
                eligible.push_back(tp);
                result.partitions.emplace_back(tp, ErrorCode::none);
            }
        }
    } else {
        result.error = ErrorCode::non_empty_group;
        return result;
    }
    result.tombstones.group_id = group_id;
    result.tombstones.offsets = g->remove_offsets(eligible);
    if (g->is(GroupState::empty) && !g->has_offsets()) {
        result.tombstones.group_tombstone = g->generation_id > 0;
        g->transition_to(GroupState::dead, now);
        remove_group(group_id);
    }
    return result;
}

std::vector<Tombstones> GroupManager::expire_offsets(TimeMs now, std::int64_t retention_ms) {
    std::vector<Tombstones> out;
    std::vector<std::string> dead;
    for (auto& [id, g] : groups_) {
        Tombstones t;
        t.group_id = id;
        t.offsets = g->remove_expired_offsets(now, retention_ms);
        if (g->is(GroupState::empty) && !g->has_offsets() && g->pending_member_count() == 0) {
            t.group_tombstone = g->generation_id > 0;
            g->transition_to(GroupState::dead, now);
            dead.push_back(id);
        }
        if (!t.offsets.empty() || t.group_tombstone) out.push_back(std::move(t));
    }
    for (const auto& id : dead) remove_group(id);
    return out;
}

std::vector<Tombstones> GroupManager::remove_topic_offsets(TimeMs now, const std::string& topic) {
    std::vector<Tombstones> out;
    std::vector<std::string> dead;
    for (auto& [id, g] : groups_) {
        std::vector<TopicPartition> tps;
        for (const auto& [tp, o] : g->offsets())
            if (tp.topic == topic) tps.push_back(tp);
        if (tps.empty()) continue;
        Tombstones t;
        t.group_id = id;
        t.offsets = g->remove_offsets(tps);
        if (g->is(GroupState::empty) && !g->has_offsets()) {
            t.group_tombstone = g->generation_id > 0;
            g->transition_to(GroupState::dead, now);
            dead.push_back(id);
        }
        out.push_back(std::move(t));
    }
    for (const auto& id : dead) remove_group(id);
    return out;
}

void GroupManager::load_group(
    TimeMs now, const std::string& group_id, const msg::GroupMetadataValue* value,
    std::map<TopicPartition, OffsetAndMetadata> offsets, Effects& out,
    const std::map<std::int64_t, std::map<TopicPartition, OffsetAndMetadata>>& pending_txn_offsets) {
    const bool has_members = value && !value->members.empty();
    auto& slot = groups_[group_id];
    slot = std::make_unique<Group>(group_id, has_members ? GroupState::stable : GroupState::empty, now);
    Group& g = *slot;
    if (value) {
        g.generation_id = value->generation;
        if (!value->protocol_type.empty()) g.protocol_type = value->protocol_type;
        g.protocol_name = value->protocol;
        g.set_current_state_timestamp(
            value->current_state_timestamp >= 0 ? std::optional<TimeMs>(value->current_state_timestamp) : std::nullopt);
        for (const auto& mm : value->members) {
            Member m;
            m.member_id = mm.member_id;
            m.group_instance_id = mm.group_instance_id;
            m.client_id = mm.client_id;
            m.client_host = mm.client_host;
            m.rebalance_timeout_ms = mm.rebalance_timeout;
            m.session_timeout_ms = mm.session_timeout;
            m.protocol_type = value->protocol_type;
            m.protocols = {{value->protocol.value_or(""), mm.subscription}};
            m.assignment = mm.assignment;
            g.add(std::move(m), std::nullopt);
        }
        g.set_leader(has_members ? value->leader : std::nullopt);
        g.refresh_subscribed_topics();
    }
    for (auto& [tp, o] : offsets) g.put_offset(tp, std::move(o));
    for (const auto& [producer_id, pending] : pending_txn_offsets) g.add_pending_txn_offsets(producer_id, pending);
    // Members loaded from the log must show they are alive within a session.
    for (auto& [id, m] : g.members()) schedule_heartbeat(now, g, m, m.session_timeout_ms);
    if (g.size() > static_cast<std::size_t>(config_.max_size))
        prepare_rebalance(now, g,
                          fmt::format("Freshly-loaded group is over capacity ({}). Rebalancing in order to give a "
                                      "chance for consumers to commit offsets",
                                      config_.max_size),
                          out);
}

void GroupManager::unload_groups(const std::function<bool(const std::string&)>& selected, Effects& out) {
    std::vector<std::string> gone;
    for (auto& [id, g] : groups_) {
        if (!selected(id)) continue;
        for (auto& [member_id, m] : g->members()) {
            answer_join(g->take_join(m), JoinResult::failure(member_id, ErrorCode::not_coordinator), out);
            answer_sync(g->take_sync(m), SyncResult::failure(ErrorCode::not_coordinator), out);
        }
        gone.push_back(id);
    }
    for (const auto& id : gone) remove_group(id);
    std::erase_if(stores_, [&](const auto& entry) { return selected(entry.second.group_id); });
}

void GroupManager::abort_all(ErrorCode error, Effects& out) {
    for (auto& [id, g] : groups_) {
        for (auto& [member_id, m] : g->members()) {
            answer_join(g->take_join(m), JoinResult::failure(member_id, error), out);
            answer_sync(g->take_sync(m), SyncResult::failure(error), out);
        }
    }
}

}  // namespace weir::coordinator
