#include "broker/metadata/topic_validation.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "broker/metadata/replica_assignment.h"

namespace weir::metadata {
namespace {

using ::testing::HasSubstr;

// A cluster of three live brokers (0, 1, 2) with `orders` (3 partitions,
// replication factor 2) and the internal __consumer_offsets; no backend.
class TopicValidationTest : public ::testing::Test {
protected:
    TopicValidationTest() {
        for (std::int32_t id : {0, 1, 2}) cluster_.brokers.push_back(BrokerInfo{id, {{"PLAINTEXT", "h", 9092}}, {}});
        add_topic("orders", {{0, 1}, {1, 2}, {2, 0}});
        add_topic("__consumer_offsets", {{0}}, /*internal=*/true);
    }

    void add_topic(const std::string& name, std::vector<std::vector<std::int32_t>> replicas, bool internal = false) {
        auto t = std::make_shared<TopicInfo>();
        t->name = name;
        t->id = Uuid::random();
        t->internal = internal;
        for (std::size_t p = 0; p < replicas.size(); ++p) {
            PartitionInfo info;
            info.partition = static_cast<std::int32_t>(p);
            info.replicas = replicas[p];
            info.isr = replicas[p];
            info.leader = replicas[p].front();
            t->partitions.push_back(std::move(info));
        }
        cluster_.topics_by_name.emplace(name, t);
        cluster_.topics_by_id.emplace(t->id, t);
    }

    static NewTopic counted(std::string name, std::int32_t partitions = 1, std::int16_t rf = 1,
                            config::ConfigMap configs = {}) {
        NewTopic t;
        t.name = std::move(name);
        t.num_partitions = partitions;
        t.replication_factor = rf;
        t.configs = std::move(configs);
        return t;
    }
    static NewTopic assigned(std::string name, std::map<std::int32_t, std::vector<std::int32_t>> assignments) {
        NewTopic t = counted(std::move(name), -1, -1);
        t.assignments = std::move(assignments);
        return t;
    }

