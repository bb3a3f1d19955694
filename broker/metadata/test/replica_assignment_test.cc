#include "broker/metadata/replica_assignment.h"

#include <gtest/gtest.h>

#include <set>

namespace weir::metadata {
namespace {

using Assignment = std::vector<std::vector<std::int32_t>>;

TEST(ReplicaAssignment, MatchesKafkaPlacement) {
    // Kafka's ReplicaAssignmentTest: 5 brokers, 10 partitions, RF 3, start 0.
    auto a = assign_replicas(10, 3, {4, 2, 0, 1, 3}, 0);
    std::vector<std::vector<std::int32_t>> expected = {{0, 1, 2}, {1, 2, 3}, {2, 3, 4}, {3, 4, 0}, {4, 0, 1},
                                                       {0, 2, 3}, {1, 3, 4}, {2, 4, 0}, {3, 0, 1}, {4, 1, 2}};
    EXPECT_EQ(a, expected);
}

TEST(ReplicaAssignment, SingleBrokerAndRandomStart) {
    auto one = assign_replicas(4, 1, {7});
    ASSERT_EQ(one.size(), 4U);
    for (const auto& r : one) EXPECT_EQ(r, std::vector<std::int32_t>{7});
    auto random = assign_replicas(6, 2, {1, 2, 3});
    ASSERT_EQ(random.size(), 6U);
    for (const auto& r : random) {
        ASSERT_EQ(r.size(), 2U);
        EXPECT_NE(r[0], r[1]);
    }
    EXPECT_TRUE(assign_replicas(3, 1, {}).empty());
}

TEST(ReplicaAssignment, ContinuesFromStartPartition) {
    auto all = assign_replicas(10, 3, {0, 1, 2, 3, 4}, 0);
    auto tail = assign_replicas(4, 3, {0, 1, 2, 3, 4}, 0, 6);
    ASSERT_EQ(tail.size(), 4U);
    // Leaders continue the rotation; the follower shift restarts (as in Kafka).
    for (std::size_t i = 0; i < tail.size(); ++i) EXPECT_EQ(tail[i][0], all[6 + i][0]);
}

TEST(ReplicaAssignment, RackAwareAlternatesRacksAsKafkaDoes) {
    // Kafka's AdminRackAwareTest.testGetRackAlternatedBrokerListAndAssignReplicasToBrokers:
    // the alternated list is 0, 3, 1, 5, 4, 2.
    const std::map<std::int32_t, std::string> racks{{0, "rack1"}, {1, "rack3"}, {2, "rack3"},
                                                    {3, "rack2"}, {4, "rack2"}, {5, "rack1"}};
    auto a = assign_replicas_rack_aware(7, 3, racks, 0, 0);
    EXPECT_EQ(a, (Assignment{{0, 3, 1}, {3, 1, 5}, {1, 5, 4}, {5, 4, 2}, {4, 2, 0}, {2, 0, 3}, {0, 4, 2}}));
}

TEST(ReplicaAssignment, RackAwareSpreadsEveryPartitionOverRacks) {
    const std::map<std::int32_t, std::string> racks{{1, "a"}, {2, "a"}, {3, "b"}, {4, "b"}, {5, "c"}, {6, "c"}};
    auto a = assign_replicas_rack_aware(12, 3, racks);
    ASSERT_EQ(a.size(), 12U);
    std::map<std::int32_t, int> leaders;
    for (const auto& replicas : a) {
        std::set<std::string> used;
        std::set<std::int32_t> brokers(replicas.begin(), replicas.end());
        for (auto b : replicas) used.insert(racks.at(b));
        EXPECT_EQ(used.size(), 3U);
        EXPECT_EQ(brokers.size(), 3U);
        ++leaders[replicas.front()];
    }
    for (const auto& [broker, led] : leaders) EXPECT_EQ(led, 2) << broker;
    // More replicas than racks: every rack first, then brokers not yet used.
    auto wide = assign_replicas_rack_aware(6, 4, {{1, "a"}, {2, "a"}, {3, "b"}, {4, "b"}});
    for (const auto& replicas : wide) {
        EXPECT_EQ(std::set<std::int32_t>(replicas.begin(), replicas.end()).size(), 4U);
        EXPECT_NE(racks.at(replicas[0]), racks.at(replicas[1]));
    }
}

TEST(ReplicaAssignment, PlacementIsRackAwareOnlyWhenEveryBrokerHasARack) {
    std::vector<BrokerInfo> brokers{{1, {}, std::string("a")}, {2, {}, std::string("a")}, {3, {}, std::string("b")}};
    for (const auto& replicas : place_new_topic(6, 2, brokers)) {
        // Two replicas on two racks: one of them is broker 3.
        EXPECT_TRUE(replicas[0] == 3 || replicas[1] == 3);
    }
    brokers[2].rack.reset();
    EXPECT_EQ(place_new_topic(6, 2, brokers).size(), 6U);  // rack-unaware, still placed
}

TEST(ReplicaAssignment, AddedPartitionsAreRackAwareWhenEveryBrokerHasARack) {
    std::vector<BrokerInfo> brokers{
        {1, {}, std::string("a")}, {2, {}, std::string("a")}, {3, {}, std::string("b")}, {4, {}, std::string("b")}};
    TopicInfo topic;
    topic.name = "t";
    for (const auto& replicas : place_new_topic(4, 2, brokers)) {
        PartitionInfo p;
        p.partition = static_cast<std::int32_t>(topic.partitions.size());
        p.replicas = replicas;
        topic.partitions.push_back(p);
    }
    auto added = assign_added_partitions(topic, 12, brokers);
    ASSERT_EQ(added.size(), 8U);
    std::map<std::int32_t, int> leaders;
    for (const auto& replicas : added) {
        ASSERT_EQ(replicas.size(), 2U);
        EXPECT_NE(brokers[static_cast<std::size_t>(replicas[0] - 1)].rack,
                  brokers[static_cast<std::size_t>(replicas[1] - 1)].rack);
        ++leaders[replicas.front()];
    }
    for (const auto& [broker, led] : leaders) EXPECT_EQ(led, 2) << broker;
    // Kafka's start index: partition 0's first replica among the brokers by id.
    const auto first = topic.partitions.front().replicas.front();
    EXPECT_EQ(added, assign_replicas_rack_aware(8, 2, {{1, "a"}, {2, "a"}, {3, "b"}, {4, "b"}}, first - 1, 4));
}

}  // namespace
}  // namespace weir::metadata
