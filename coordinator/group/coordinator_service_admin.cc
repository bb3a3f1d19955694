// DescribeGroups, ListGroups and DeleteGroups at every version.
#include <algorithm>
#include <cctype>

#include "coordinator/group/coordinator_service.h"

namespace weir::coordinator {

namespace {

// READ, DELETE and DESCRIBE: what a group allows when no authorizer is configured.
constexpr std::int32_t kGroupOperations = (1 << 3) | (1 << 6) | (1 << 8);
constexpr std::string_view kClassicGroupType = "classic";

bool iequals(std::string_view a, std::string_view b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
        return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
    });
}

}  // namespace

Task<msg::DescribeGroupsResponse> CoordinatorService::describe_groups(const Ctx& ctx, msg::DescribeGroupsRequest r) {
    const auto v = ctx.version();
    msg::DescribeGroupsResponse resp;
    for (const auto& group_id : r.groups) {
        auto& out = resp.groups.emplace_back();
        out.group_id = group_id;
        if (auto error = group_status(group_id, Api::describe)) {
            out.error_code = to_int(*error);
            continue;
        }
        auto summary = core_.describe(group_id);
        out.group_state = std::move(summary.state);
        out.protocol_type = std::move(summary.protocol_type);
        out.protocol_data = std::move(summary.protocol);
        for (auto& m : summary.members) {
            auto& member = out.members.emplace_back();
            member.member_id = std::move(m.member_id);
            member.group_instance_id = std::move(m.group_instance_id);
            member.client_id = std::move(m.client_id);
            member.client_host = std::move(m.client_host);
            member.member_metadata = std::move(m.metadata);
            member.member_assignment = std::move(m.assignment);
        }
        if (v >= 3 && r.include_authorized_operations) out.authorized_operations = kGroupOperations;
    }
    co_return resp;
}

Task<msg::ListGroupsResponse> CoordinatorService::list_groups(const Ctx& ctx, msg::ListGroupsRequest r) {
    const auto v = ctx.version();
    msg::ListGroupsResponse resp;
    if (!runtime_.active()) {
        resp.error_code = to_int(ErrorCode::coordinator_not_available);
        co_return resp;
    }
    if (loading()) resp.error_code = to_int(ErrorCode::coordinator_load_in_progress);
    std::vector<GroupState> states;
    bool unknown_state = false;
    if (v >= 4) {
        for (const auto& s : r.states_filter) {
            if (auto parsed = parse_state(s))
                states.push_back(*parsed);
            else
                unknown_state = true;
        }
    }
    // Every group here is a classic group.
    if (v >= 5 && !r.types_filter.empty() &&
        std::none_of(r.types_filter.begin(), r.types_filter.end(),
                     [](const std::string& t) { return iequals(t, kClassicGroupType); }))
        co_return resp;
    for (const auto& g : core_.list()) {
        if ((!states.empty() || unknown_state) && std::find(states.begin(), states.end(), g.state) == states.end())
            continue;
        auto& out = resp.groups.emplace_back();
        out.group_id = g.group_id;
        out.protocol_type = g.protocol_type;
        out.group_state = std::string(state_name(g.state));
        out.group_type = std::string(kClassicGroupType);
    }
    co_return resp;
}

Task<msg::DeleteGroupsResponse> CoordinatorService::delete_groups(const Ctx&, msg::DeleteGroupsRequest r) {
    msg::DeleteGroupsResponse resp;
    for (const auto& group_id : r.groups_names) {
        auto& out = resp.results.emplace_back();
        out.group_id = group_id;
        if (auto error = group_status(group_id, Api::delete_groups)) {
            out.error_code = to_int(*error);
            continue;
        }
        Tombstones tombstones;
        auto error = core_.delete_group(now(), group_id, tombstones);
        out.error_code = to_int(error);
        if (error == ErrorCode::none) {
            std::vector<Tombstones> batch;
            batch.push_back(std::move(tombstones));
            co_await write_tombstones(std::move(batch));
        }
    }
    co_return resp;
}

}  // namespace weir::coordinator
