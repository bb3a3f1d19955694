#pragma once
// One classic group's membership, generation and committed offsets (Kafka's
// GroupMetadata). A plain data structure with its invariants; the protocol
// (who may join, when to rebalance) lives in GroupManager.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "coordinator/group/member.h"

namespace weir::coordinator {

inline constexpr std::string_view kConsumerProtocolType = "consumer";

class Group {
public:
    Group(std::string id, GroupState initial, TimeMs now);

    [[nodiscard]] const std::string& id() const { return id_; }
    [[nodiscard]] GroupState state() const { return state_; }
    [[nodiscard]] bool is(GroupState s) const { return state_ == s; }
    // Throws std::logic_error on a transition Kafka's state machine forbids.
    void transition_to(GroupState next, TimeMs now);
    // PreparingRebalance may be entered from here.
    [[nodiscard]] bool can_rebalance() const;
    [[nodiscard]] std::optional<TimeMs> current_state_timestamp() const { return state_timestamp_; }
    void set_current_state_timestamp(std::optional<TimeMs> ts) { state_timestamp_ = ts; }

    std::int32_t generation_id = 0;
    std::optional<std::string> protocol_type;
    std::optional<std::string> protocol_name;
    [[nodiscard]] bool is_consumer_group() const { return protocol_type == kConsumerProtocolType; }

    // ---- members ----
    [[nodiscard]] bool has(const std::string& member_id) const { return members_.contains(member_id); }
    [[nodiscard]] Member* find(const std::string& member_id);
    [[nodiscard]] const Member* find(const std::string& member_id) const;
    [[nodiscard]] std::size_t size() const { return members_.size(); }
    [[nodiscard]] const std::map<std::string, Member>& members() const { return members_; }
    [[nodiscard]] std::map<std::string, Member>& members() { return members_; }
    [[nodiscard]] std::optional<std::string> leader() const { return leader_; }
    [[nodiscard]] bool is_leader(const std::string& member_id) const { return leader_ == member_id; }
    void set_leader(std::optional<std::string> leader) { leader_ = std::move(leader); }

    // Adds a member (the first one fixes the protocol type and becomes leader).
    Member& add(Member member, std::optional<RequestId> awaiting_join);
    // Removes the member (and its pending/static/pending-sync entries); a new
    // leader is picked if it led. Returns it so parked requests can be answered.
    std::optional<Member> remove(const std::string& member_id);
    // Static member restart: the member keeps everything but its id. Returns
    // the member under its new id; the old id's parked requests are returned
    // through `fenced_join`/`fenced_sync` (to answer FENCED_INSTANCE_ID).
    Member& replace_static_member(const std::string& instance_id, const std::string& old_id, const std::string& new_id,
                                  std::optional<RequestId>& fenced_join, std::optional<RequestId>& fenced_sync);
    // New protocols and timeouts; `awaiting_join` parks (or unparks) the member.
    // Returns a JoinGroup it replaced, if any (a retried request).
    std::optional<RequestId> update_member(Member& member, std::vector<Protocol> protocols,
                                           std::int32_t rebalance_timeout_ms, std::int32_t session_timeout_ms,
                                           std::optional<RequestId> awaiting_join);
    // Unparks the member's JoinGroup/SyncGroup and returns its id.
    std::optional<RequestId> take_join(Member& member);
    std::optional<RequestId> take_sync(Member& member);
    // Parks a SyncGroup; returns the one it replaced, if any.
    std::optional<RequestId> park_sync(Member& member, RequestId id);

    [[nodiscard]] std::size_t num_awaiting_join() const { return num_awaiting_join_; }
    [[nodiscard]] bool has_all_members_joined() const {
        return members_.size() == num_awaiting_join_ && pending_members_.empty();
    }
    [[nodiscard]] std::vector<std::string> not_yet_rejoined_members() const;
    // Keeps the current leader if it rejoined, else picks a member that did.
    // False if there is no leader or nobody rejoined.
    bool maybe_elect_new_joined_leader();
    // Largest rebalance timeout of the members (0 when empty).
    [[nodiscard]] std::int32_t rebalance_timeout_ms() const;

    // ---- static members ----
    [[nodiscard]] std::optional<std::string> static_member_id(const std::string& instance_id) const;
    [[nodiscard]] std::size_t static_member_count() const { return static_members_.size(); }

    // ---- members that got MEMBER_ID_REQUIRED and have not rejoined yet ----
    [[nodiscard]] bool is_pending_member(const std::string& member_id) const {
        return pending_members_.contains(member_id);
    }
    void add_pending_member(const std::string& member_id) { pending_members_.insert(member_id); }
    bool remove_pending_member(const std::string& member_id) { return pending_members_.erase(member_id) > 0; }
    [[nodiscard]] std::size_t pending_member_count() const { return pending_members_.size(); }

    // ---- members expected to send SyncGroup in this generation ----
    void add_pending_sync_member(const std::string& member_id) { pending_sync_members_.insert(member_id); }
    void remove_pending_sync_member(const std::string& member_id) { pending_sync_members_.erase(member_id); }
    [[nodiscard]] bool has_received_sync_from_all_members() const { return pending_sync_members_.empty(); }
    [[nodiscard]] std::vector<std::string> pending_sync_members() const {
        return {pending_sync_members_.begin(), pending_sync_members_.end()};
    }
    void clear_pending_sync_members() { pending_sync_members_.clear(); }

