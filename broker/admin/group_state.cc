#include "broker/admin/group_state.h"

#include <algorithm>

#include "broker/handler_api/group_service.h"
#include "broker/partitions/replica_manager.h"
#include "messages/consumer_protocol.h"

namespace weir::admin {

namespace {

// The coordinator's APIs take a request context; the admin endpoints speak
// as a local admin client at the versions whose fields they read.
struct LocalRequest {
    explicit LocalRequest(std::int16_t api_key, std::int16_t version) {
        header.api_key = api_key;
        header.api_version = version;
        header.client_id = "weir-admin";
    }
    [[nodiscard]] handlers::RequestContext context() const {
        return {header, connection, std::chrono::steady_clock::now()};
    }
    protocol::RequestHeader header;
    handlers::ConnectionInfo connection{0, "admin", "admin"};
};

}  // namespace

std::optional<std::int64_t> CommittedOffset::lag() const {
    if (!high_watermark || offset < 0) return std::nullopt;
    return std::max<std::int64_t>(*high_watermark - offset, 0);
}

std::vector<TopicPartition> decode_assignment(wire::ByteSpan assignment, std::string_view protocol_type) {
    std::vector<TopicPartition> out;
    if (protocol_type != "consumer" || assignment.empty()) return out;
    try {
        // Every consumer protocol version starts with the v0 layout.
        wire::Reader r(assignment);
        r.int16();
        auto decoded = msg::ConsumerProtocolAssignment::decode(r, 0);
        for (const auto& t : decoded.assigned_partitions)
            for (auto p : t.partitions) out.push_back({t.topic, p});
    } catch (const wire::DecodeError&) {
        out.clear();
    }
    std::sort(out.begin(), out.end());
    return out;
}

boost::asio::awaitable<std::vector<GroupListing>> list_groups(const AdminContext& context) {
    LocalRequest local(msg::ListGroupsRequest::api_key, 4);
    const auto ctx = local.context();
    auto listed = context.broker.groups().list_groups(ctx, msg::ListGroupsRequest{});
    auto response = co_await std::move(listed);
    std::vector<GroupListing> out;
    for (auto& g : response.groups)
        out.push_back({std::move(g.group_id), std::move(g.group_state), std::move(g.protocol_type)});
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.group_id < b.group_id; });
    co_return out;
}

boost::asio::awaitable<GroupState> describe_group(const AdminContext& context, std::string group_id) {
    GroupState out;
    out.group_id = group_id;

    LocalRequest describe_local(msg::DescribeGroupsRequest::api_key, 5);
    const auto describe_ctx = describe_local.context();
    msg::DescribeGroupsRequest describe;
    describe.groups.push_back(group_id);
    auto described_task = context.broker.groups().describe_groups(describe_ctx, std::move(describe));
    auto described = co_await std::move(described_task);
    if (described.groups.empty()) {
        out.error = ErrorCode::unknown_server_error;
        co_return out;
    }
    auto& g = described.groups.front();
    out.error = error_from_code(g.error_code);
    if (out.error != ErrorCode::none) co_return out;
    out.state = g.group_state;
    out.protocol_type = g.protocol_type;
    out.protocol = g.protocol_data;
    for (auto& m : g.members) {
        out.members.push_back({std::move(m.member_id), std::move(m.group_instance_id), std::move(m.client_id),
                               std::move(m.client_host), decode_assignment(m.member_assignment, g.protocol_type)});
    }

    // topics = null: every committed offset of the group (OffsetFetch v2+).
    LocalRequest fetch_local(msg::OffsetFetchRequest::api_key, 7);
    const auto fetch_ctx = fetch_local.context();
    msg::OffsetFetchRequest fetch;
    fetch.group_id = group_id;
    fetch.topics = std::nullopt;
    auto fetched_task = context.broker.groups().offset_fetch(fetch_ctx, std::move(fetch));
    auto fetched = co_await std::move(fetched_task);
    if (fetched.error_code != 0) {
        out.error = error_from_code(fetched.error_code);
        co_return out;
    }
    for (const auto& t : fetched.topics) {
        for (const auto& p : t.partitions) {
            if (p.error_code != 0 || p.committed_offset < 0) continue;
            CommittedOffset c{{t.name, p.partition_index}, p.committed_offset, std::nullopt};
            // Read after the awaits above: the partition may have changed meanwhile.
            if (auto partition = context.broker.partitions.get(c.tp); partition && partition->is_leader())
                c.high_watermark = partition->high_watermark();
            out.offsets.push_back(std::move(c));
        }
    }
    std::sort(out.offsets.begin(), out.offsets.end(), [](const auto& a, const auto& b) { return a.tp < b.tp; });
    co_return out;
}

}  // namespace weir::admin