    MetadataSnapshot cluster_;
};

TEST_F(TopicValidationTest, AcceptsAValidTopicAndNormalizesItsConfigs) {
    config::ConfigMap normalized;
    auto s = validate_new_topic(cluster_, counted("payments", 6, 3, {{"retention.ms", " 1000 "}}), &normalized);
    EXPECT_TRUE(s.ok()) << s.message;
    EXPECT_EQ(normalized, (config::ConfigMap{{"retention.ms", "1000"}}));
    EXPECT_TRUE(validate_new_topic(cluster_, assigned("manual", {{0, {2, 1}}, {1, {0, 2}}})).ok());
}

TEST_F(TopicValidationTest, NameRules) {
    for (const auto& bad : std::vector<std::string>{"", ".", "..", "bad name", "a/b", std::string(250, 'x')}) {
        auto s = validate_new_topic(cluster_, counted(bad));
        EXPECT_EQ(s.error, ErrorCode::invalid_topic_exception) << bad;
        EXPECT_EQ(s.message, check_topic_name(bad).message) << bad;
    }
    EXPECT_TRUE(check_topic_name(std::string(249, 'x')).ok());
    EXPECT_EQ(check_topic_name("..").message, "Topic name cannot be \".\" or \"..\"");
}

TEST_F(TopicValidationTest, ExistingAndCollidingNames) {
    auto exists = validate_new_topic(cluster_, counted("orders"));
    EXPECT_EQ(exists.error, ErrorCode::topic_already_exists);
    EXPECT_EQ(exists.message, "Topic 'orders' already exists.");

    add_topic("a.b", {{0}});
    auto collide = validate_new_topic(cluster_, counted("a_b"));
    EXPECT_EQ(collide.error, ErrorCode::invalid_topic_exception);
    EXPECT_EQ(collide.message, "Topic 'a_b' collides with existing topics: a.b");
}

TEST_F(TopicValidationTest, PartitionCountAndReplicationFactor) {
    auto p0 = validate_new_topic(cluster_, counted("p0", 0));
    EXPECT_EQ(p0.error, ErrorCode::invalid_partitions);
    EXPECT_EQ(p0.message, "Number of partitions must be larger than 0.");
    auto rf0 = validate_new_topic(cluster_, counted("rf0", 1, 0));
    EXPECT_EQ(rf0.error, ErrorCode::invalid_replication_factor);
    EXPECT_EQ(rf0.message, "Replication factor must be larger than 0.");
    auto rf4 = validate_new_topic(cluster_, counted("rf4", 1, 4));
    EXPECT_EQ(rf4.error, ErrorCode::invalid_replication_factor);
    EXPECT_EQ(rf4.message, "Replication factor: 4 larger than available brokers: 3.");
    // The partition count is checked first, as Kafka does.
    EXPECT_EQ(validate_new_topic(cluster_, counted("both", 0, 0)).error, ErrorCode::invalid_partitions);
}

TEST_F(TopicValidationTest, ExplicitAssignments) {
    NewTopic both = assigned("both", {{0, {0}}});
    both.num_partitions = 1;
    auto s = validate_new_topic(cluster_, both);
    EXPECT_EQ(s.error, ErrorCode::invalid_request);
    EXPECT_THAT(s.message, HasSubstr("Both numPartitions or replicationFactor and replicasAssignments were set"));

    auto gap = validate_new_topic(cluster_, assigned("gap", {{0, {0}}, {2, {1}}}));
    EXPECT_EQ(gap.error, ErrorCode::invalid_replica_assignment);
    EXPECT_EQ(gap.message, "Partitions should be a consecutive 0-based integer sequence");

    auto empty = validate_new_topic(cluster_, assigned("empty", {{0, {}}}));
    EXPECT_EQ(empty.message, "Partition 0 has an empty replica assignment.");
    auto dup = validate_new_topic(cluster_, assigned("dup", {{0, {1, 1}}}));
    EXPECT_EQ(dup.message, "Duplicate brokers not allowed in replica assignment: 1, 1 for partition id 0.");
    auto unknown = validate_new_topic(cluster_, assigned("unknown", {{0, {1, 7, 9}}}));
    EXPECT_EQ(unknown.error, ErrorCode::invalid_replica_assignment);
    EXPECT_EQ(unknown.message, "Unknown broker(s) in replica assignment: 7, 9.");
    auto uneven = validate_new_topic(cluster_, assigned("uneven", {{0, {0, 1}}, {1, {2}}}));
    EXPECT_EQ(uneven.error, ErrorCode::invalid_replica_assignment);
    EXPECT_EQ(uneven.message, "All partitions should have the same number of replicas");
}

TEST_F(TopicValidationTest, ConfigsLast) {
    auto unknown = validate_new_topic(cluster_, counted("cfg", 1, 1, {{"retention.hours", "1"}}));
    EXPECT_EQ(unknown.error, ErrorCode::invalid_config);
    EXPECT_EQ(unknown.message, "Unknown topic config name: retention.hours");
    auto bad = validate_new_topic(cluster_, counted("cfg", 1, 1, {{"segment.ms", "0"}}));
    EXPECT_EQ(bad.error, ErrorCode::invalid_config);
    // A bad layout is reported before bad configs.
    EXPECT_EQ(validate_new_topic(cluster_, counted("cfg", 0, 1, {{"segment.ms", "0"}})).error,
              ErrorCode::invalid_partitions);
    config::ConfigMap normalized{{"stale", "x"}};
    EXPECT_EQ(check_topic_configs({{"cleanup.policy", "shred"}}, &normalized).error, ErrorCode::invalid_config);
}

TEST_F(TopicValidationTest, NewPartitions) {
    EXPECT_TRUE(validate_new_partitions(cluster_, "orders", 5, {}).ok());
    EXPECT_TRUE(validate_new_partitions(cluster_, "orders", 5, {{0, 2}, {1, 0}}).ok());

    auto missing = validate_new_partitions(cluster_, "nope", 5, {});
    EXPECT_EQ(missing.error, ErrorCode::unknown_topic_or_partition);
    EXPECT_EQ(missing.message, "The topic 'nope' does not exist.");
    auto same = validate_new_partitions(cluster_, "orders", 3, {});
    EXPECT_EQ(same.error, ErrorCode::invalid_partitions);
    EXPECT_EQ(same.message, "Topic already has 3 partitions.");
    auto fewer = validate_new_partitions(cluster_, "orders", 2, {});
    EXPECT_EQ(fewer.message, "Topic currently has 3 partitions, which is higher than the requested 2.");

    auto count = validate_new_partitions(cluster_, "orders", 5, {{0, 1}});
    EXPECT_EQ(count.error, ErrorCode::invalid_replica_assignment);
    EXPECT_EQ(count.message, "Increasing the number of partitions by 2 but 1 assignments provided.");
    auto rf = validate_new_partitions(cluster_, "orders", 4, {{0}});
    EXPECT_EQ(rf.error, ErrorCode::invalid_replica_assignment);
    EXPECT_EQ(rf.message,
              "Inconsistent replication factor between partitions, partition 0 has 2 while partition 3 has 1.");
    auto unknown = validate_new_partitions(cluster_, "orders", 4, {{0, 5}});
    EXPECT_EQ(unknown.message, "Unknown broker(s) in replica assignment: 5.");

    // Automatic placement needs as many live brokers as the topic's replicas.
    add_topic("wide", {{0, 1, 2, 3}});
    auto wide = validate_new_partitions(cluster_, "wide", 2, {});
    EXPECT_EQ(wide.error, ErrorCode::invalid_replication_factor);
    EXPECT_EQ(wide.message, "Replication factor: 4 larger than available brokers: 3.");
}

TEST_F(TopicValidationTest, ConfigChangeAndDeletion) {
    config::ConfigMap normalized;
    EXPECT_TRUE(validate_topic_config_change(cluster_, "orders", {{"cleanup.policy", "compact"}}, &normalized).ok());
    EXPECT_EQ(normalized.at("cleanup.policy"), "compact");
    auto bad = validate_topic_config_change(cluster_, "orders", {{"cleanup.policy", "shred"}});
    EXPECT_EQ(bad.error, ErrorCode::invalid_config);
    EXPECT_THAT(bad.message, HasSubstr("cleanup.policy"));
    EXPECT_EQ(validate_topic_config_change(cluster_, "nope", {}).error, ErrorCode::unknown_topic_or_partition);

    EXPECT_TRUE(validate_topic_deletion(cluster_, "orders").ok());
    auto internal = validate_topic_deletion(cluster_, "__consumer_offsets");
    EXPECT_EQ(internal.error, ErrorCode::invalid_request);
    EXPECT_EQ(internal.message,
              "Topic __consumer_offsets is a kafka internal topic and is not allowed to be marked for deletion.");
    auto missing = validate_topic_deletion(cluster_, "nope");
    EXPECT_EQ(missing.error, ErrorCode::unknown_topic_or_partition);
    EXPECT_EQ(missing.message, "This server does not host this topic-partition.");
}

// Placement of added partitions continues the round-robin where partition 0's
// leader sits, whatever backend stores the result.
TEST_F(TopicValidationTest, AddedPartitionsContinueThePlacement) {
    const auto& orders = *cluster_.topic("orders");
    auto added = assign_added_partitions(orders, 6, {{2, {}, {}}, {0, {}, {}}, {1, {}, {}}});
    ASSERT_EQ(added.size(), 3U);
    for (const auto& replicas : added) EXPECT_EQ(replicas.size(), 2U);
    EXPECT_EQ(added, assign_replicas(3, 2, {0, 1, 2}, 0, 3));
}

}  // namespace
}  // namespace weir::metadata
