// Membership: JoinGroup, SyncGroup, Heartbeat, LeaveGroup, rebalances and
// the timers behind them, after Kafka's GroupCoordinator.
#include "coordinator/group/group_manager.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace weir::coordinator {

namespace {

// KIP-800: what the client said, as Kafka prints it when it said nothing.
std::string client_reason(const std::optional<std::string>& reason) { return reason.value_or("not provided"); }

std::string instance_part(const std::optional<std::string>& instance_id) {
    return instance_id ? " with group instance id " + *instance_id : std::string();
}

std::string leave_reason(const std::string& member_id, const std::optional<std::string>& reason) {
    return fmt::format("Removing member {} on LeaveGroup; client reason: {}", member_id, client_reason(reason));
}

void log_leave(const Group& g, const std::string& member_id, const std::optional<std::string>& reason, Effects& out) {
    out.logged.push_back({g.id(), fmt::format("Member {} has left group {} through explicit `LeaveGroup`; client "
                                              "reason: {}",
                                              member_id, g.id(), client_reason(reason))});
}

}  // namespace

GroupManager::GroupManager(GroupConfig config, MemberIdGenerator ids) : config_(config), ids_(std::move(ids)) {}

const Group* GroupManager::find(const std::string& group_id) const {
    auto it = groups_.find(group_id);
    return it == groups_.end() ? nullptr : it->second.get();
}

Group* GroupManager::find_mut(const std::string& group_id) {
    auto it = groups_.find(group_id);
    return it == groups_.end() ? nullptr : it->second.get();
}

Group& GroupManager::create_group(const std::string& group_id, TimeMs now) {
    auto& slot = groups_[group_id];
    slot = std::make_unique<Group>(group_id, GroupState::empty, now);
    return *slot;
}

void GroupManager::remove_group(const std::string& group_id) { groups_.erase(group_id); }

void GroupManager::answer_join(std::optional<RequestId> id, JoinResult result, Effects& out) {
    if (id) out.joins.emplace_back(*id, std::move(result));
}

void GroupManager::answer_sync(std::optional<RequestId> id, SyncResult result, Effects& out) {
    if (id) out.syncs.emplace_back(*id, std::move(result));
}

void GroupManager::complete_join(Group& g, Member& m, JoinResult result, Effects& out) {
    answer_join(g.take_join(m), std::move(result), out);
}

// ---------------------------------------------------------------- JoinGroup

namespace {

bool accept_joining_member(const Group& g, const std::string& member_id, std::int32_t max_size) {
    const auto max = static_cast<std::size_t>(max_size);
    switch (g.state()) {
        case GroupState::empty:
        case GroupState::dead:
            return true;
        case GroupState::preparing_rebalance: {
            // Counting members that rejoined lets the last ones to rejoin be
            // shed when max.size was lowered.
            const auto* m = g.find(member_id);
            return (m && m->is_awaiting_join()) || g.num_awaiting_join() < max;
        }
        case GroupState::completing_rebalance:
        case GroupState::stable:
            return g.has(member_id) || g.size() < max;
    }
    return false;
}

}  // namespace

void GroupManager::join(TimeMs now, RequestId id, JoinRequest req, Effects& out) {
    if (req.session_timeout_ms < config_.min_session_timeout_ms ||
        req.session_timeout_ms > config_.max_session_timeout_ms) {
        answer_join(id, JoinResult::failure(req.member_id, ErrorCode::invalid_session_timeout), out);
        return;
    }
    const bool unknown_member = req.member_id.empty();
    Group* g = find_mut(req.group_id);
    if (!g) {
        // Only a new member may create the group.
        if (!unknown_member) {
            answer_join(id, JoinResult::failure(req.member_id, ErrorCode::unknown_member_id), out);
            return;
        }
        g = &create_group(req.group_id, now);
    }
    if (!accept_joining_member(*g, req.member_id, config_.max_size)) {
        if (auto removed = g->remove(req.member_id))
            answer_sync(removed->awaiting_sync, SyncResult::failure(ErrorCode::unknown_member_id), out);
        answer_join(id, JoinResult::failure("", ErrorCode::group_max_size_reached), out);
    } else if (unknown_member) {
        do_new_member_join(now, *g, id, req, out);
    } else {
        do_current_member_join(now, *g, id, req, out);
    }
    if (g->is(GroupState::preparing_rebalance)) try_complete_join(now, *g, out);
}

