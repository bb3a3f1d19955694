// What the coordinator logs of a group's life, in Kafka's GroupCoordinator's
// words: operators follow rebalances by these lines.
#include "coordinator/group/test/group_test_support.h"

namespace weir::coordinator::test {
namespace {

using Lines = std::vector<std::string>;

TEST_F(GroupManagerTest, RebalancesAndLostMembersAreLogged) {
    auto ids = stable_group(2);
    EXPECT_EQ(logged_, (Lines{
                           "Preparing to rebalance group g in state Empty with old generation 0 (reason: Adding new "
                           "member client-1; client reason: not provided)",
                           "Stabilized group g generation 1 with 2 members",
                           "Assignment received from leader client-1 for group g for generation 1. The group has 2 "
                           "members, 0 of which are static.",
                       }));

    logged_.clear();
    ASSERT_EQ(leave({{ids[1], std::nullopt, "the consumer is being closed"}}).members.at(0), ErrorCode::none);
    EXPECT_EQ(logged_,
              (Lines{
                  "Member client-2 has left group g through explicit `LeaveGroup`; client reason: the consumer is "
                  "being closed",
                  "Preparing to rebalance group g in state Stable with old generation 1 (reason: Removing member "
                  "client-2 on LeaveGroup; client reason: the consumer is being closed)",
              }));

    logged_.clear();
    auto rejoin = join_request(ids[0]);
    rejoin.reason = "rebalance failed due to MemberIdRequiredException";
    EXPECT_EQ(join_result(join(rejoin)).generation_id, 2);
    EXPECT_EQ(sync_result(sync(ids[0], 2, {{ids[0], bytes("a")}})).error, ErrorCode::none);
    EXPECT_EQ(logged_, (Lines{
                           "Stabilized group g generation 2 with 1 members",
                           "Assignment received from leader client-1 for group g for generation 2. The group has 1 "
                           "members, 0 of which are static.",
                       }));

    // The leader's JoinGroup in a Stable group rebalances whatever it sends,
    // and Kafka says so apart from a member's metadata change; the client's
    // reason is kept.
    logged_.clear();
    auto changed = join_request(ids[0], std::nullopt, {{"range", subscription({"t", "u"})}});
    changed.reason = "subscription changed";
    join(changed);
    ASSERT_EQ(logged_.size(), 2u);
    EXPECT_EQ(logged_[0],
              "Preparing to rebalance group g in state Stable with old generation 2 (reason: Leader client-1 "
              "re-joining group during Stable; client reason: subscription changed)");
    EXPECT_EQ(logged_[1], "Stabilized group g generation 3 with 1 members");
    sync(ids[0], 3, {{ids[0], bytes("a")}});

    logged_.clear();
    advance(10000);  // the session timeout, without a heartbeat
    EXPECT_EQ(logged_, (Lines{
                           "Member client-1 in group g has failed, removing it from the group",
                           "Preparing to rebalance group g in state Stable with old generation 3 (reason: removing "
                           "member client-1 on heartbeat expiration)",
                           "Group g with generation 4 is now empty",
                       }));
}

TEST_F(GroupManagerTest, AFollowersChangedMetadataIsLoggedApartFromTheLeadersRejoin) {
    auto ids = stable_group(2);
    ASSERT_TRUE(group().is_leader(ids[0]));

    // A follower rejoining with what it had: no rebalance, nothing logged.
    logged_.clear();
    join(join_request(ids[1]));
    EXPECT_TRUE(logged_.empty());

    // A follower with a new subscription.
    auto changed = join_request(ids[1], std::nullopt, {{"range", subscription({"t", "u"})}});
    changed.reason = "subscription changed";
    join(changed);
    ASSERT_FALSE(logged_.empty());
    EXPECT_EQ(logged_[0],
              "Preparing to rebalance group g in state Stable with old generation 1 (reason: Updating metadata for "
              "member client-2 during Stable; client reason: subscription changed)");
}

TEST_F(GroupManagerTest, MembersThatDoNotRejoinOrSyncInTimeAreLogged) {
    auto ids = stable_group(3);
    // Member 1 rejoins; members 2 and 3 heartbeat but never rejoin within
    // the rebalance timeout (20 s).
    logged_.clear();
    join(join_request(ids[0]));
    for (int i = 0; i < 20; ++i) {
        for (const auto& id : ids) heartbeat(id, 1);
        advance(1000);
    }
    ASSERT_GE(logged_.size(), 3u);
    EXPECT_EQ(logged_[1], "Group g removed dynamic members who haven't joined: [client-2, client-3]");
    EXPECT_EQ(logged_[2], "Stabilized group g generation 2 with 1 members");

    // A generation whose leader never syncs: everyone is out at the deadline.
    logged_.clear();
    for (int i = 0; i < 21 && logged_.empty(); ++i) {
        heartbeat(ids[0], group().generation_id);
        advance(1000);
    }
    ASSERT_FALSE(logged_.empty());
    EXPECT_EQ(logged_[0],
              "Preparing to rebalance group g in state CompletingRebalance with old generation 2 (reason: Removing "
              "[client-1] on pending sync request expiration)");
}

}  // namespace
}  // namespace weir::coordinator::test
