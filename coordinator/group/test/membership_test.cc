// The classic group state machine: joins, rebalances, syncs, heartbeats,
// leaves and their timeouts, on a fake clock.
#include "coordinator/group/test/group_test_support.h"

namespace weir::coordinator::test {
namespace {

using S = GroupState;

TEST_F(GroupManagerTest, NewMemberV4GetsItsIdFirst) {
    auto r = join_request();
    r.require_known_member_id = true;
    auto id = join(r);
    const auto& result = join_result(id);
    EXPECT_EQ(result.error, ErrorCode::member_id_required);
    EXPECT_EQ(result.member_id, "client-1");
    EXPECT_EQ(state(), S::empty);
    EXPECT_TRUE(group().is_pending_member("client-1"));
}

TEST_F(GroupManagerTest, FirstMemberWaitsForTheInitialDelay) {
    auto id = join(join_request());  // pre-v4: no member id round trip
    EXPECT_FALSE(answered(id));
    EXPECT_EQ(state(), S::preparing_rebalance);
    advance(2999);
    EXPECT_FALSE(answered(id));
    advance(1);
    const auto& r = join_result(id);
    EXPECT_EQ(r.error, ErrorCode::none);
    EXPECT_EQ(r.generation_id, 1);
    EXPECT_EQ(r.leader, r.member_id);
    EXPECT_EQ(r.protocol_name, "range");
    EXPECT_EQ(r.protocol_type, "consumer");
    ASSERT_EQ(r.members.size(), 1u);
    EXPECT_EQ(r.members[0].metadata, subscription({"t"}));
    EXPECT_EQ(state(), S::completing_rebalance);
}

TEST_F(GroupManagerTest, InitialDelayIsExtendedWhileMembersKeepJoining) {
    std::string a;
    std::string b;
    auto ja = join_new(a);
    advance(2000);
    auto jb = join_new(b);
    advance(1000);  // first deadline: a member was added, wait another delay
    EXPECT_FALSE(answered(ja));
    advance(2999);
    EXPECT_FALSE(answered(jb));
    advance(1);
    EXPECT_EQ(join_result(ja).generation_id, 1);
    EXPECT_EQ(join_result(jb).generation_id, 1);
    EXPECT_EQ(join_result(ja).members.size(), 2u);  // the leader sees everyone
    EXPECT_TRUE(join_result(jb).members.empty());
}

TEST_F(GroupManagerTest, InitialDelayExtensionsStopAtTheRebalanceTimeout) {
    // rebalance timeout 20 s, delay 3 s: at most 17 s of extensions.
    std::string first;
    auto j = join_new(first);
    TimeMs waited = 0;
    for (int i = 0; i < 20 && !answered(j); ++i) {
        std::string another;
        join_new(another);
        advance(3000);
        waited += 3000;
    }
    ASSERT_TRUE(answered(j));
    EXPECT_LE(waited, 21000);
    EXPECT_GE(waited, 18000);
}

TEST_F(GroupManagerTest, ZeroInitialDelayCompletesAtOnce) {
    GroupConfig c = default_config();
    c.initial_rebalance_delay_ms = 0;
    GroupManager mgr(c, [](std::string_view p) { return std::string(p) + "-x"; });
    auto r = join_request();
    Effects fx;
    mgr.join(now_, 1, r, fx);
    EXPECT_TRUE(fx.joins.empty());
    mgr.advance(now_, fx);
    ASSERT_EQ(fx.joins.size(), 1u);
    EXPECT_EQ(fx.joins[0].second.generation_id, 1);
}

TEST_F(GroupManagerTest, SessionTimeoutOutsideBoundsIsRejected) {
    auto r = join_request();
    r.session_timeout_ms = 999;
    EXPECT_EQ(join_result(join(r)).error, ErrorCode::invalid_session_timeout);
    r.session_timeout_ms = 60001;
    EXPECT_EQ(join_result(join(r)).error, ErrorCode::invalid_session_timeout);
    EXPECT_EQ(mgr_.find("g"), nullptr);
}

TEST_F(GroupManagerTest, ProtocolTypeAndProtocolsMustMatchTheGroup) {
    stable_group(1);
    auto other_type = join_request();
    other_type.protocol_type = "connect";
    EXPECT_EQ(join_result(join(other_type)).error, ErrorCode::inconsistent_group_protocol);
    auto no_common = join_request("", std::nullopt, {{"roundrobin", {}}});
    EXPECT_EQ(join_result(join(no_common)).error, ErrorCode::inconsistent_group_protocol);
    auto empty_type = join_request();
    empty_type.protocol_type = "";
    EXPECT_EQ(join_result(join(empty_type)).error, ErrorCode::inconsistent_group_protocol);
}

TEST_F(GroupManagerTest, ProtocolIsVotedAmongThoseAllMembersSupport) {
    std::string a, b, c;
    auto ja = join_new(a, {{"range", {}}, {"roundrobin", {}}, {"sticky", {}}});
    join_new(b, {{"roundrobin", {}}, {"range", {}}, {"sticky", {}}});
    join_new(c, {{"roundrobin", {}}, {"sticky", {}}});
    finish_initial_join();
    // Candidates: roundrobin, sticky; votes: roundrobin x3.
    EXPECT_EQ(join_result(ja).protocol_name, "roundrobin");
}

TEST_F(GroupManagerTest, MembersGetTheLeadersAssignment) {
    std::string a, b, c;
    auto ja = join_new(a);
    auto jb = join_new(b);
    auto jc = join_new(c);
    finish_initial_join();
    ASSERT_EQ(join_result(ja).leader, a);
    auto gen = join_result(jb).generation_id;
    auto sb = sync(b, gen);
    EXPECT_FALSE(answered(sb));                                  // followers wait for the leader
    auto sa = sync(a, gen, {{a, bytes("A")}, {b, bytes("B")}});  // c left out
    auto sc = sync(c, gen);
    EXPECT_EQ(sync_result(sa).assignment, bytes("A"));
    EXPECT_EQ(sync_result(sb).assignment, bytes("B"));
    EXPECT_EQ(sync_result(sc).assignment, wire::Bytes{});
    EXPECT_EQ(sync_result(sb).protocol_name, "range");
    EXPECT_EQ(state(), S::stable);
    (void)jc;
    // The group was persisted with the assignment.
    ASSERT_FALSE(stored_.empty());
    const auto& record = stored_.back().value;
    EXPECT_EQ(record.generation, gen);
    ASSERT_EQ(record.members.size(), 3u);
    for (const auto& m : record.members) {
        if (m.member_id == b) {
            EXPECT_EQ(m.assignment, bytes("B"));
        }
    }
}

TEST_F(GroupManagerTest, SyncChecksMemberGenerationAndProtocol) {
    auto ids = stable_group(2);
    auto gen = group().generation_id;
    EXPECT_EQ(sync_result(sync("nobody", gen)).error, ErrorCode::unknown_member_id);
    EXPECT_EQ(sync_result(sync(ids[1], gen - 1)).error, ErrorCode::illegal_generation);
    SyncRequest r;
    r.group_id = "g";
    r.member_id = ids[1];
    r.generation_id = gen;
    r.protocol_name = "roundrobin";
    Effects fx;
    mgr_.sync(now_, 99, r, fx);
    ASSERT_EQ(fx.syncs.size(), 1u);
    EXPECT_EQ(fx.syncs[0].second.error, ErrorCode::inconsistent_group_protocol);
    // Stable: the current assignment again.
    EXPECT_EQ(sync_result(sync(ids[1], gen)).assignment, bytes("assignment-" + ids[1]));
}

TEST_F(GroupManagerTest, LeaderRejoinForcesRebalanceFollowerRejoinDoesNot) {
    auto ids = stable_group(2);
    auto gen = group().generation_id;
    auto follower = join(join_request(ids[1]));
    EXPECT_EQ(join_result(follower).generation_id, gen);  // same metadata: current generation at once
    EXPECT_EQ(state(), S::stable);
    auto leader = join(join_request(ids[0]));
    EXPECT_EQ(state(), S::preparing_rebalance);
    EXPECT_FALSE(answered(leader));
    EXPECT_EQ(heartbeat(ids[1], gen), ErrorCode::rebalance_in_progress);
    EXPECT_EQ(sync_result(sync(ids[1], gen)).error, ErrorCode::rebalance_in_progress);
    auto rejoin = join(join_request(ids[1]));  // everyone is back: completes without waiting
    EXPECT_EQ(join_result(leader).generation_id, gen + 1);
    EXPECT_EQ(join_result(rejoin).generation_id, gen + 1);
}

TEST_F(GroupManagerTest, HeartbeatAnswersByState) {
    auto ids = stable_group(1);
    auto gen = group().generation_id;
    EXPECT_EQ(heartbeat(ids[0], gen), ErrorCode::none);
    EXPECT_EQ(heartbeat(ids[0], gen + 1), ErrorCode::illegal_generation);
    EXPECT_EQ(heartbeat("stranger", gen), ErrorCode::unknown_member_id);
    EXPECT_EQ(mgr_.heartbeat(now_, "no-such-group", gen, ids[0], std::nullopt), ErrorCode::unknown_member_id);
}

TEST_F(GroupManagerTest, ExpiredSessionRemovesTheMemberAndRebalances) {
    auto ids = stable_group(2);
    auto gen = group().generation_id;
    for (int i = 0; i < 3; ++i) {
        advance(3000);
        EXPECT_EQ(heartbeat(ids[0], gen), ErrorCode::none);
    }
    EXPECT_TRUE(group().has(ids[1]));
    advance(2000);
    // ids[1] last showed life at its SyncGroup, 11 s ago (> 10 s session).
    EXPECT_FALSE(group().has(ids[1]));
    EXPECT_EQ(state(), S::preparing_rebalance);
    EXPECT_EQ(heartbeat(ids[0], gen), ErrorCode::rebalance_in_progress);
    auto j = join(join_request(ids[0]));
    EXPECT_EQ(join_result(j).generation_id, gen + 1);
    EXPECT_EQ(join_result(j).members.size(), 1u);
}

TEST_F(GroupManagerTest, MembersNotRejoiningWithinTheRebalanceTimeoutAreRemoved) {
    auto ids = stable_group(3);
    auto gen = group().generation_id;
    auto j0 = join(join_request(ids[0]));
    auto j1 = join(join_request(ids[1]));
    // ids[2] keeps heartbeating (it is alive) but never rejoins: max.poll.interval.ms exceeded.
    for (int i = 0; i < 6; ++i) {
        advance(3000);
        EXPECT_EQ(heartbeat(ids[2], gen), ErrorCode::rebalance_in_progress);
    }
    EXPECT_FALSE(answered(j0));
    advance(2000);  // 20 s rebalance timeout
    EXPECT_EQ(join_result(j0).generation_id, gen + 1);
    EXPECT_EQ(join_result(j0).members.size(), 2u);
    EXPECT_EQ(join_result(j1).error, ErrorCode::none);
    EXPECT_FALSE(group().has(ids[2]));
    EXPECT_EQ(heartbeat(ids[2], gen), ErrorCode::unknown_member_id);
}

TEST_F(GroupManagerTest, LeavingMemberTriggersRebalance) {
    auto ids = stable_group(2);
    auto result = leave({{ids[1], std::nullopt}});
    EXPECT_EQ(result.error, ErrorCode::none);
    ASSERT_EQ(result.members.size(), 1u);
    EXPECT_EQ(result.members[0], ErrorCode::none);
    EXPECT_EQ(state(), S::preparing_rebalance);
    EXPECT_EQ(leave({{"stranger", std::nullopt}}).members[0], ErrorCode::unknown_member_id);
}

TEST_F(GroupManagerTest, LastMemberLeavingEmptiesTheGroup) {
    auto ids = stable_group(1);
    auto gen = group().generation_id;
    stored_.clear();
    leave({{ids[0], std::nullopt}});
    // PreparingRebalance completes at once (nobody to wait for) into Empty.
    EXPECT_EQ(state(), S::empty);
    EXPECT_EQ(group().generation_id, gen + 1);
    ASSERT_EQ(stored_.size(), 1u);
    EXPECT_TRUE(stored_[0].value.members.empty());
    EXPECT_FALSE(stored_[0].value.protocol.has_value());
}

TEST_F(GroupManagerTest, BatchedLeaveByInstanceId) {
    auto a = join_request("", "instance-a");
    auto b = join_request("", "instance-b");
    auto ja = join(a);
    auto jb = join(b);
    finish_initial_join();
    auto gen = join_result(ja).generation_id;
    sync(join_result(jb).member_id, gen);
    sync(join_result(ja).member_id, gen, {});
    ASSERT_EQ(state(), S::stable);
    auto result = leave({{"", std::string("instance-b")}, {"", std::string("instance-zzz")}});
    EXPECT_EQ(result.members, (std::vector<ErrorCode>{ErrorCode::none, ErrorCode::unknown_member_id}));
    EXPECT_FALSE(group().has(join_result(jb).member_id));
}

TEST_F(GroupManagerTest, GroupMaxSizeIsEnforced) {
    GroupConfig c = default_config();
    c.max_size = 2;
    GroupManager mgr(c, [n = 0](std::string_view p) mutable { return std::string(p) + "-" + std::to_string(++n); });
    Effects fx;
    mgr.join(now_, 1, join_request(), fx);
    mgr.join(now_, 2, join_request(), fx);
    mgr.join(now_, 3, join_request(), fx);
    ASSERT_EQ(fx.joins.size(), 1u);
    EXPECT_EQ(fx.joins[0].first, 3u);
    EXPECT_EQ(fx.joins[0].second.error, ErrorCode::group_max_size_reached);
    EXPECT_EQ(mgr.find("g")->size(), 2u);
}

TEST_F(GroupManagerTest, PendingMemberThatNeverRejoinsExpires) {
    auto r = join_request();
    r.require_known_member_id = true;
    auto first = join(r);
    auto member_id = join_result(first).member_id;
    advance(10000);
    EXPECT_FALSE(group().is_pending_member(member_id));
    r.member_id = member_id;
    EXPECT_EQ(join_result(join(r)).error, ErrorCode::unknown_member_id);
}

TEST_F(GroupManagerTest, PendingMemberHoldsUpTheRebalanceUntilItJoinsOrExpires) {
    auto ids = stable_group(1);
    auto gen = group().generation_id;
    auto r = join_request();
    r.require_known_member_id = true;
    join(r);  // pending
    auto rejoin = join(join_request(ids[0]));
    EXPECT_EQ(state(), S::preparing_rebalance);  // the leader rejoined; the pending member has not
    EXPECT_FALSE(answered(rejoin));
    advance(10000);  // pending member's session timeout
    EXPECT_EQ(join_result(rejoin).generation_id, gen + 1);
}

TEST_F(GroupManagerTest, MemberThatNeverSyncsIsRemoved) {
    std::string a, b;
    auto ja = join_new(a);
    join_new(b);
    finish_initial_join();
    auto gen = join_result(ja).generation_id;
    auto sa = sync(a, gen, {{a, bytes("A")}, {b, bytes("B")}});
    EXPECT_EQ(sync_result(sa).error, ErrorCode::none);
    // b got its JoinGroup response and heartbeats, but never sends SyncGroup.
    for (int i = 0; i < 4; ++i) {
        EXPECT_TRUE(group().has(b));
        advance(5000);  // the last step reaches the 20 s rebalance timeout
        heartbeat(a, gen);
        heartbeat(b, gen);
    }
    EXPECT_FALSE(group().has(b));
    EXPECT_EQ(state(), S::preparing_rebalance);
}

TEST_F(GroupManagerTest, NewMemberJoinIsBoundedWhileTheGroupWaitsForOthers) {
    auto ids = stable_group(1);
    auto gen = group().generation_id;
    // The existing member has a 10 minute rebalance timeout and never rejoins.
    auto slow = join_request(ids[0]);
    slow.rebalance_timeout_ms = 600000;
    join(slow);  // rejoin with the long timeout: completes immediately (alone)
    ASSERT_EQ(group().generation_id, gen + 1);
    sync(ids[0], gen + 1, {});
    // A new member joins; ids[0] keeps heartbeating but does not rejoin.
    auto r = join_request();
    auto newcomer = join(r);
    for (int i = 0; i < 110 && !answered(newcomer); ++i) {
        advance(3000);
        heartbeat(ids[0], gen + 1);
    }
    // Removed after 5 minutes (not the 10 minute rebalance timeout).
    ASSERT_TRUE(answered(newcomer));
    EXPECT_EQ(join_result(newcomer).error, ErrorCode::unknown_member_id);
}

TEST_F(GroupManagerTest, RetriedJoinAnswersTheEarlierOne) {
    auto ids = stable_group(2);
    auto first = join(join_request(ids[0]));
    auto second = join(join_request(ids[0]));
    EXPECT_EQ(join_result(first).error, ErrorCode::rebalance_in_progress);
    EXPECT_FALSE(answered(second));
}

TEST_F(GroupManagerTest, FailedStoreFailsTheSyncAndRebalances) {
    auto_store_ = false;
    std::string a, b;
    auto ja = join_new(a);
    join_new(b);
    finish_initial_join();
    auto gen = join_result(ja).generation_id;
    auto sb = sync(b, gen);
    auto sa = sync(a, gen, {{a, bytes("A")}, {b, bytes("B")}});
    ASSERT_EQ(pending_stores_.size(), 1u);
    EXPECT_FALSE(answered(sa));
    complete_store(pending_stores_[0], ErrorCode::not_coordinator);
    EXPECT_EQ(sync_result(sa).error, ErrorCode::not_coordinator);
    EXPECT_EQ(sync_result(sb).error, ErrorCode::not_coordinator);
    EXPECT_TRUE(sync_result(sb).assignment.empty());
    EXPECT_EQ(state(), S::preparing_rebalance);
}

TEST_F(GroupManagerTest, UnloadAnswersParkedRequestsWithNotCoordinator) {
    std::string a;
    auto j = join_new(a);
    Effects fx;
    mgr_.unload_groups([](const std::string&) { return true; }, fx);
    absorb(std::move(fx));
    EXPECT_EQ(join_result(j).error, ErrorCode::not_coordinator);
    EXPECT_EQ(mgr_.find("g"), nullptr);
}

TEST_F(GroupManagerTest, InvalidTransitionsThrow) {
    Group g("x", S::empty, now_);
    EXPECT_THROW(g.transition_to(S::stable, now_), std::logic_error);
    EXPECT_THROW(g.transition_to(S::completing_rebalance, now_), std::logic_error);
    g.transition_to(S::preparing_rebalance, now_);
    g.transition_to(S::completing_rebalance, now_);
    EXPECT_THROW(g.transition_to(S::empty, now_), std::logic_error);
    g.transition_to(S::stable, now_);
    g.transition_to(S::dead, now_);
}

TEST_F(GroupManagerTest, StateNames) {
    EXPECT_EQ(state_name(S::completing_rebalance), "CompletingRebalance");
    EXPECT_EQ(state_name(S::preparing_rebalance), "PreparingRebalance");
    EXPECT_EQ(parse_state("stable"), S::stable);
    EXPECT_EQ(parse_state("Dead"), S::dead);
    EXPECT_FALSE(parse_state("AwaitingSync").has_value());
}

}  // namespace
}  // namespace weir::coordinator::test