void GroupManager::do_new_member_join(TimeMs now, Group& g, RequestId id, JoinRequest& req, Effects& out) {
    if (g.is(GroupState::dead)) {
        answer_join(id, JoinResult::failure("", ErrorCode::coordinator_not_available), out);
        return;
    }
    if (!g.supports_protocols(req.protocol_type, req.protocols)) {
        answer_join(id, JoinResult::failure("", ErrorCode::inconsistent_group_protocol), out);
        return;
    }
    auto new_id = ids_(req.group_instance_id ? *req.group_instance_id : req.client_id);
    if (req.group_instance_id) {
        if (auto old_id = g.static_member_id(*req.group_instance_id))
            update_static_member_and_rebalance(now, g, id, req, *old_id, std::move(new_id), out);
        else
            add_member_and_rebalance(now, g, id, req, std::move(new_id), out);
    } else if (req.require_known_member_id) {
        // KIP-394: hand out the id first so a client that never comes back
        // does not hold up the rebalance as a member.
        g.add_pending_member(new_id);
        timers_.emplace(now + req.session_timeout_ms, TimerEntry{TimerKind::pending_member, g.id(), new_id, 0});
        answer_join(id, JoinResult::failure(new_id, ErrorCode::member_id_required), out);
    } else {
        add_member_and_rebalance(now, g, id, req, std::move(new_id), out);
    }
}

std::optional<ErrorCode> GroupManager::validate_current_member(const Group& g, const std::string& member_id,
                                                               const std::optional<std::string>& instance_id) const {
    if (instance_id) {
        auto current = g.static_member_id(*instance_id);
        if (!current) return ErrorCode::unknown_member_id;
        if (*current != member_id) return ErrorCode::fenced_instance_id;
    }
    if (!g.has(member_id)) return ErrorCode::unknown_member_id;
    return std::nullopt;
}

JoinResult GroupManager::current_generation_result(const Group& g, const std::string& member_id,
                                                   bool with_members) const {
    JoinResult r;
    r.generation_id = g.generation_id;
    r.protocol_type = g.protocol_type;
    r.protocol_name = g.protocol_name;
    r.leader = g.leader().value_or("");
    r.member_id = member_id;
    if (with_members) r.members = g.current_member_metadata();
    return r;
}

void GroupManager::do_current_member_join(TimeMs now, Group& g, RequestId id, JoinRequest& req, Effects& out) {
    if (g.is(GroupState::dead)) {
        answer_join(id, JoinResult::failure(req.member_id, ErrorCode::coordinator_not_available), out);
        return;
    }
    if (!g.supports_protocols(req.protocol_type, req.protocols)) {
        answer_join(id, JoinResult::failure(req.member_id, ErrorCode::inconsistent_group_protocol), out);
        return;
    }
    if (g.is_pending_member(req.member_id)) {
        // Pending members got their id as dynamic members.
        if (req.group_instance_id) {
            answer_join(id, JoinResult::failure(req.member_id, ErrorCode::unknown_member_id), out);
            return;
        }
        add_member_and_rebalance(now, g, id, req, req.member_id, out);
        return;
    }
    if (auto error = validate_current_member(g, req.member_id, req.group_instance_id)) {
        answer_join(id, JoinResult::failure(req.member_id, *error), out);
        return;
    }
    Member& m = *g.find(req.member_id);
    switch (g.state()) {
        case GroupState::preparing_rebalance:
            update_member_and_rebalance(now, g, m, id, req, RejoinKind::joining, out);
            break;
        case GroupState::completing_rebalance:
            // Same metadata: the member probably lost the JoinGroup response.
            if (m.matches(req.protocols))
                answer_join(id, current_generation_result(g, m.member_id, g.is_leader(m.member_id)), out);
            else
                update_member_and_rebalance(now, g, m, id, req, RejoinKind::metadata_changed, out);
            break;
        case GroupState::stable:
            // A leader's JoinGroup forces a rebalance: it may have seen changes
            // (new topic partitions) the member metadata does not show.
            if (g.is_leader(m.member_id))
                update_member_and_rebalance(now, g, m, id, req, RejoinKind::leader, out);
            else if (!m.matches(req.protocols))
                update_member_and_rebalance(now, g, m, id, req, RejoinKind::metadata_changed, out);
            else
                answer_join(id, current_generation_result(g, m.member_id, false), out);
            break;
        case GroupState::empty:
        case GroupState::dead:
            answer_join(id, JoinResult::failure(req.member_id, ErrorCode::unknown_member_id), out);
            break;
    }
}

