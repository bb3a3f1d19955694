#pragma once
// One member of a classic group (Kafka's MemberMetadata).
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "coordinator/group/types.h"

namespace weir::coordinator {

struct Member {
    std::string member_id;
    std::optional<std::string> group_instance_id;
    std::string client_id;
    std::string client_host;
    std::int32_t rebalance_timeout_ms = 0;
    std::int32_t session_timeout_ms = 0;
    std::string protocol_type;
    std::vector<Protocol> protocols;  // in the member's order of preference
    wire::Bytes assignment;

    // Parked JoinGroup / SyncGroup of this member, if any (managed by Group).
    std::optional<RequestId> awaiting_join;
    std::optional<RequestId> awaiting_sync;
    // Joined but not yet through a completed rebalance: its parked JoinGroup
    // may expire (Kafka's isNew).
    bool is_new = false;
    // Matches the live heartbeat timer entry; bumping it cancels older ones.
    std::uint64_t heartbeat_token = 0;

    [[nodiscard]] bool is_static() const { return group_instance_id.has_value(); }
    [[nodiscard]] bool is_awaiting_join() const { return awaiting_join.has_value(); }
    [[nodiscard]] bool is_awaiting_sync() const { return awaiting_sync.has_value(); }
    // At a session expiry: members parked in a rebalance count as alive,
    // unless they are new (their first JoinGroup may be abandoned).
    [[nodiscard]] bool survives_expiry() const { return !is_new && (is_awaiting_join() || is_awaiting_sync()); }

    // Same protocols, metadata and order.
    [[nodiscard]] bool matches(const std::vector<Protocol>& other) const { return protocols == other; }
    // Metadata for `protocol`, or nullptr if the member does not support it.
    [[nodiscard]] const wire::Bytes* metadata(std::string_view protocol) const;
    // The member's most preferred protocol among `candidates` (Kafka's vote).
    [[nodiscard]] std::string vote(const std::set<std::string>& candidates) const;
};

}  // namespace weir::coordinator
