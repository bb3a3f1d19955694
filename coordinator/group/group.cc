#include "coordinator/group/group.h"

#include <algorithm>
#include <stdexcept>

#include "messages/consumer_protocol.h"

namespace weir::coordinator {

namespace {

bool valid_previous(GroupState from, GroupState to) {
    using S = GroupState;
    switch (to) {
        case S::preparing_rebalance:
            return from == S::stable || from == S::completing_rebalance || from == S::empty;
        case S::completing_rebalance:
            return from == S::preparing_rebalance;
        case S::stable:
            return from == S::completing_rebalance;
        case S::empty:
            return from == S::preparing_rebalance;
        case S::dead:
            return true;
    }
    return false;
}

}  // namespace

Group::Group(std::string id, GroupState initial, TimeMs now)
    : id_(std::move(id)), state_(initial), state_timestamp_(now) {}

void Group::transition_to(GroupState next, TimeMs now) {
    if (!valid_previous(state_, next))
        throw std::logic_error("group " + id_ + ": invalid transition " + std::string(state_name(state_)) + " -> " +
                               std::string(state_name(next)));
    state_ = next;
    state_timestamp_ = now;
}

bool Group::can_rebalance() const { return valid_previous(state_, GroupState::preparing_rebalance); }

Member* Group::find(const std::string& member_id) {
    auto it = members_.find(member_id);
    return it == members_.end() ? nullptr : &it->second;
}

const Member* Group::find(const std::string& member_id) const {
    auto it = members_.find(member_id);
    return it == members_.end() ? nullptr : &it->second;
}

Member& Group::add(Member member, std::optional<RequestId> awaiting_join) {
    if (member.group_instance_id) static_members_[*member.group_instance_id] = member.member_id;
    if (members_.empty()) protocol_type = member.protocol_type;
    if (!leader_) leader_ = member.member_id;
    member.awaiting_join = awaiting_join;
    member.awaiting_sync.reset();
    if (awaiting_join) ++num_awaiting_join_;
    pending_members_.erase(member.member_id);
    auto id = member.member_id;
    auto [it, inserted] = members_.insert_or_assign(id, std::move(member));
    inc_supported_protocols(it->second);
    return it->second;
}

std::optional<Member> Group::remove(const std::string& member_id) {
    std::optional<Member> removed;
    if (auto it = members_.find(member_id); it != members_.end()) {
        dec_supported_protocols(it->second);
        if (it->second.is_awaiting_join()) --num_awaiting_join_;
        if (it->second.group_instance_id) static_members_.erase(*it->second.group_instance_id);
        removed = std::move(it->second);
        members_.erase(it);
    }
    if (is_leader(member_id))
        leader_ = members_.empty() ? std::nullopt : std::optional<std::string>(members_.begin()->first);
    pending_members_.erase(member_id);
    pending_sync_members_.erase(member_id);
    return removed;
}

Member& Group::replace_static_member(const std::string& instance_id, const std::string& old_id,
                                     const std::string& new_id, std::optional<RequestId>& fenced_join,
                                     std::optional<RequestId>& fenced_sync) {
    auto node = members_.extract(old_id);
    if (node.empty()) throw std::logic_error("group " + id_ + ": cannot replace unknown member " + old_id);
    Member& m = node.mapped();
    fenced_join = take_join(m);
    fenced_sync = m.awaiting_sync;
    m.awaiting_sync.reset();
    m.member_id = new_id;
    node.key() = new_id;
    auto& member = members_.insert(std::move(node)).position->second;
    if (is_leader(old_id)) leader_ = new_id;
    static_members_[instance_id] = new_id;
    if (pending_sync_members_.erase(old_id) > 0) pending_sync_members_.insert(new_id);
    return member;
}

std::optional<RequestId> Group::update_member(Member& member, std::vector<Protocol> protocols,
                                              std::int32_t rebalance_timeout_ms, std::int32_t session_timeout_ms,
                                              std::optional<RequestId> awaiting_join) {
    dec_supported_protocols(member);
    member.protocols = std::move(protocols);
    member.rebalance_timeout_ms = rebalance_timeout_ms;
    member.session_timeout_ms = session_timeout_ms;
    inc_supported_protocols(member);
    auto replaced = take_join(member);
    member.awaiting_join = awaiting_join;
    if (awaiting_join) ++num_awaiting_join_;
    return replaced;
}

std::optional<RequestId> Group::take_join(Member& member) {
    auto id = member.awaiting_join;
    if (id) {
        member.awaiting_join.reset();
        --num_awaiting_join_;
    }
    return id;
}

std::optional<RequestId> Group::take_sync(Member& member) {
    auto id = member.awaiting_sync;
    member.awaiting_sync.reset();
    return id;
}

std::optional<RequestId> Group::park_sync(Member& member, RequestId id) {
    auto replaced = member.awaiting_sync;
    member.awaiting_sync = id;
    return replaced;
}

std::vector<std::string> Group::not_yet_rejoined_members() const {
    std::vector<std::string> out;
    for (const auto& [id, m] : members_)
        if (!m.is_awaiting_join()) out.push_back(id);
    return out;
}

bool Group::maybe_elect_new_joined_leader() {
    if (!leader_) return false;
    if (auto* current = find(*leader_); current && current->is_awaiting_join()) return true;
    for (const auto& [id, m] : members_) {
        if (m.is_awaiting_join()) {
            leader_ = id;
            return true;
        }
    }
    return false;
}

std::int32_t Group::rebalance_timeout_ms() const {
    std::int32_t timeout = 0;
    for (const auto& [id, m] : members_) timeout = std::max(timeout, m.rebalance_timeout_ms);
    return timeout;
}

std::optional<std::string> Group::static_member_id(const std::string& instance_id) const {
    auto it = static_members_.find(instance_id);
    if (it == static_members_.end()) return std::nullopt;
    return it->second;
}

void Group::inc_supported_protocols(const Member& m) {
    for (const auto& p : m.protocols) ++supported_protocols_[p.name];
}

void Group::dec_supported_protocols(const Member& m) {
    for (const auto& p : m.protocols) {
        auto it = supported_protocols_.find(p.name);
        if (it != supported_protocols_.end() && --it->second <= 0) supported_protocols_.erase(it);
    }
}

bool Group::supports_protocols(std::string_view type, const std::vector<Protocol>& protocols) const {
    if (is(GroupState::empty)) return !type.empty() && !protocols.empty();
    if (protocol_type != type) return false;
    return std::any_of(protocols.begin(), protocols.end(), [&](const Protocol& p) {
        auto it = supported_protocols_.find(p.name);
        return it != supported_protocols_.end() && static_cast<std::size_t>(it->second) == members_.size();
    });
}

std::string Group::select_protocol() const {
    if (members_.empty()) throw std::logic_error("group " + id_ + ": cannot select a protocol without members");
    std::set<std::string> candidates;
    for (const auto& [name, count] : supported_protocols_)
        if (static_cast<std::size_t>(count) == members_.size()) candidates.insert(name);
    std::map<std::string, int> votes;
    for (const auto& [id, m] : members_) ++votes[m.vote(candidates)];
    auto best =
        std::max_element(votes.begin(), votes.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    return best->first;
}

void Group::init_next_generation(TimeMs now) {
    ++generation_id;
    if (!members_.empty()) {
        protocol_name = select_protocol();
        subscribed_topics_ = compute_subscribed_topics();
        transition_to(GroupState::completing_rebalance, now);
    } else {
        protocol_name.reset();
        subscribed_topics_ = compute_subscribed_topics();
        transition_to(GroupState::empty, now);
    }
    pending_sync_members_.clear();
}

std::vector<JoinMember> Group::current_member_metadata() const {
    std::vector<JoinMember> out;
    out.reserve(members_.size());
    for (const auto& [id, m] : members_) {
        const auto* md = protocol_name ? m.metadata(*protocol_name) : nullptr;
        out.push_back({id, m.group_instance_id, md ? *md : wire::Bytes{}});
    }
    return out;
}

std::optional<std::set<std::string>> Group::compute_subscribed_topics() const {
    if (protocol_type != kConsumerProtocolType) return std::nullopt;
    if (members_.empty()) return std::set<std::string>{};
    if (!protocol_name) return std::nullopt;
    std::set<std::string> topics;
    try {
        for (const auto& [id, m] : members_) {
            const auto* md = m.metadata(*protocol_name);
            if (!md) return std::nullopt;
            // Every consumer protocol version starts with the v0 layout.
            wire::Reader r(*md);
            r.int16();
            auto sub = msg::ConsumerProtocolSubscription::decode(r, 0);
            topics.insert(sub.topics.begin(), sub.topics.end());
        }
    } catch (const wire::DecodeError&) {
        return std::nullopt;
    }
    return topics;
}

msg::GroupMetadataValue Group::to_record(const std::map<std::string, wire::Bytes>* assignment) const {
    msg::GroupMetadataValue v;
    v.protocol_type = protocol_type.value_or("");
    v.generation = generation_id;
    v.protocol = protocol_name;
    v.leader = leader_;
    v.current_state_timestamp = state_timestamp_.value_or(-1);
    for (const auto& [id, m] : members_) {
        msg::GroupMetadataValue::MemberMetadata mm;
        mm.member_id = id;
        mm.group_instance_id = m.group_instance_id;
        mm.client_id = m.client_id;
        mm.client_host = m.client_host;
        mm.rebalance_timeout = m.rebalance_timeout_ms;
        mm.session_timeout = m.session_timeout_ms;
        if (protocol_name)
            if (const auto* md = m.metadata(*protocol_name)) mm.subscription = *md;
        if (assignment) {
            auto it = assignment->find(id);
            if (it != assignment->end()) mm.assignment = it->second;
        } else {
            mm.assignment = m.assignment;
        }
        v.members.push_back(std::move(mm));
    }
    return v;
}

GroupSummary Group::summary() const {
    GroupSummary s;
    s.state = std::string(state_name(state_));
    s.protocol_type = protocol_type.value_or("");
    bool stable = is(GroupState::stable) && protocol_name;
    if (stable) s.protocol = *protocol_name;
    for (const auto& [id, m] : members_) {
        MemberSummary ms{id, m.group_instance_id, m.client_id, m.client_host, {}, {}};
        if (stable) {
            if (const auto* md = m.metadata(*protocol_name)) ms.metadata = *md;
            ms.assignment = m.assignment;
        }
        s.members.push_back(std::move(ms));
    }
    return s;
}

GroupOverview Group::overview() const { return {id_, protocol_type.value_or(""), state_}; }

const OffsetAndMetadata* Group::offset(const TopicPartition& tp) const {
    auto it = offsets_.find(tp);
    return it == offsets_.end() ? nullptr : &it->second;
}

bool Group::has_pending_offset_commit(const TopicPartition& tp) const {
    if (pending_commits_.contains(tp)) return true;
    return std::ranges::any_of(pending_txn_offsets_, [&](const auto& entry) { return entry.second.contains(tp); });
}

void Group::add_pending_txn_offsets(std::int64_t producer_id,
                                    const std::map<TopicPartition, OffsetAndMetadata>& offsets) {
    auto& pending = pending_txn_offsets_[producer_id];
    for (const auto& [tp, o] : offsets) pending[tp] = o;
}

void Group::complete_txn_offsets(std::int64_t producer_id, bool commit) {
    auto node = pending_txn_offsets_.extract(producer_id);
    if (node.empty() || !commit) return;
    for (auto& [tp, o] : node.mapped()) store_offset(tp, std::move(o));
}

void Group::store_offset(const TopicPartition& tp, OffsetAndMetadata value) {
    auto [it, inserted] = offsets_.try_emplace(tp, value);
    if (!inserted && it->second.superseded_by(value)) it->second = std::move(value);
}

void Group::prepare_offset_commit(const std::vector<TopicPartition>& tps) {
    for (const auto& tp : tps) ++pending_commits_[tp];
}

void Group::complete_offset_commit(const TopicPartition& tp, const OffsetAndMetadata* value) {
    auto it = pending_commits_.find(tp);
    if (it == pending_commits_.end()) return;  // removed meanwhile (deleted topic or group)
    if (--it->second <= 0) pending_commits_.erase(it);
    if (value) store_offset(tp, *value);
}

std::vector<TopicPartition> Group::remove_offsets(const std::vector<TopicPartition>& tps) {
    std::vector<TopicPartition> removed;
    for (const auto& tp : tps) {
        pending_commits_.erase(tp);
        for (auto& [producer_id, pending] : pending_txn_offsets_) pending.erase(tp);
        if (offsets_.erase(tp) > 0) removed.push_back(tp);
    }
    std::erase_if(pending_txn_offsets_, [](const auto& entry) { return entry.second.empty(); });
    return removed;
}

std::vector<TopicPartition> Group::remove_all_offsets() {
    std::vector<TopicPartition> all;
    for (const auto& [tp, o] : offsets_) all.push_back(tp);
    for (const auto& [tp, n] : pending_commits_) all.push_back(tp);
    return remove_offsets(all);
}

std::vector<TopicPartition> Group::remove_expired_offsets(TimeMs now, std::int64_t retention_ms) {
    // Which clock an offset's age is measured from, and which topics are exempt:
    // - Empty group (with a protocol type): since the group became empty;
    // - Stable consumer group knowing its subscriptions: since the commit, for
    //   topics nobody subscribes to any more;
    // - no protocol type (offsets only, "simple" consumers): since the commit;
    // - anything else: never.
    enum class Base { state_change, commit };
    std::optional<Base> base;
    const std::set<std::string>* exempt = nullptr;
    if (protocol_type && is(GroupState::empty)) {
        base = Base::state_change;
    } else if (is_consumer_group() && subscribed_topics_ && is(GroupState::stable)) {
        base = Base::commit;
        exempt = &*subscribed_topics_;
    } else if (!protocol_type) {
        base = Base::commit;
    }
    if (!base) return {};
    std::vector<TopicPartition> expired;
    for (const auto& [tp, o] : offsets_) {
        if (exempt && exempt->contains(tp.topic)) continue;
        if (pending_commits_.contains(tp)) continue;
        bool gone = false;
        if (o.expire_timestamp) {
            gone = now >= *o.expire_timestamp;
        } else {
            TimeMs from =
                *base == Base::state_change ? state_timestamp_.value_or(o.commit_timestamp) : o.commit_timestamp;
            gone = now - from >= retention_ms;
        }
        if (gone) expired.push_back(tp);
    }
    for (const auto& tp : expired) offsets_.erase(tp);
    return expired;
}

}  // namespace weir::coordinator