void GroupManager::add_member_and_rebalance(TimeMs now, Group& g, RequestId id, JoinRequest& req, std::string member_id,
                                            Effects& out) {
    Member m;
    m.member_id = std::move(member_id);
    m.group_instance_id = req.group_instance_id;
    m.client_id = req.client_id;
    m.client_host = req.client_host;
    m.rebalance_timeout_ms = req.rebalance_timeout_ms;
    m.session_timeout_ms = req.session_timeout_ms;
    m.protocol_type = req.protocol_type;
    m.protocols = std::move(req.protocols);
    m.is_new = true;
    // New members of a brand-new group extend the initial rebalance delay.
    if (g.is(GroupState::preparing_rebalance) && g.generation_id == 0) g.new_member_added = true;
    Member& added = g.add(std::move(m), id);
    // A new member cannot heartbeat yet; bound how long its JoinGroup may
    // hold a slot if the client went away.
    schedule_heartbeat(now, g, added, config_.new_member_join_timeout_ms);
    maybe_prepare_rebalance(now, g,
                            fmt::format("Adding new member {}{}; client reason: {}", added.member_id,
                                        instance_part(added.group_instance_id), client_reason(req.reason)),
                            out);
}

void GroupManager::update_member_and_rebalance(TimeMs now, Group& g, Member& m, RequestId id, JoinRequest& req,
                                               RejoinKind kind, Effects& out) {
    auto replaced = g.update_member(m, std::move(req.protocols), req.rebalance_timeout_ms, req.session_timeout_ms, id);
    // A retried JoinGroup supersedes the parked one; answer it so it is not left hanging.
    answer_join(replaced, JoinResult::failure(m.member_id, ErrorCode::rebalance_in_progress), out);
    // Kafka's GroupCoordinator words each case apart: operators read a
    // leader's forced rebalance differently from a changed subscription.
    std::string what;
    switch (kind) {
        case RejoinKind::joining:
            what = fmt::format("Member {} joining group", m.member_id);
            break;
        case RejoinKind::metadata_changed:
            what = fmt::format("Updating metadata for member {}", m.member_id);
            break;
        case RejoinKind::leader:
            what = fmt::format("Leader {} re-joining group", m.member_id);
            break;
    }
    maybe_prepare_rebalance(
        now, g, fmt::format("{} during {}; client reason: {}", what, state_name(g.state()), client_reason(req.reason)),
        out);
}

