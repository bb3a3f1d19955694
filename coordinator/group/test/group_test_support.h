#pragma once
// A GroupManager driven by a fake clock, collecting what it answers.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "coordinator/group/group_manager.h"
#include "messages/consumer_protocol.h"
#include "protocol/wire/writer.h"

namespace weir::coordinator::test {

// Consumer protocol subscription metadata (version 0) for `topics`.
inline wire::Bytes subscription(const std::vector<std::string>& topics) {
    msg::ConsumerProtocolSubscription s;
    s.topics = topics;
    wire::Bytes out;
    out.reserve(64);  // (an empty vector trips GCC 12's -Wstringop-overflow)
    wire::Writer w(out);
    w.int16(0);
    s.encode(w, 0);
    return out;
}

inline wire::Bytes bytes(std::string_view s) { return {s.begin(), s.end()}; }

class GroupManagerTest : public ::testing::Test {
protected:
    static GroupConfig default_config() {
        GroupConfig c;
        c.min_session_timeout_ms = 1000;
        c.max_session_timeout_ms = 60000;
        c.initial_rebalance_delay_ms = 3000;
        return c;
    }

    explicit GroupManagerTest(GroupConfig config = default_config())
        : mgr_(config, [this](std::string_view prefix) { return std::string(prefix) + "-" + std::to_string(++ids_); }) {
    }

    JoinRequest join_request(std::string member_id = "", std::optional<std::string> instance = std::nullopt,
                             std::vector<Protocol> protocols = {}) {
        JoinRequest r;
        r.group_id = "g";
        r.member_id = std::move(member_id);
        r.group_instance_id = std::move(instance);
        r.client_id = "client";
        r.client_host = "/127.0.0.1";
        r.session_timeout_ms = 10000;
        r.rebalance_timeout_ms = 20000;
        r.protocol_type = "consumer";
        r.protocols = protocols.empty() ? std::vector<Protocol>{{"range", subscription({"t"})}} : std::move(protocols);
        return r;
    }

    RequestId join(JoinRequest r) {
        auto id = next_id_++;
        Effects fx;
        mgr_.join(now_, id, std::move(r), fx);
        absorb(std::move(fx));
        return id;
    }

    RequestId sync(const std::string& member_id, std::int32_t generation,
                   std::vector<std::pair<std::string, wire::Bytes>> assignments = {},
                   std::optional<std::string> instance = std::nullopt) {
        SyncRequest r;
        r.group_id = "g";
        r.member_id = member_id;
        r.generation_id = generation;
        r.group_instance_id = std::move(instance);
        r.assignments = std::move(assignments);
        auto id = next_id_++;
        Effects fx;
        mgr_.sync(now_, id, std::move(r), fx);
        absorb(std::move(fx));
        return id;
    }

    ErrorCode heartbeat(const std::string& member_id, std::int32_t generation,
                        std::optional<std::string> instance = std::nullopt) {
        return mgr_.heartbeat(now_, "g", generation, member_id, instance);
    }

    LeaveResult leave(std::vector<LeaveMember> members) {
        Effects fx;
        auto r = mgr_.leave(now_, "g", members, fx);
        absorb(std::move(fx));
        return r;
    }

    void advance(TimeMs ms) {
        now_ += ms;
        Effects fx;
        mgr_.advance(now_, fx);
        absorb(std::move(fx));
    }

    // Kafka's InitialDelayedJoin restarts its delay while new members arrive,
    // so members joining together wait two delays.
    void finish_initial_join() {
        for (int i = 0; i < 10 && state() == GroupState::preparing_rebalance; ++i)
            advance(mgr_.config().initial_rebalance_delay_ms);
    }

    void absorb(Effects fx) {
        for (auto& line : fx.logged) {
            EXPECT_EQ(line.group_id, "g");
            logged_.push_back(std::move(line.text));
        }
        for (auto& [id, r] : fx.joins) {
            EXPECT_FALSE(joins_.contains(id)) << "join " << id << " answered twice";
            joins_[id] = std::move(r);
        }
        for (auto& [id, r] : fx.syncs) {
            EXPECT_FALSE(syncs_.contains(id)) << "sync " << id << " answered twice";
            syncs_[id] = std::move(r);
        }
        for (auto& s : fx.stores) {
            stored_.push_back(s);
            if (auto_store_) {
                Effects more;
                mgr_.on_store_complete(now_, s.store_id, ErrorCode::none, more);
                absorb(std::move(more));
            } else {
                pending_stores_.push_back(s.store_id);
            }
        }
    }

    void complete_store(std::uint64_t store_id, ErrorCode error) {
        Effects fx;
        mgr_.on_store_complete(now_, store_id, error, fx);
        absorb(std::move(fx));
    }

    bool answered(RequestId id) const { return joins_.contains(id) || syncs_.contains(id); }
    const JoinResult& join_result(RequestId id) {
        EXPECT_TRUE(joins_.contains(id)) << "join " << id << " not answered";
        return joins_[id];
    }
    const SyncResult& sync_result(RequestId id) {
        EXPECT_TRUE(syncs_.contains(id)) << "sync " << id << " not answered";
        return syncs_[id];
    }
    GroupState state() const {
        const auto* g = mgr_.find("g");
        return g ? g->state() : GroupState::dead;
    }
    const Group& group() const { return *mgr_.find("g"); }

    // A dynamic member through the KIP-394 handshake; returns its parked JoinGroup.
    RequestId join_new(std::string& member_id, std::vector<Protocol> protocols = {}) {
        auto r = join_request("", std::nullopt, protocols);
        r.require_known_member_id = true;
        auto first = join(r);
        EXPECT_EQ(join_result(first).error, ErrorCode::member_id_required);
        member_id = join_result(first).member_id;
        r.member_id = member_id;
        return join(r);
    }

    // A Stable group with the given dynamic members (the first leads).
    std::vector<std::string> stable_group(int members) {
        std::vector<std::string> ids(static_cast<std::size_t>(members));
        std::vector<RequestId> requests;
        for (auto& id : ids) requests.push_back(join_new(id));
        finish_initial_join();
        for (auto r : requests) EXPECT_EQ(join_result(r).error, ErrorCode::none);
        auto generation = group().generation_id;
        std::vector<std::pair<std::string, wire::Bytes>> assignment;
        for (const auto& id : ids) assignment.emplace_back(id, bytes("assignment-" + id));
        std::vector<RequestId> syncs;
        for (std::size_t i = 1; i < ids.size(); ++i) syncs.push_back(sync(ids[i], generation));
        syncs.push_back(sync(ids[0], generation, assignment));
        for (auto s : syncs) EXPECT_EQ(sync_result(s).error, ErrorCode::none);
        EXPECT_EQ(state(), GroupState::stable);
        return ids;
    }

    TimeMs now_ = 1'700'000'000'000;
    int ids_ = 0;
    RequestId next_id_ = 1;
    GroupManager mgr_;
    bool auto_store_ = true;
    std::map<RequestId, JoinResult> joins_;
    std::map<RequestId, SyncResult> syncs_;
    std::vector<StoreGroupRequest> stored_;
    std::vector<std::uint64_t> pending_stores_;
    std::vector<std::string> logged_;  // the texts of Effects::logged, in order
};

}  // namespace weir::coordinator::test
