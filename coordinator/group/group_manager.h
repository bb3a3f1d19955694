#pragma once
// The classic group protocol as a pure state machine (Kafka's GroupCoordinator
// and the group side of GroupMetadataManager): no I/O, no clock, no asio.
// Every call gets the current time; parked JoinGroup/SyncGroup requests are
// identified by RequestIds and answered through Effects, possibly by a later
// call (another member's request, advance() past a deadline, a completed
// store). The driver persists the group records it is asked to and reports
// back with on_store_complete().
//
// The caller checks what belongs to the broker (group id validity, whether
// this broker coordinates the group, loading) before calling in.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "coordinator/group/group.h"

namespace weir::coordinator {

class GroupManager {
public:
    // Returns `prefix` + "-" + a fresh UUID (Kafka's member id format).
    using MemberIdGenerator = std::function<std::string(std::string_view prefix)>;

    GroupManager(GroupConfig config, MemberIdGenerator ids);

    [[nodiscard]] const GroupConfig& config() const { return config_; }

    // ---- membership ----
    // Answers `id` now or later (through `out` of this or a later call).
    void join(TimeMs now, RequestId id, JoinRequest request, Effects& out);
    void sync(TimeMs now, RequestId id, SyncRequest request, Effects& out);
    ErrorCode heartbeat(TimeMs now, const std::string& group_id, std::int32_t generation, const std::string& member_id,
                        const std::optional<std::string>& instance_id);
    LeaveResult leave(TimeMs now, const std::string& group_id, const std::vector<LeaveMember>& members, Effects& out);
    // A StoreGroupRequest finished; `error` is already mapped to what clients should see.
    void on_store_complete(TimeMs now, std::uint64_t store_id, ErrorCode error, Effects& out);

    // ---- timers ----
    // Earliest time advance() has something to do (may be early, never late).
    [[nodiscard]] std::optional<TimeMs> next_deadline() const;
    // Session expiries, rebalance and sync deadlines due at `now`.
    void advance(TimeMs now, Effects& out);

    // ---- offsets ----
    // Kafka's OffsetCommit checks; creates the group for a standalone commit
    // (generation < 0) and counts as a heartbeat for a member.
    ErrorCode validate_offset_commit(TimeMs now, const std::string& group_id, const std::string& member_id,
                                     const std::optional<std::string>& instance_id, std::int32_t generation);
    void prepare_offset_commit(const std::string& group_id, const std::vector<TopicPartition>& tps);
    // After the append: on success the offsets become visible, else they are dropped.
    void complete_offset_commit(const std::string& group_id,
                                const std::vector<std::pair<TopicPartition, OffsetAndMetadata>>& offsets, bool success);
    // Kafka's TxnOffsetCommit checks (doTxnCommitOffsets): an unknown group is
    // created Empty; the member and generation are checked only when named.
    ErrorCode validate_txn_offset_commit(TimeMs now, const std::string& group_id, const std::string& member_id,
                                         const std::optional<std::string>& instance_id, std::int32_t generation);
    // Appended: the offsets wait for the transaction's marker.
    void add_pending_txn_offsets(const std::string& group_id, std::int64_t producer_id,
                                 const std::map<TopicPartition, OffsetAndMetadata>& offsets);
    // `producer_id`'s marker reached the groups `selected` names: their
    // pending offsets of it become committed (commit) or are dropped.
    void complete_txn_offsets(std::int64_t producer_id, bool commit,
                              const std::function<bool(const std::string&)>& selected);
    // `tps` nullopt: every committed partition.
    [[nodiscard]] std::vector<FetchedOffset> fetch_offsets(const std::string& group_id, bool require_stable,
                                                           const std::optional<std::vector<TopicPartition>>& tps) const;

    // ---- administration ----
    // Unknown groups are described as Dead.
    [[nodiscard]] GroupSummary describe(const std::string& group_id) const;
    [[nodiscard]] std::vector<GroupOverview> list() const;
    // NONE (the group is gone; write `tombstones`), GROUP_ID_NOT_FOUND or NON_EMPTY_GROUP.
    ErrorCode delete_group(TimeMs now, const std::string& group_id, Tombstones& tombstones);
    struct OffsetDeleteResult {
        ErrorCode error = ErrorCode::none;
        std::vector<std::pair<TopicPartition, ErrorCode>> partitions;
        Tombstones tombstones;
    };
    OffsetDeleteResult delete_offsets(TimeMs now, const std::string& group_id, const std::vector<TopicPartition>& tps);
    // Periodic offset expiry (offsets.retention.minutes); groups left Empty
    // without offsets are removed.
    std::vector<Tombstones> expire_offsets(TimeMs now, std::int64_t retention_ms);
    // A topic was deleted: its offsets go from every group.
    std::vector<Tombstones> remove_topic_offsets(TimeMs now, const std::string& topic);