void GroupManager::update_static_member_and_rebalance(TimeMs now, Group& g, RequestId id, JoinRequest& req,
                                                      const std::string& old_id, std::string new_id, Effects& out) {
    auto previous_leader = g.leader();
    const auto reason = client_reason(req.reason);
    std::optional<RequestId> fenced_join;
    std::optional<RequestId> fenced_sync;
    Member& m = g.replace_static_member(*req.group_instance_id, old_id, new_id, fenced_join, fenced_sync);
    // The old instance, if still running, must stop.
    answer_join(fenced_join, JoinResult::failure(old_id, ErrorCode::fenced_instance_id), out);
    answer_sync(fenced_sync, SyncResult::failure(ErrorCode::fenced_instance_id), out);
    schedule_heartbeat(now, g, m, m.session_timeout_ms);

    StaticReplaceStore replace;
    replace.request = id;
    replace.old_member_id = old_id;
    replace.new_member_id = new_id;
    replace.instance_id = *req.group_instance_id;
    replace.previous_leader = previous_leader;
    replace.old_protocols = m.protocols;
    replace.old_rebalance_timeout_ms = m.rebalance_timeout_ms;
    replace.old_session_timeout_ms = m.session_timeout_ms;
    replace.support_skip_assignment = req.support_skip_assignment;
    g.update_member(m, std::move(req.protocols), req.rebalance_timeout_ms, req.session_timeout_ms, id);

    switch (g.state()) {
        case GroupState::stable:
            // No rebalance unless the group's protocol would change; persist the
            // new member id first so a coordinator failover keeps it.
            if (g.protocol_name == g.select_protocol()) {
                PendingStore ps;
                ps.group_id = g.id();
                ps.kind = PendingStore::Kind::static_replace;
                ps.replace = std::move(replace);
                store_group(g, std::move(ps), nullptr, out);
            } else {
                maybe_prepare_rebalance(
                    now, g,
                    fmt::format("Group's selected protocol will change because static member {} with instance id "
                                "{} joined with change of protocol; client reason: {}",
                                new_id, replace.instance_id, reason),
                    out);
            }
            break;
        case GroupState::completing_rebalance:
            // The leader may be assigning to the old member id.
            prepare_rebalance(now, g,
                              fmt::format("Updating metadata for static member {} with instance id {}; client "
                                          "reason: {}",
                                          new_id, replace.instance_id, reason),
                              out);
            break;
        case GroupState::preparing_rebalance:
            break;  // joins the rebalance under its new id
        case GroupState::empty:
        case GroupState::dead:
            complete_join(g, m, JoinResult::failure(new_id, ErrorCode::unknown_member_id), out);
            break;
    }
}

// ---------------------------------------------------------------- rebalance

void GroupManager::maybe_prepare_rebalance(TimeMs now, Group& g, const std::string& reason, Effects& out) {
    if (g.can_rebalance()) prepare_rebalance(now, g, reason, out);
}

void GroupManager::prepare_rebalance(TimeMs now, Group& g, const std::string& reason, Effects& out) {
    out.logged.push_back({g.id(), fmt::format("Preparing to rebalance group {} in state {} with old generation {} "
                                              "(reason: {})",
                                              g.id(), state_name(g.state()), g.generation_id, reason)});
    if (g.is(GroupState::completing_rebalance))
        reset_and_propagate_assignment_error(now, g, ErrorCode::rebalance_in_progress, out);
    g.clear_pending_sync_members();
    g.pending_sync.reset();
    Group::PendingJoin pending;
    if (g.is(GroupState::empty)) {
        // group.initial.rebalance.delay.ms: wait for more members of a new group.
        pending.initial = true;
        pending.delay_ms = config_.initial_rebalance_delay_ms;
        pending.remaining_ms = std::max<std::int64_t>(g.rebalance_timeout_ms() - pending.delay_ms, 0);
        pending.deadline = now + pending.delay_ms;
    } else {
        pending.deadline = now + g.rebalance_timeout_ms();
    }
    schedule_join(g, pending);
    g.transition_to(GroupState::preparing_rebalance, now);
    try_complete_join(now, g, out);
}

void GroupManager::try_complete_join(TimeMs now, Group& g, Effects& out) {
    if (g.pending_join && !g.pending_join->initial && g.has_all_members_joined()) {
        g.pending_join.reset();
        on_complete_join(now, g, out);
    }
}

void GroupManager::on_join_deadline(TimeMs now, Group& g, Effects& out) {
    auto pending = *g.pending_join;
    g.pending_join.reset();
    if (pending.initial && g.new_member_added && pending.remaining_ms != 0) {
        g.new_member_added = false;
        Group::PendingJoin next;
        next.initial = true;
        next.delay_ms = std::min<std::int64_t>(config_.initial_rebalance_delay_ms, pending.remaining_ms);
        next.remaining_ms = std::max<std::int64_t>(pending.remaining_ms - pending.delay_ms, 0);
        next.deadline = now + next.delay_ms;
        schedule_join(g, next);
        return;
    }
    on_complete_join(now, g, out);
}

