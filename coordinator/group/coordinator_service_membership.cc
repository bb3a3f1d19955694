// JoinGroup, SyncGroup, Heartbeat and LeaveGroup at every version.
#include "coordinator/group/coordinator_service.h"

// GCC 12 reports a spurious -Wmismatched-new-delete on the asio coroutine
// frames of the two handlers that park (asio allocates and frees the frame
// with its own operator new/delete pair).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace weir::coordinator {

namespace {

// Kafka reports the client's address as InetAddress.toString(): "/127.0.0.1".
std::string client_host(const handlers::ConnectionInfo& connection) {
    std::string_view peer = connection.peer;
    if (auto colon = peer.rfind(':'); colon != std::string_view::npos) peer = peer.substr(0, colon);
    if (peer.starts_with("::ffff:") && peer.find('.') != std::string_view::npos) peer.remove_prefix(7);
    return "/" + std::string(peer);
}

}  // namespace

Task<msg::JoinGroupResponse> CoordinatorService::join_group(const Ctx& ctx, msg::JoinGroupRequest r) {
    const auto v = ctx.version();
    JoinResult result;
    if (auto error = group_status(r.group_id, Api::join)) {
        result = JoinResult::failure(r.member_id, *error);
    } else {
        JoinRequest in;
        in.group_id = std::move(r.group_id);
        in.member_id = std::move(r.member_id);
        in.group_instance_id = std::move(r.group_instance_id);
        in.client_id = ctx.header.client_id.value_or("");
        in.client_host = client_host(ctx.connection);
        in.session_timeout_ms = r.session_timeout_ms;
        // v0 has no rebalance timeout: the session timeout served as both.
        in.rebalance_timeout_ms = v == 0 ? r.session_timeout_ms : r.rebalance_timeout_ms;
        in.protocol_type = std::move(r.protocol_type);
        for (auto& p : r.protocols) in.protocols.push_back({std::move(p.name), std::move(p.metadata)});
        in.require_known_member_id = v >= 4;
        in.support_skip_assignment = v >= 9;
        in.reason = std::move(r.reason);
        auto id = next_request_++;
        auto parked = std::make_shared<Parked<JoinResult>>(broker_.executor);
        joins_.emplace(id, parked);
        Effects fx;
        core_.join(now(), id, std::move(in), fx);
        run(std::move(fx));
        while (!parked->done()) co_await parked->wake();
        result = parked->take();
    }
    msg::JoinGroupResponse resp;
    resp.error_code = to_int(result.error);
    resp.generation_id = result.generation_id;
    resp.protocol_type = result.protocol_type;
    // Before v7 the protocol name is not nullable.
    resp.protocol_name = v >= 7 ? result.protocol_name : std::optional<std::string>(result.protocol_name.value_or(""));
    resp.leader = std::move(result.leader);
    resp.skip_assignment = result.skip_assignment;
    resp.member_id = std::move(result.member_id);
    for (auto& m : result.members) {
        msg::JoinGroupResponse::JoinGroupResponseMember member;
        member.member_id = std::move(m.member_id);
        member.group_instance_id = std::move(m.group_instance_id);
        member.metadata = std::move(m.metadata);
        resp.members.push_back(std::move(member));
    }
    co_return resp;
}

Task<msg::SyncGroupResponse> CoordinatorService::sync_group(const Ctx& ctx, msg::SyncGroupRequest r) {
    const auto v = ctx.version();
    SyncResult result;
    if (auto error = group_status(r.group_id, Api::sync)) {
        // The rebalance state was lost with the old coordinator: rejoin
        // (older clients do not expect COORDINATOR_LOAD_IN_PROGRESS here).
        result = SyncResult::failure(
            *error == ErrorCode::coordinator_load_in_progress ? ErrorCode::rebalance_in_progress : *error);
    } else if (v >= 5 && (!r.protocol_type || !r.protocol_name)) {
        result = SyncResult::failure(ErrorCode::inconsistent_group_protocol);
    } else {
        SyncRequest in;
        in.group_id = std::move(r.group_id);
        in.generation_id = r.generation_id;
        in.member_id = std::move(r.member_id);
        in.group_instance_id = std::move(r.group_instance_id);
        in.protocol_type = std::move(r.protocol_type);
        in.protocol_name = std::move(r.protocol_name);
        for (auto& a : r.assignments) in.assignments.emplace_back(std::move(a.member_id), std::move(a.assignment));
        auto id = next_request_++;
        auto parked = std::make_shared<Parked<SyncResult>>(broker_.executor);
        syncs_.emplace(id, parked);
        Effects fx;
        core_.sync(now(), id, std::move(in), fx);
        run(std::move(fx));
        while (!parked->done()) co_await parked->wake();
        result = parked->take();
    }
    msg::SyncGroupResponse resp;
    resp.error_code = to_int(result.error);
    resp.protocol_type = std::move(result.protocol_type);
    resp.protocol_name = std::move(result.protocol_name);
    resp.assignment = std::move(result.assignment);
    co_return resp;
}

Task<msg::HeartbeatResponse> CoordinatorService::heartbeat(const Ctx&, msg::HeartbeatRequest r) {
    msg::HeartbeatResponse resp;
    if (auto error = group_status(r.group_id, Api::heartbeat)) {
        // While loading, answer blindly: the member finds out at its next rejoin.
        resp.error_code = to_int(*error == ErrorCode::coordinator_load_in_progress ? ErrorCode::none : *error);
        co_return resp;
    }
    resp.error_code = to_int(core_.heartbeat(now(), r.group_id, r.generation_id, r.member_id, r.group_instance_id));
    arm_deadline();
    co_return resp;
}

Task<msg::LeaveGroupResponse> CoordinatorService::leave_group(const Ctx& ctx, msg::LeaveGroupRequest r) {
    const auto v = ctx.version();
    msg::LeaveGroupResponse resp;
    std::vector<LeaveMember> members;
    if (v <= 2) {
        members.push_back({r.member_id, std::nullopt, std::nullopt});
    } else {
        for (const auto& m : r.members) members.push_back({m.member_id, m.group_instance_id, m.reason});
    }
    if (auto error = group_status(r.group_id, Api::leave)) {
        resp.error_code = to_int(*error);
        co_return resp;
    }
    Effects fx;
    auto result = core_.leave(now(), r.group_id, members, fx);
    run(std::move(fx));
    resp.error_code = to_int(result.error);
    if (v <= 2) {
        // One member, one error code: the member's unless the group failed.
        if (result.error == ErrorCode::none && !result.members.empty())
            resp.error_code = to_int(result.members.front());
    } else {
        for (std::size_t i = 0; i < result.members.size() && i < members.size(); ++i) {
            msg::LeaveGroupResponse::MemberResponse m;
            m.member_id = members[i].member_id;
            m.group_instance_id = members[i].group_instance_id;
            m.error_code = to_int(result.members[i]);
            resp.members.push_back(std::move(m));
        }
    }
    co_return resp;
}

}  // namespace weir::coordinator