    // ---- loading ----
    // A group replayed from the log: Stable with its members if it has any
    // (their sessions start now), else Empty. `value` null: offsets only.
    // `pending_txn_offsets`: by producer id, offsets of transactions without a marker yet.
    void load_group(
        TimeMs now, const std::string& group_id, const msg::GroupMetadataValue* value,
        std::map<TopicPartition, OffsetAndMetadata> offsets, Effects& out,
        const std::map<std::int64_t, std::map<TopicPartition, OffsetAndMetadata>>& pending_txn_offsets = {});
    // This broker stopped coordinating these groups: parked requests get NOT_COORDINATOR.
    void unload_groups(const std::function<bool(const std::string&)>& selected, Effects& out);
    // Shutdown: every parked request is answered with `error`.
    void abort_all(ErrorCode error, Effects& out);

    [[nodiscard]] const Group* find(const std::string& group_id) const;
    [[nodiscard]] std::size_t group_count() const { return groups_.size(); }

private:
    enum class TimerKind : std::uint8_t { heartbeat, pending_member, join, sync };
    struct TimerEntry {
        TimerKind kind;
        std::string group_id;
        std::string member_id;
        std::uint64_t token = 0;
    };
    // What to do when a StoreGroupRequest completes.
    struct SyncStore {
        std::int32_t generation = 0;
        std::map<std::string, wire::Bytes> assignment;
    };
    struct StaticReplaceStore {
        RequestId request = 0;
        std::string old_member_id;
        std::string new_member_id;
        std::string instance_id;
        std::optional<std::string> previous_leader;
        std::vector<Protocol> old_protocols;
        std::int32_t old_rebalance_timeout_ms = 0;
        std::int32_t old_session_timeout_ms = 0;
        bool support_skip_assignment = false;
    };
    struct PendingStore {
        std::string group_id;
        enum class Kind { sync, static_replace, plain } kind = Kind::plain;
        SyncStore sync;
        StaticReplaceStore replace;
    };

    Group* find_mut(const std::string& group_id);
    Group& create_group(const std::string& group_id, TimeMs now);
    void remove_group(const std::string& group_id);

    void do_new_member_join(TimeMs now, Group& g, RequestId id, JoinRequest& req, Effects& out);
    void do_current_member_join(TimeMs now, Group& g, RequestId id, JoinRequest& req, Effects& out);
    void add_member_and_rebalance(TimeMs now, Group& g, RequestId id, JoinRequest& req, std::string member_id,
                                  Effects& out);
    void update_static_member_and_rebalance(TimeMs now, Group& g, RequestId id, JoinRequest& req,
                                            const std::string& old_id, std::string new_id, Effects& out);
    // Why a current member's JoinGroup rebalances, for the log line.
    enum class RejoinKind { joining, metadata_changed, leader };
    void update_member_and_rebalance(TimeMs now, Group& g, Member& m, RequestId id, JoinRequest& req, RejoinKind kind,
                                     Effects& out);
    JoinResult current_generation_result(const Group& g, const std::string& member_id, bool with_members) const;
    [[nodiscard]] std::optional<ErrorCode> validate_current_member(const Group& g, const std::string& member_id,
                                                                   const std::optional<std::string>& instance_id) const;

    // `reason` is logged, as Kafka's prepareRebalance logs its own.
    void maybe_prepare_rebalance(TimeMs now, Group& g, const std::string& reason, Effects& out);
    void prepare_rebalance(TimeMs now, Group& g, const std::string& reason, Effects& out);
    void try_complete_join(TimeMs now, Group& g, Effects& out);
    void on_complete_join(TimeMs now, Group& g, Effects& out);
    void on_join_deadline(TimeMs now, Group& g, Effects& out);
    void on_sync_deadline(TimeMs now, Group& g, Effects& out);
    void on_heartbeat_expired(TimeMs now, Group& g, const std::string& member_id, Effects& out);
    void remove_member_and_update_group(TimeMs now, Group& g, const std::string& member_id, const std::string& reason,
                                        Effects& out);
    void remove_pending_member_and_update_group(TimeMs now, Group& g, const std::string& member_id, Effects& out);

    void set_and_propagate_assignment(TimeMs now, Group& g, const std::map<std::string, wire::Bytes>& assignment,
                                      Effects& out);
    void reset_and_propagate_assignment_error(TimeMs now, Group& g, ErrorCode error, Effects& out);
    void propagate_assignment(TimeMs now, Group& g, ErrorCode error, Effects& out);

    void schedule_heartbeat(TimeMs now, Group& g, Member& m, std::int64_t timeout_ms);
    void schedule_join(Group& g, Group::PendingJoin pending);
    void schedule_sync(TimeMs now, Group& g);
    void complete_join(Group& g, Member& m, JoinResult result, Effects& out);
    void store_group(Group& g, PendingStore pending, const std::map<std::string, wire::Bytes>* assignment,
                     Effects& out);
    static void answer_join(std::optional<RequestId> id, JoinResult result, Effects& out);
    static void answer_sync(std::optional<RequestId> id, SyncResult result, Effects& out);

    GroupConfig config_;
    MemberIdGenerator ids_;
    std::map<std::string, std::unique_ptr<Group>> groups_;
    std::multimap<TimeMs, TimerEntry> timers_;
    std::uint64_t next_token_ = 1;
    std::map<std::uint64_t, PendingStore> stores_;
    std::uint64_t next_store_id_ = 1;
};

}  // namespace weir::coordinator