void GroupManager::on_complete_join(TimeMs now, Group& g, Effects& out) {
    // Dynamic members that did not rejoin within the rebalance timeout are out;
    // static members stay (they may be restarting).
    std::vector<std::string> dropped;
    for (const auto& id : g.not_yet_rejoined_members()) {
        if (g.find(id)->is_static()) continue;
        if (auto removed = g.remove(id)) {
            answer_sync(removed->awaiting_sync, SyncResult::failure(ErrorCode::unknown_member_id), out);
            dropped.push_back(id);
        }
    }
    if (!dropped.empty())
        out.logged.push_back({g.id(), fmt::format("Group {} removed dynamic members who haven't joined: [{}]", g.id(),
                                                  fmt::join(dropped, ", "))});
    if (g.is(GroupState::dead)) return;
    if (!g.maybe_elect_new_joined_leader() && g.size() > 0) {
        // Nobody rejoined: wait another round until sessions expire.
        Group::PendingJoin pending;
        pending.deadline = now + std::max<std::int64_t>(g.rebalance_timeout_ms(), 1);
        schedule_join(g, pending);
        try_complete_join(now, g, out);
        return;
    }
    g.init_next_generation(now);
    out.logged.push_back({g.id(), g.is(GroupState::empty)
                                      ? fmt::format("Group {} with generation {} is now empty", g.id(), g.generation_id)
                                      : fmt::format("Stabilized group {} generation {} with {} members", g.id(),
                                                    g.generation_id, g.size())});
    if (g.is(GroupState::empty)) {
        const std::map<std::string, wire::Bytes> none;
        PendingStore ps;
        ps.group_id = g.id();
        store_group(g, std::move(ps), &none, out);
        return;
    }
    for (auto& [id, m] : g.members()) {
        complete_join(g, m, current_generation_result(g, id, g.is_leader(id)), out);
        schedule_heartbeat(now, g, m, m.session_timeout_ms);
        m.is_new = false;
        g.add_pending_sync_member(id);
    }
    schedule_sync(now, g);
}

void GroupManager::on_sync_deadline(TimeMs now, Group& g, Effects& out) {
    auto pending = *g.pending_sync;
    g.pending_sync.reset();
    if (pending.generation != g.generation_id) return;
    if (!g.is(GroupState::completing_rebalance) && !g.is(GroupState::stable)) return;
    if (g.has_received_sync_from_all_members()) return;
    // Members that joined but never synced are gone (KIP-814-era DelayedSync).
    std::vector<std::string> removed_ids;
    for (const auto& id : g.pending_sync_members()) {
        if (auto removed = g.remove(id)) {
            answer_join(removed->awaiting_join, JoinResult::failure("", ErrorCode::unknown_member_id), out);
            removed_ids.push_back(id);
        }
    }
    prepare_rebalance(
        now, g, fmt::format("Removing [{}] on pending sync request expiration", fmt::join(removed_ids, ", ")), out);
}

void GroupManager::on_heartbeat_expired(TimeMs now, Group& g, const std::string& member_id, Effects& out) {
    const Member* m = g.find(member_id);
    if (!m || m->survives_expiry()) return;
    out.logged.push_back(
        {g.id(), fmt::format("Member {} in group {} has failed, removing it from the group", member_id, g.id())});
    remove_member_and_update_group(now, g, member_id,
                                   fmt::format("removing member {} on heartbeat expiration", member_id), out);
}

void GroupManager::remove_member_and_update_group(TimeMs now, Group& g, const std::string& member_id,
                                                  const std::string& reason, Effects& out) {
    Member* m = g.find(member_id);
    if (!m) return;
    // A new member may time out with its JoinGroup parked: tell it to rejoin.
    complete_join(g, *m, JoinResult::failure("", ErrorCode::unknown_member_id), out);
    if (auto removed = g.remove(member_id))
        answer_sync(removed->awaiting_sync, SyncResult::failure(ErrorCode::unknown_member_id), out);
    switch (g.state()) {
        case GroupState::dead:
        case GroupState::empty:
            break;
        case GroupState::stable:
        case GroupState::completing_rebalance:
            maybe_prepare_rebalance(now, g, reason, out);
            break;
        case GroupState::preparing_rebalance:
            try_complete_join(now, g, out);
            break;
    }
}

void GroupManager::remove_pending_member_and_update_group(TimeMs now, Group& g, const std::string& member_id,
                                                          Effects& out) {
    g.remove(member_id);
    if (g.is(GroupState::preparing_rebalance)) try_complete_join(now, g, out);
}

// ---------------------------------------------------------------- SyncGroup

