// KIP-345 static membership: restarts without rebalances, fencing.
#include "coordinator/group/test/group_test_support.h"

namespace weir::coordinator::test {
namespace {

using S = GroupState;

class StaticMembershipTest : public GroupManagerTest {
protected:
    // Two static members, Stable; returns their member ids (leader first).
    std::pair<std::string, std::string> stable_static_group() {
        auto ja = join(join_request("", "a"));
        auto jb = join(join_request("", "b"));
        finish_initial_join();
        auto a = join_result(ja).member_id;
        auto b = join_result(jb).member_id;
        auto gen = join_result(ja).generation_id;
        EXPECT_EQ(join_result(ja).leader, a);
        auto sb = sync(b, gen, {}, "b");
        sync(a, gen, {{a, bytes("A")}, {b, bytes("B")}}, "a");
        EXPECT_EQ(sync_result(sb).assignment, bytes("B"));
        EXPECT_EQ(state(), S::stable);
        return {a, b};
    }
};

TEST_F(StaticMembershipTest, RestartedMemberGetsItsAssignmentBackWithoutRebalance) {
    auto [a, b] = stable_static_group();
    auto gen = group().generation_id;
    stored_.clear();
    auto rejoin = join(join_request("", "b"));  // b restarted: it lost its member id
    const auto& r = join_result(rejoin);
    EXPECT_EQ(r.error, ErrorCode::none);
    EXPECT_NE(r.member_id, b);
    EXPECT_EQ(r.member_id.rfind("b-", 0), 0u);  // instance id + "-" + uuid
    EXPECT_EQ(r.generation_id, gen);
    EXPECT_EQ(r.leader, a);
    EXPECT_EQ(state(), S::stable);
    ASSERT_EQ(stored_.size(), 1u);  // the new member id is persisted
    auto new_b = r.member_id;
    EXPECT_EQ(sync_result(sync(new_b, gen, {}, "b")).assignment, bytes("B"));
    // The old id is fenced.
    EXPECT_EQ(heartbeat(b, gen, "b"), ErrorCode::fenced_instance_id);
    EXPECT_EQ(heartbeat(new_b, gen, "b"), ErrorCode::none);
    EXPECT_EQ(mgr_.validate_offset_commit(now_, "g", b, std::string("b"), gen), ErrorCode::fenced_instance_id);
}

TEST_F(StaticMembershipTest, RestartedLeaderIsNotToldItLeadsBeforeV9) {
    auto [a, b] = stable_static_group();
    auto rejoin = join(join_request("", "a"));
    const auto& r = join_result(rejoin);
    EXPECT_NE(r.member_id, a);
    EXPECT_EQ(r.leader, a);  // the old id: the new member does not run the assignor
    EXPECT_TRUE(r.members.empty());
    EXPECT_FALSE(r.skip_assignment);
    EXPECT_TRUE(group().is_leader(r.member_id));
}

TEST_F(StaticMembershipTest, RestartedLeaderSkipsAssignmentFromV9) {
    stable_static_group();
    auto req = join_request("", "a");
    req.support_skip_assignment = true;
    const auto& r = join_result(join(req));
    EXPECT_EQ(r.leader, r.member_id);
    EXPECT_TRUE(r.skip_assignment);
    EXPECT_EQ(r.members.size(), 2u);
}

TEST_F(StaticMembershipTest, StaticMembersSurviveTheRebalanceTimeoutButNotTheirSession) {
    auto [a, b] = stable_static_group();
    auto gen = group().generation_id;
    auto ja = join(join_request(a, "a"));  // leader rejoin: rebalance
    for (int i = 0; i < 2; ++i) {
        advance(9000);
        EXPECT_EQ(heartbeat(b, gen, "b"), ErrorCode::rebalance_in_progress);  // alive, but does not rejoin
    }
    EXPECT_FALSE(answered(ja));
    advance(2000);  // rebalance timeout: b stays (static), generation moves on
    EXPECT_EQ(join_result(ja).generation_id, gen + 1);
    EXPECT_TRUE(group().has(b));
    EXPECT_EQ(join_result(ja).members.size(), 2u);
    // b never syncs nor heartbeats: its session ends it.
    sync(a, gen + 1, {});
    for (int i = 0; i < 4; ++i) {
        advance(3000);
        heartbeat(a, gen + 1, "a");
    }
    EXPECT_FALSE(group().has(b));
}

TEST_F(StaticMembershipTest, JoinWithStaleMemberIdIsFenced) {
    auto [a, b] = stable_static_group();
    auto rejoin = join(join_request("", "b"));
    auto new_b = join_result(rejoin).member_id;
    EXPECT_EQ(join_result(join(join_request(b, "b"))).error, ErrorCode::fenced_instance_id);
    EXPECT_EQ(join_result(join(join_request(new_b, "zzz"))).error, ErrorCode::unknown_member_id);
}

TEST_F(StaticMembershipTest, CompatibleProtocolChangeOfRestartedMemberDoesNotRebalance) {
    stable_static_group();
    auto req = join_request("", "b", {{"roundrobin", {}}, {"range", subscription({"t"})}});
    // Candidates stay {range} (a only supports range): no protocol change, no rebalance.
    join(req);
    EXPECT_EQ(state(), S::stable);
}

TEST_F(StaticMembershipTest, FailedPersistKeepsTheOldMemberId) {
    auto [a, b] = stable_static_group();
    auto gen = group().generation_id;
    auto_store_ = false;
    auto rejoin = join(join_request("", "b"));
    EXPECT_FALSE(answered(rejoin));
    ASSERT_EQ(pending_stores_.size(), 1u);
    complete_store(pending_stores_[0], ErrorCode::not_coordinator);
    EXPECT_EQ(join_result(rejoin).error, ErrorCode::not_coordinator);
    EXPECT_EQ(join_result(rejoin).member_id, "");
    EXPECT_EQ(heartbeat(b, gen, "b"), ErrorCode::none);
}

}  // namespace
}  // namespace weir::coordinator::test
