#include "broker/metadata/topic_name.h"

#include <gtest/gtest.h>

#include "broker/metadata/replica_assignment.h"

namespace weir::metadata {
namespace {

TEST(TopicNameTest, Valid) {
    EXPECT_FALSE(validate_topic_name("orders"));
    EXPECT_FALSE(validate_topic_name("a.b_c-D9"));
    EXPECT_FALSE(validate_topic_name("..."));
    EXPECT_FALSE(validate_topic_name("__consumer_offsets"));
    EXPECT_FALSE(validate_topic_name(std::string(249, 'x')));
}

TEST(TopicNameTest, Invalid) {
    EXPECT_EQ(validate_topic_name(""), "Topic name is illegal, it can't be empty");
    EXPECT_EQ(validate_topic_name("."), "Topic name cannot be \".\" or \"..\"");
    EXPECT_EQ(validate_topic_name(".."), "Topic name cannot be \".\" or \"..\"");
    EXPECT_TRUE(validate_topic_name(std::string(250, 'x')));
    EXPECT_TRUE(validate_topic_name("a b"));
    EXPECT_TRUE(validate_topic_name("a/b"));
    EXPECT_TRUE(validate_topic_name("caf\xC3\xA9"));
    EXPECT_EQ(
        validate_topic_name("a:b"),
        "Topic name \"a:b\" is illegal, it contains a character other than ASCII alphanumerics, '.', '_' and '-'");
}

TEST(TopicNameTest, InternalAndCollisions) {
    EXPECT_TRUE(is_internal_topic("__consumer_offsets"));
    EXPECT_TRUE(is_internal_topic("__transaction_state"));
    EXPECT_FALSE(is_internal_topic("__consumer_offsets2"));
    EXPECT_TRUE(topic_names_collide("a.b", "a_b"));
    EXPECT_TRUE(topic_names_collide("a.b", "a.b"));
    EXPECT_FALSE(topic_names_collide("a.b", "a-b"));
    EXPECT_FALSE(topic_names_collide("a.b", "a.bc"));
}

TEST(ReplicaAssignmentTest, MatchesKafkaPlacement) {
    // Kafka's ReplicaAssignmentTest: 5 brokers, 10 partitions, RF 3, start 0.
    auto a = assign_replicas(10, 3, {4, 2, 0, 1, 3}, 0);
    std::vector<std::vector<std::int32_t>> expected = {{0, 1, 2}, {1, 2, 3}, {2, 3, 4}, {3, 4, 0}, {4, 0, 1},
                                                       {0, 2, 3}, {1, 3, 4}, {2, 4, 0}, {3, 0, 1}, {4, 1, 2}};
    EXPECT_EQ(a, expected);
}

TEST(ReplicaAssignmentTest, SingleBrokerAndRandomStart) {
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

TEST(ReplicaAssignmentTest, ContinuesFromStartPartition) {
    auto all = assign_replicas(10, 3, {0, 1, 2, 3, 4}, 0);
    auto tail = assign_replicas(4, 3, {0, 1, 2, 3, 4}, 0, 6);
    ASSERT_EQ(tail.size(), 4U);
    // Leaders continue the rotation; the follower shift restarts (as in Kafka).
    for (std::size_t i = 0; i < tail.size(); ++i) EXPECT_EQ(tail[i][0], all[6 + i][0]);
}

}  // namespace
}  // namespace weir::metadata
