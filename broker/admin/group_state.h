#pragma once
// Consumer groups as the admin endpoints and /metrics show them, gathered
// from the group coordinator through its Kafka APIs (ListGroups,
// DescribeGroups, OffsetFetch), as an admin client would, so the admin layer
// depends on the GroupService interface only. In cluster mode these are the
// groups this broker coordinates.
#include <boost/asio/awaitable.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "broker/admin/admin_context.h"
#include "protocol/errors.h"
#include "protocol/topic_partition.h"
#include "protocol/wire/reader.h"

namespace weir::admin {

struct GroupListing {
    std::string group_id;
    std::string state;
    std::string protocol_type;
};

struct GroupMember {
    std::string member_id;
    std::optional<std::string> instance_id;
    std::string client_id;
    std::string client_host;
    std::vector<TopicPartition> assignment;
};

struct CommittedOffset {
    TopicPartition tp;
    std::int64_t offset = -1;
    // The partition's high watermark when this broker leads it.
    std::optional<std::int64_t> high_watermark;
    // Kafka's consumer lag: high watermark minus committed offset, never negative.
    [[nodiscard]] std::optional<std::int64_t> lag() const;
};

struct GroupState {
    ErrorCode error = ErrorCode::none;  // the coordinator's answer for the group
    std::string group_id;
    std::string state;
    std::string protocol_type;
    std::string protocol;
    std::vector<GroupMember> members;
    std::vector<CommittedOffset> offsets;  // by topic, partition
    // Unknown to the coordinator: no members and no committed offsets.
    [[nodiscard]] bool exists() const { return error == ErrorCode::none && (state != "Dead" || !offsets.empty()); }
};

// The partitions of a consumer-protocol assignment; empty when the group uses
// another protocol or the bytes do not decode.
std::vector<TopicPartition> decode_assignment(wire::ByteSpan assignment, std::string_view protocol_type);

boost::asio::awaitable<std::vector<GroupListing>> list_groups(const AdminContext& context);
boost::asio::awaitable<GroupState> describe_group(const AdminContext& context, std::string group_id);

}  // namespace weir::admin
