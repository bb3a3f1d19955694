#include "broker/controller/partition_leadership.h"

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

TEST(PartitionLeadership, PreferredReplicaLeadsAgainWhenInSync) {
    EXPECT_EQ(preferred_leader_state(view(LeaderAndIsr{2, 7, {2, 3, 1}, 1}, {1, 2, 3})),
              (LeaderAndIsr{1, 8, {2, 3, 1}, 5}));
    EXPECT_FALSE(preferred_leader_state(view(LeaderAndIsr{2, 7, {2, 3}, 1}, {1, 2, 3})));  // not in sync yet
    EXPECT_FALSE(preferred_leader_state(view(LeaderAndIsr{2, 7, {2, 3, 1}, 1}, {2, 3})));  // not live
    EXPECT_FALSE(preferred_leader_state(view(LeaderAndIsr{1, 7, {1, 2}, 1}, {1, 2, 3})));  // leads already
}

TEST(PartitionLeadership, RebalanceOnlyAboveTheImbalanceThreshold) {
    metadata::MetadataSnapshot cluster;
    for (int id = 1; id <= 3; ++id) cluster.brokers.push_back({id, {{"PLAINTEXT", "h", 9000 + id}}, std::nullopt});
    auto topic = std::make_shared<metadata::TopicInfo>();
    topic->name = "t";
    // Broker 1 prefers 10 partitions; 1 of them (10%) is led elsewhere.
    for (int p = 0; p < 10; ++p) {
        metadata::PartitionInfo part;
        part.partition = p;
        part.replicas = {1, 2, 3};
        part.isr = {1, 2, 3};
        part.leader = p == 0 ? 2 : 1;
        topic->partitions.push_back(part);
    }
    cluster.topics_by_name["t"] = topic;
    EXPECT_TRUE(preferred_leader_elections(cluster, 10).empty());
    // Two of ten (20%): both move back.
    topic->partitions[1].leader = 3;
    EXPECT_EQ(preferred_leader_elections(cluster, 10), (std::vector<TopicPartition>{{"t", 0}, {"t", 1}}));
    // One not in sync stays where it is; the imbalance still counts it.
    topic->partitions[1].isr = {2, 3};
    EXPECT_EQ(preferred_leader_elections(cluster, 10), (std::vector<TopicPartition>{{"t", 0}}));
}

TEST(PartitionLeadership, TopicsWithoutALiveLeaderComeFirst) {
    metadata::MetadataSnapshot cluster;
    auto led_by = [&](const std::string& name, std::vector<std::int32_t> leaders) {
        auto topic = std::make_shared<metadata::TopicInfo>();
        topic->name = name;
        for (std::size_t p = 0; p < leaders.size(); ++p) {
            metadata::PartitionInfo part;
            part.partition = static_cast<std::int32_t>(p);
            part.replicas = {1, 2, 3};
            part.leader = leaders[p];
            topic->partitions.push_back(part);
        }
        cluster.topics_by_name[name] = topic;
    };
    led_by("a", {1, 2});
    led_by("b", {1, 3});  // broker 3 is gone
    led_by("c", {2, 1});
    led_by("d", {-1, 1});  // offline
    const std::set<std::int32_t> live{1, 2};
    // "e" is not shown yet: it has no leader either.
    EXPECT_EQ(leaderless_first({"a", "b", "c", "d", "e"}, cluster, live),
              (std::vector<std::string>{"b", "d", "e", "a", "c"}));
    EXPECT_EQ(leaderless_first({"a", "c"}, cluster, live), (std::vector<std::string>{"a", "c"}));
}

}  // namespace
}  // namespace weir::controller
