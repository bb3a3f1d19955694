#pragma once
// Value types of the group coordinator's pure core (no I/O, no clock: time is
// passed in as milliseconds since the epoch).
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "messages/group_coordinator_records.h"
#include "protocol/errors.h"
#include "protocol/topic_partition.h"
#include "protocol/wire/reader.h"

namespace weir::coordinator {

using TimeMs = std::int64_t;
// Identifies a parked JoinGroup/SyncGroup request; the driver owns the mapping.
using RequestId = std::uint64_t;

// Kafka's classic group states; the names are what DescribeGroups/ListGroups show.
enum class GroupState : std::uint8_t { empty, preparing_rebalance, completing_rebalance, stable, dead };
std::string_view state_name(GroupState state);
// Case-insensitive, as ListGroups v4+ state filters are matched.
std::optional<GroupState> parse_state(std::string_view name);

struct GroupConfig {
    std::int32_t min_session_timeout_ms = 6000;
    std::int32_t max_session_timeout_ms = 1800000;
    std::int32_t max_size = std::numeric_limits<std::int32_t>::max();
    std::int32_t initial_rebalance_delay_ms = 3000;
    // A new member's JoinGroup stays parked at most this long (Kafka's NewMemberJoinTimeoutMs).
    std::int64_t new_member_join_timeout_ms = 5 * 60 * 1000;
};

struct Protocol {
    std::string name;
    wire::Bytes metadata;
    bool operator==(const Protocol&) const = default;
};

struct JoinRequest {
    std::string group_id;
    std::string member_id;  // empty: a new member
    std::optional<std::string> group_instance_id;
    std::string client_id;
    std::string client_host;
    std::int32_t session_timeout_ms = 0;
    std::int32_t rebalance_timeout_ms = 0;
    std::string protocol_type;
    std::vector<Protocol> protocols;
    bool require_known_member_id = false;  // JoinGroup v4+
    bool support_skip_assignment = false;  // JoinGroup v9+
    std::optional<std::string> reason;     // KIP-800, JoinGroup v8+: why the client (re)joins
};

struct JoinMember {
    std::string member_id;
    std::optional<std::string> group_instance_id;
    wire::Bytes metadata;
    bool operator==(const JoinMember&) const = default;
};

struct JoinResult {
    ErrorCode error = ErrorCode::none;
    std::int32_t generation_id = -1;
    std::optional<std::string> protocol_type;
    std::optional<std::string> protocol_name;
    std::string leader;
    bool skip_assignment = false;
    std::string member_id;
    std::vector<JoinMember> members;  // only the leader gets them

    static JoinResult failure(std::string member_id, ErrorCode error) {
        JoinResult r;
        r.member_id = std::move(member_id);
        r.error = error;
        return r;
    }
};

struct SyncRequest {
    std::string group_id;
    std::int32_t generation_id = -1;
    std::string member_id;
    std::optional<std::string> group_instance_id;
    std::optional<std::string> protocol_type;  // SyncGroup v5+
    std::optional<std::string> protocol_name;
    std::vector<std::pair<std::string, wire::Bytes>> assignments;  // leader only
};

struct SyncResult {
    ErrorCode error = ErrorCode::none;
    std::optional<std::string> protocol_type;
    std::optional<std::string> protocol_name;
    wire::Bytes assignment;

    static SyncResult failure(ErrorCode error) {
        SyncResult r;
        r.error = error;
        return r;
    }
};

struct LeaveMember {
    std::string member_id;  // empty: remove by group instance id (admin)
    std::optional<std::string> group_instance_id;
    std::optional<std::string> reason;  // KIP-800, LeaveGroup v5+
};

struct LeaveResult {
    ErrorCode error = ErrorCode::none;  // group level
    std::vector<ErrorCode> members;     // one per requested member, in order
};

struct OffsetAndMetadata {
    std::int64_t offset = -1;
    std::int32_t leader_epoch = -1;  // -1: none
    std::string metadata;
    TimeMs commit_timestamp = 0;
    std::optional<TimeMs> expire_timestamp;  // OffsetCommit v2-v4 retention
    // Where its record lies in __consumer_offsets (-1: not known). A
    // transaction's offsets count at its marker, so the later record in the
    // log must win, not the later completion (Kafka's olderThan).
    std::int64_t record_offset = -1;
    // The same committed value, wherever it was written.
    bool operator==(const OffsetAndMetadata& o) const {
        return offset == o.offset && leader_epoch == o.leader_epoch && metadata == o.metadata &&
               commit_timestamp == o.commit_timestamp && expire_timestamp == o.expire_timestamp;
    }
    // True if `other` may replace this value: it was written later, or
    // either position is not known.
    [[nodiscard]] bool superseded_by(const OffsetAndMetadata& other) const {
        return record_offset < 0 || other.record_offset < 0 || record_offset < other.record_offset;
    }
};

struct FetchedOffset {
    TopicPartition tp;
    std::int64_t offset = -1;
    std::int32_t leader_epoch = -1;
    std::string metadata;
    ErrorCode error = ErrorCode::none;
};

struct MemberSummary {
    std::string member_id;
    std::optional<std::string> group_instance_id;
    std::string client_id;
    std::string client_host;
    wire::Bytes metadata;
    wire::Bytes assignment;
};

struct GroupSummary {
    std::string state;
    std::string protocol_type;
    std::string protocol;
    std::vector<MemberSummary> members;
};

struct GroupOverview {
    std::string group_id;
    std::string protocol_type;
    GroupState state = GroupState::empty;
};

// A group record the driver must append to __consumer_offsets and then report
// back with GroupManager::on_store_complete(store_id, error).
struct StoreGroupRequest {
    std::uint64_t store_id = 0;
    std::string group_id;
    msg::GroupMetadataValue value;
};

// Records to delete: offset tombstones and, when `group_tombstone`, the group's.
struct Tombstones {
    std::string group_id;
    std::vector<TopicPartition> offsets;
    bool group_tombstone = false;
};

// What a call into the core asks the driver to do: answer parked requests and
// persist group records.
// A line Kafka's GroupCoordinator logs at INFO: rebalances begun and
// completed and members lost, what an operator follows a group by. The
// service writes it with the group's __consumer_offsets partition.
struct GroupLogLine {
    std::string group_id;
    std::string text;
    bool operator==(const GroupLogLine&) const = default;
};

struct Effects {
    std::vector<std::pair<RequestId, JoinResult>> joins;
    std::vector<std::pair<RequestId, SyncResult>> syncs;
    std::vector<StoreGroupRequest> stores;
    std::vector<GroupLogLine> logged;

    [[nodiscard]] bool empty() const { return joins.empty() && syncs.empty() && stores.empty() && logged.empty(); }
};

}  // namespace weir::coordinator
