#include "cli/topics/topics_report.h"

#include <gtest/gtest.h>

namespace weir::cli::topics {
namespace {

TopicDescription orders() {
    return {"orders", "", {{0, 1, {1, 2, 3}, {1, 2, 3}}, {1, 2, {2, 3, 1}, {2, 3}}, {2, -1, {3, 1, 2}, {}}}};
}

std::vector<ConfigEntry> orders_configs() {
    return {{"segment.bytes", "1073741824", false},  // a broker-wide setting: shown, as Kafka does
            {"cleanup.policy", "compact", false},
            {"retention.ms", "604800000", true},
            {"min.insync.replicas", "2", true},
            {"sasl.secret", std::nullopt, false}};
}

TEST(TopicsReport, TopicLine) {
    EXPECT_EQ(format_topic_line(orders(), orders_configs()),
              "Topic: orders\tPartitionCount: 3\tReplicationFactor: 3\t"
              "Configs: cleanup.policy=compact,sasl.secret=null,segment.bytes=1073741824\n");
    TopicDescription with_id = orders();
    with_id.topic_id = "Yd9bTj4SQ7G4vl4Uc4qTYA";
    EXPECT_EQ(format_topic_line(with_id, {}),
              "Topic: orders\tTopicId: Yd9bTj4SQ7G4vl4Uc4qTYA\tPartitionCount: 3\tReplicationFactor: 3\tConfigs: \n");
}

TEST(TopicsReport, PartitionLines) {
    const auto t = orders();
    EXPECT_EQ(format_partition_line("orders", t.partitions[0]),
              "\tTopic: orders\tPartition: 0\tLeader: 1\tReplicas: 1,2,3\tIsr: 1,2,3\n");
    EXPECT_EQ(format_partition_line("orders", t.partitions[2]),
              "\tTopic: orders\tPartition: 2\tLeader: none\tReplicas: 3,1,2\tIsr: \n");
}

TEST(TopicsReport, DescribeEverything) {
    const std::map<std::string, std::vector<ConfigEntry>> configs = {{"orders", orders_configs()}};
    EXPECT_EQ(describe_report({orders()}, configs, {1, 2, 3}, {}),
              "Topic: orders\tPartitionCount: 3\tReplicationFactor: 3\t"
              "Configs: cleanup.policy=compact,sasl.secret=null,segment.bytes=1073741824\n"
              "\tTopic: orders\tPartition: 0\tLeader: 1\tReplicas: 1,2,3\tIsr: 1,2,3\n"
              "\tTopic: orders\tPartition: 1\tLeader: 2\tReplicas: 2,3,1\tIsr: 2,3\n"
              "\tTopic: orders\tPartition: 2\tLeader: none\tReplicas: 3,1,2\tIsr: \n");
}

TEST(TopicsReport, ReportOptionsShowOnlyTheirPartitions) {
    const std::map<std::string, std::vector<ConfigEntry>> configs = {{"orders", orders_configs()}};
    const auto lines = [&](DescribeFilter f, std::vector<std::int32_t> live = {1, 2, 3}) {
        return describe_report({orders()}, configs, live, f);
    };
    const std::string p0 = "\tTopic: orders\tPartition: 0\tLeader: 1\tReplicas: 1,2,3\tIsr: 1,2,3\n";
    const std::string p1 = "\tTopic: orders\tPartition: 1\tLeader: 2\tReplicas: 2,3,1\tIsr: 2,3\n";
    const std::string p2 = "\tTopic: orders\tPartition: 2\tLeader: none\tReplicas: 3,1,2\tIsr: \n";
    EXPECT_EQ(lines({.under_replicated = true}), p1 + p2);
    EXPECT_EQ(lines({.unavailable = true}), p2);
    EXPECT_EQ(lines({.unavailable = true}, {1, 3}), p1 + p2);  // broker 2, p1's leader, is gone
    EXPECT_EQ(lines({.under_min_isr = true}), p2);             // min.insync.replicas=2
    EXPECT_EQ(lines({.at_min_isr = true}), p1);
}

TEST(TopicsReport, TopicsWithOverrides) {
    const TopicDescription plain{"plain", "", {{0, 1, {1}, {1}}}};
    const std::map<std::string, std::vector<ConfigEntry>> configs = {{"orders", orders_configs()},
                                                                     {"plain", {{"cleanup.policy", "delete", true}}}};
    EXPECT_EQ(describe_report({orders(), plain}, configs, {1, 2, 3}, {.with_overrides = true}),
              "Topic: orders\tPartitionCount: 3\tReplicationFactor: 3\t"
              "Configs: cleanup.policy=compact,sasl.secret=null,segment.bytes=1073741824\n");
    EXPECT_EQ(describe_report({plain}, configs, {1}, {}),
              "Topic: plain\tPartitionCount: 1\tReplicationFactor: 1\tConfigs: \n"
              "\tTopic: plain\tPartition: 0\tLeader: 1\tReplicas: 1\tIsr: 1\n");
}

TEST(TopicsReport, List) {
    EXPECT_EQ(format_topic_list({"a", "b"}), "a\nb\n");
    EXPECT_EQ(format_topic_list({}), "\n");
}

}  // namespace
}  // namespace weir::cli::topics