void GroupManager::sync(TimeMs now, RequestId id, SyncRequest req, Effects& out) {
    Group* g = find_mut(req.group_id);
    if (!g) {
        answer_sync(id, SyncResult::failure(ErrorCode::unknown_member_id), out);
        return;
    }
    std::optional<ErrorCode> error;
    if (g->is(GroupState::dead))
        error = ErrorCode::coordinator_not_available;
    else if (auto e = validate_current_member(*g, req.member_id, req.group_instance_id))
        error = e;
    else if (req.generation_id != g->generation_id)
        error = ErrorCode::illegal_generation;
    else if (req.protocol_type && g->protocol_type != req.protocol_type)
        error = ErrorCode::inconsistent_group_protocol;
    else if (req.protocol_name && g->protocol_name != req.protocol_name)
        error = ErrorCode::inconsistent_group_protocol;
    if (error) {
        answer_sync(id, SyncResult::failure(*error), out);
        return;
    }
    Member& m = *g->find(req.member_id);
    switch (g->state()) {
        case GroupState::empty:
        case GroupState::dead:
            answer_sync(id, SyncResult::failure(ErrorCode::unknown_member_id), out);
            break;
        case GroupState::preparing_rebalance:
            answer_sync(id, SyncResult::failure(ErrorCode::rebalance_in_progress), out);
            break;
        case GroupState::completing_rebalance: {
            answer_sync(g->park_sync(m, id), SyncResult::failure(ErrorCode::rebalance_in_progress), out);
            g->remove_pending_sync_member(m.member_id);
            if (g->has_received_sync_from_all_members()) g->pending_sync.reset();
            if (g->is_leader(m.member_id)) {
                out.logged.push_back(
                    {g->id(),
                     fmt::format("Assignment received from leader {} for group {} for generation {}. The "
                                 "group has {} members, {} of which are static.",
                                 m.member_id, g->id(), g->generation_id, g->size(), g->static_member_count())});
                // Members the leader left out get an empty assignment.
                std::map<std::string, wire::Bytes> assignment;
                for (auto& [member, bytes] : req.assignments) assignment[member] = std::move(bytes);
                for (const auto& [member, unused] : g->members()) assignment.try_emplace(member);
                PendingStore ps;
                ps.group_id = g->id();
                ps.kind = PendingStore::Kind::sync;
                ps.sync.generation = g->generation_id;
                ps.sync.assignment = std::move(assignment);
                auto* assignment_ptr = &ps.sync.assignment;
                auto record = g->to_record(assignment_ptr);
                auto store_id = next_store_id_++;
                stores_.emplace(store_id, std::move(ps));
                out.stores.push_back({store_id, g->id(), std::move(record)});
            }
            break;
        }
        case GroupState::stable: {
            g->remove_pending_sync_member(m.member_id);
            if (g->has_received_sync_from_all_members()) g->pending_sync.reset();
            SyncResult r;
            r.protocol_type = g->protocol_type;
            r.protocol_name = g->protocol_name;
            r.assignment = m.assignment;
            answer_sync(id, std::move(r), out);
            schedule_heartbeat(now, *g, m, m.session_timeout_ms);
            break;
        }
    }
}