    // ---- protocols ----
    // Whether a member with this protocol type and these protocols may join.
    [[nodiscard]] bool supports_protocols(std::string_view protocol_type, const std::vector<Protocol>& protocols) const;
    // The protocol all members support that most members prefer (Kafka's vote).
    [[nodiscard]] std::string select_protocol() const;
    // Next generation: protocol chosen, CompletingRebalance (or Empty).
    void init_next_generation(TimeMs now);
    // JoinGroup response members (id, instance id, metadata for the chosen protocol).
    [[nodiscard]] std::vector<JoinMember> current_member_metadata() const;

    // Topics the consumer-protocol members subscribe to; nullopt if unknown.
    [[nodiscard]] const std::optional<std::set<std::string>>& subscribed_topics() const { return subscribed_topics_; }
    [[nodiscard]] bool is_subscribed_to_topic(const std::string& topic) const {
        return !subscribed_topics_ || subscribed_topics_->contains(topic);
    }
    void refresh_subscribed_topics() { subscribed_topics_ = compute_subscribed_topics(); }

    // The group as Kafka persists it: GroupMetadataValue v3 with `assignment`
    // for each member (the members' own assignments when not given).
    [[nodiscard]] msg::GroupMetadataValue to_record(const std::map<std::string, wire::Bytes>* assignment) const;

    [[nodiscard]] GroupSummary summary() const;
    [[nodiscard]] GroupOverview overview() const;

    // ---- offsets ----
    [[nodiscard]] const std::map<TopicPartition, OffsetAndMetadata>& offsets() const { return offsets_; }
    [[nodiscard]] const OffsetAndMetadata* offset(const TopicPartition& tp) const;
    void put_offset(const TopicPartition& tp, OffsetAndMetadata value) { offsets_[tp] = std::move(value); }
    // Stores `value` unless the stored one was written later in the log.
    void store_offset(const TopicPartition& tp, OffsetAndMetadata value);
    // Marks commits in flight (appended, not yet acknowledged).
    void prepare_offset_commit(const std::vector<TopicPartition>& tps);
    // Ends an in-flight commit; on success the value becomes the committed offset.
    void complete_offset_commit(const TopicPartition& tp, const OffsetAndMetadata* value);
    [[nodiscard]] bool has_pending_offset_commit(const TopicPartition& tp) const;
    [[nodiscard]] bool has_offsets() const {
        return !offsets_.empty() || !pending_commits_.empty() || !pending_txn_offsets_.empty();
    }
    // TxnOffsetCommit's offsets once appended: they wait for the transaction's
    // marker (Kafka's pendingTransactionalOffsetCommits).
    void add_pending_txn_offsets(std::int64_t producer_id, const std::map<TopicPartition, OffsetAndMetadata>& offsets);
    // The marker: a commit makes them the committed offsets, an abort drops them.
    void complete_txn_offsets(std::int64_t producer_id, bool commit);
    [[nodiscard]] bool has_pending_txn_offsets(std::int64_t producer_id) const {
        return pending_txn_offsets_.contains(producer_id);
    }
    // Removes and returns the partitions that had a committed offset.
    std::vector<TopicPartition> remove_offsets(const std::vector<TopicPartition>& tps);
    std::vector<TopicPartition> remove_all_offsets();
    // Kafka's offset expiration rules (see the definition).
    std::vector<TopicPartition> remove_expired_offsets(TimeMs now, std::int64_t retention_ms);

    // ---- rebalance timers (GroupManager's bookkeeping) ----
    struct PendingJoin {
        bool initial = false;  // InitialDelayedJoin: only ever completes at its deadline
        TimeMs deadline = 0;
        std::int64_t delay_ms = 0;      // initial only: this round's delay
        std::int64_t remaining_ms = 0;  // initial only: how much longer it may be extended
        std::uint64_t token = 0;
    };
    std::optional<PendingJoin> pending_join;
    struct PendingSync {
        std::int32_t generation = 0;
        TimeMs deadline = 0;
        std::uint64_t token = 0;
    };
    std::optional<PendingSync> pending_sync;
    // A member joined a brand-new group while its initial delay ran.
    bool new_member_added = false;

private:
    void inc_supported_protocols(const Member& m);
    void dec_supported_protocols(const Member& m);
    [[nodiscard]] std::optional<std::set<std::string>> compute_subscribed_topics() const;

    std::string id_;
    GroupState state_;
    std::optional<TimeMs> state_timestamp_;
    std::optional<std::string> leader_;
    std::map<std::string, Member> members_;
    std::map<std::string, std::string> static_members_;  // instance id -> member id
    std::set<std::string> pending_members_;
    std::set<std::string> pending_sync_members_;
    std::map<std::string, int> supported_protocols_;  // protocol -> members supporting it
    std::size_t num_awaiting_join_ = 0;
    std::optional<std::set<std::string>> subscribed_topics_;
    std::map<TopicPartition, OffsetAndMetadata> offsets_;
    std::map<TopicPartition, int> pending_commits_;  // in-flight commits per partition
    std::map<std::int64_t, std::map<TopicPartition, OffsetAndMetadata>> pending_txn_offsets_;  // by producer id
};

}  // namespace weir::coordinator
