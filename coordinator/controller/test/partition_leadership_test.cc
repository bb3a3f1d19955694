#include "coordinator/controller/partition_leadership.h"

#include <gtest/gtest.h>

namespace weir::controller {
namespace {

using zk::LeaderAndIsr;

PartitionView view(std::optional<LeaderAndIsr> current, std::set<std::int32_t> live, bool unclean = false) {
    return PartitionView{{1, 2, 3}, std::move(current), std::move(live), unclean, 5};
}

TEST(PartitionLeadership, NewPartitionLedByFirstLiveReplica) {
    EXPECT_EQ(next_partition_state(view(std::nullopt, {1, 2, 3})), (LeaderAndIsr{1, 0, {1, 2, 3}, 5}));
    EXPECT_EQ(next_partition_state(view(std::nullopt, {2, 3})), (LeaderAndIsr{2, 0, {2, 3}, 5}));
    EXPECT_FALSE(next_partition_state(view(std::nullopt, {4})));
}

TEST(PartitionLeadership, HealthyPartitionIsLeftAlone) {
    EXPECT_FALSE(next_partition_state(view(LeaderAndIsr{2, 7, {2, 3}, 1}, {1, 2, 3})));
}

TEST(PartitionLeadership, LeaderLossElectsFromIsrInReplicaOrder) {
    // Replica 1 is preferred but out of sync: 3 is, and leads.
    EXPECT_EQ(next_partition_state(view(LeaderAndIsr{2, 7, {2, 3}, 1}, {1, 3})), (LeaderAndIsr{3, 8, {3}, 5}));
    EXPECT_EQ(next_partition_state(view(LeaderAndIsr{1, 7, {1, 2, 3}, 1}, {2, 3})), (LeaderAndIsr{2, 8, {2, 3}, 5}));
}

TEST(PartitionLeadership, FollowerLossShrinksIsr) {
    EXPECT_EQ(next_partition_state(view(LeaderAndIsr{1, 7, {1, 2, 3}, 1}, {1, 3})), (LeaderAndIsr{1, 8, {1, 3}, 5}));
}

TEST(PartitionLeadership, NoInSyncReplicaLeavesPartitionOfflineUntilOneReturns) {
    // Only 1 was in sync and it is gone: 2 and 3 may miss committed messages.
    auto offline = next_partition_state(view(LeaderAndIsr{1, 7, {1}, 1}, {2, 3}));
    EXPECT_EQ(offline, (LeaderAndIsr{-1, 8, {1}, 5}));
    // Recorded once; nothing more to write while 1 stays away.
    EXPECT_FALSE(next_partition_state(view(offline, {2, 3})));
    // 1 returns and leads again.
    EXPECT_EQ(next_partition_state(view(offline, {1, 2, 3})), (LeaderAndIsr{1, 9, {1}, 5}));
}

TEST(PartitionLeadership, UncleanElectionTakesAnyLiveReplica) {
    EXPECT_EQ(next_partition_state(view(LeaderAndIsr{1, 7, {1}, 1}, {2, 3}, true)), (LeaderAndIsr{2, 8, {2}, 5}));
    EXPECT_EQ(next_partition_state(view(LeaderAndIsr{1, 7, {1}, 1}, {}, true)), (LeaderAndIsr{-1, 8, {1}, 5}));
}

}  // namespace
}  // namespace weir::controller