void GroupManager::on_store_complete(TimeMs now, std::uint64_t store_id, ErrorCode error, Effects& out) {
    auto node = stores_.extract(store_id);
    if (node.empty()) return;
    PendingStore& ps = node.mapped();
    Group* g = find_mut(ps.group_id);
    if (!g) return;  // unloaded or deleted meanwhile; its requests were answered then
    switch (ps.kind) {
        case PendingStore::Kind::plain:
            break;
        case PendingStore::Kind::sync:
            // Another member may have joined meanwhile: only the awaited generation completes.
            if (!g->is(GroupState::completing_rebalance) || g->generation_id != ps.sync.generation) break;
            if (error != ErrorCode::none) {
                reset_and_propagate_assignment_error(now, *g, error, out);
                maybe_prepare_rebalance(
                    now, *g, fmt::format("Error {} when storing group assignment during SyncGroup", error_name(error)),
                    out);
            } else {
                set_and_propagate_assignment(now, *g, ps.sync.assignment, out);
                g->transition_to(GroupState::stable, now);
            }
            break;
        case PendingStore::Kind::static_replace: {
            const auto& r = ps.replace;
            Member* m = g->find(r.new_member_id);
            // Removed meanwhile (answered then), or swept into a rebalance it now takes part in.
            if (!m || !g->is(GroupState::stable)) break;
            if (error != ErrorCode::none) {
                // Undo the replacement: the old member id stays valid.
                auto request = g->update_member(*m, r.old_protocols, r.old_rebalance_timeout_ms,
                                                r.old_session_timeout_ms, std::nullopt);
                std::optional<RequestId> fenced_join;
                std::optional<RequestId> fenced_sync;
                Member& old =
                    g->replace_static_member(r.instance_id, r.new_member_id, r.old_member_id, fenced_join, fenced_sync);
                schedule_heartbeat(now, *g, old, old.session_timeout_ms);
                JoinResult result = current_generation_result(*g, "", false);
                result.leader = r.previous_leader.value_or("");
                result.error = error;
                answer_join(request, std::move(result), out);
                answer_sync(fenced_sync, SyncResult::failure(error), out);
            } else if (r.support_skip_assignment) {
                // JoinGroup v9+: a static leader learns it leads but must not
                // reassign (the stable group would not propagate it).
                bool leader = g->is_leader(r.new_member_id);
                JoinResult result = current_generation_result(*g, r.new_member_id, leader);
                result.skip_assignment = leader;
                complete_join(*g, *m, std::move(result), out);
            } else {
                // Older clients are told the old leader id, so a restarted
                // leader does not compute an assignment nobody would receive.
                JoinResult result = current_generation_result(*g, r.new_member_id, false);
                result.leader = r.previous_leader.value_or("");
                complete_join(*g, *m, std::move(result), out);
            }
            break;
        }
    }
}

void GroupManager::set_and_propagate_assignment(TimeMs now, Group& g,
                                                const std::map<std::string, wire::Bytes>& assignment, Effects& out) {
    for (auto& [id, m] : g.members()) {
        auto it = assignment.find(id);
        m.assignment = it == assignment.end() ? wire::Bytes{} : it->second;
    }
    propagate_assignment(now, g, ErrorCode::none, out);
}

void GroupManager::reset_and_propagate_assignment_error(TimeMs now, Group& g, ErrorCode error, Effects& out) {
    for (auto& [id, m] : g.members()) m.assignment.clear();
    propagate_assignment(now, g, error, out);
}

void GroupManager::propagate_assignment(TimeMs now, Group& g, ErrorCode error, Effects& out) {
    for (auto& [id, m] : g.members()) {
        auto request = g.take_sync(m);
        if (!request) continue;
        SyncResult r;
        r.error = error;
        if (error == ErrorCode::none) {
            r.protocol_type = g.protocol_type;
            r.protocol_name = g.protocol_name;
        }
        r.assignment = m.assignment;
        answer_sync(request, std::move(r), out);
        // Sessions restart once the assignment is out: an expiry that came
        // while the member waited for the leader was ignored.
        schedule_heartbeat(now, g, m, m.session_timeout_ms);
    }
}

// ---------------------------------------------------------------- Heartbeat, LeaveGroup

ErrorCode GroupManager::heartbeat(TimeMs now, const std::string& group_id, std::int32_t generation,
                                  const std::string& member_id, const std::optional<std::string>& instance_id) {
    Group* g = find_mut(group_id);
    if (!g) return ErrorCode::unknown_member_id;
    if (g->is(GroupState::dead)) return ErrorCode::coordinator_not_available;
    if (auto error = validate_current_member(*g, member_id, instance_id)) return *error;
    if (generation != g->generation_id) return ErrorCode::illegal_generation;
    Member& m = *g->find(member_id);
    switch (g->state()) {
        case GroupState::empty:
        case GroupState::dead:
            return ErrorCode::unknown_member_id;
        case GroupState::preparing_rebalance:
            schedule_heartbeat(now, *g, m, m.session_timeout_ms);
            return ErrorCode::rebalance_in_progress;
        case GroupState::completing_rebalance:
        case GroupState::stable:
            schedule_heartbeat(now, *g, m, m.session_timeout_ms);
            return ErrorCode::none;
    }
    return ErrorCode::none;
}

LeaveResult GroupManager::leave(TimeMs now, const std::string& group_id, const std::vector<LeaveMember>& members,
                                Effects& out) {
    LeaveResult result;
    Group* g = find_mut(group_id);
    if (!g) {
        result.members.assign(members.size(), ErrorCode::unknown_member_id);
        return result;
    }
    if (g->is(GroupState::dead)) {
        result.error = ErrorCode::coordinator_not_available;
        return result;
    }
    for (const auto& lm : members) {
        if (lm.member_id.empty()) {
            // Administrative removal by group.instance.id.
            auto current = lm.group_instance_id ? g->static_member_id(*lm.group_instance_id) : std::nullopt;
            if (current) {
                log_leave(*g, *current, lm.reason, out);
                remove_member_and_update_group(now, *g, *current, leave_reason(*current, lm.reason), out);
                result.members.push_back(ErrorCode::none);
            } else {
                result.members.push_back(ErrorCode::unknown_member_id);
            }
        } else if (g->is_pending_member(lm.member_id)) {
            remove_pending_member_and_update_group(now, *g, lm.member_id, out);
            result.members.push_back(ErrorCode::none);
        } else if (auto error = validate_current_member(*g, lm.member_id, lm.group_instance_id)) {
            result.members.push_back(*error);
        } else {
            log_leave(*g, lm.member_id, lm.reason, out);
            remove_member_and_update_group(now, *g, lm.member_id, leave_reason(lm.member_id, lm.reason), out);
            result.members.push_back(ErrorCode::none);
        }
    }
    return result;
}

// ---------------------------------------------------------------- timers

void GroupManager::schedule_heartbeat(TimeMs now, Group& g, Member& m, std::int64_t timeout_ms) {
    m.heartbeat_token = next_token_++;
    timers_.emplace(now + timeout_ms, TimerEntry{TimerKind::heartbeat, g.id(), m.member_id, m.heartbeat_token});
}

void GroupManager::schedule_join(Group& g, Group::PendingJoin pending) {
    pending.token = next_token_++;
    g.pending_join = pending;
    timers_.emplace(pending.deadline, TimerEntry{TimerKind::join, g.id(), {}, pending.token});
}

void GroupManager::schedule_sync(TimeMs now, Group& g) {
    Group::PendingSync pending{g.generation_id, now + g.rebalance_timeout_ms(), next_token_++};
    g.pending_sync = pending;
    timers_.emplace(pending.deadline, TimerEntry{TimerKind::sync, g.id(), {}, pending.token});
}

void GroupManager::store_group(Group& g, PendingStore pending, const std::map<std::string, wire::Bytes>* assignment,
                               Effects& out) {
    auto store_id = next_store_id_++;
    out.stores.push_back({store_id, g.id(), g.to_record(assignment)});
    pending.group_id = g.id();
    stores_.emplace(store_id, std::move(pending));
}

std::optional<TimeMs> GroupManager::next_deadline() const {
    if (timers_.empty()) return std::nullopt;
    return timers_.begin()->first;
}

void GroupManager::advance(TimeMs now, Effects& out) {
    // Handlers may schedule new entries, also due now (a zero initial delay).
    while (!timers_.empty() && timers_.begin()->first <= now) {
        auto node = timers_.extract(timers_.begin());
        const TimerEntry& e = node.mapped();
        Group* g = find_mut(e.group_id);
        if (!g) continue;
        switch (e.kind) {
            case TimerKind::heartbeat:
                if (const Member* m = g->find(e.member_id); m && m->heartbeat_token == e.token)
                    on_heartbeat_expired(now, *g, e.member_id, out);
                break;
            case TimerKind::pending_member:
                if (g->is_pending_member(e.member_id))
                    remove_pending_member_and_update_group(now, *g, e.member_id, out);
                break;
            case TimerKind::join:
                if (g->pending_join && g->pending_join->token == e.token) on_join_deadline(now, *g, out);
                break;
            case TimerKind::sync:
                if (g->pending_sync && g->pending_sync->token == e.token) on_sync_deadline(now, *g, out);
                break;
        }
    }
}

}  // namespace weir::coordinator
