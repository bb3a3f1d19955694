#include "broker/metadata/snapshot_diff.h"

#include <gtest/gtest.h>

namespace weir::metadata {
namespace {

using Kind = MetadataChange::Kind;

TopicPtr topic(std::string name, std::uint8_t id, std::vector<PartitionInfo> parts, config::ConfigMap configs = {}) {
    auto t = std::make_shared<TopicInfo>();
    t->name = std::move(name);
    t->id.bytes[15] = id;
    t->partitions = std::move(parts);
    t->configs = std::move(configs);
    return t;
}

PartitionInfo part(std::int32_t p, std::int32_t leader, std::int32_t epoch, std::vector<std::int32_t> isr) {
    PartitionInfo i;
    i.partition = p;
    i.leader = leader;
    i.leader_epoch = epoch;
    i.replicas = {1, 2, 3};
    i.isr = std::move(isr);
    return i;
}

void add(MetadataSnapshot& s, const TopicPtr& t) {
    s.topics_by_name[t->name] = t;
    s.topics_by_id[t->id] = t;
}

std::vector<std::pair<Kind, std::string>> kinds(const std::vector<MetadataChange>& changes) {
    std::vector<std::pair<Kind, std::string>> out;
    for (const auto& c : changes) out.emplace_back(c.kind, c.topic);
    return out;
}

TEST(SnapshotDiff, NothingChanged) {
    MetadataSnapshot a;
    add(a, topic("t", 1, {part(0, 1, 0, {1, 2, 3})}));
    EXPECT_TRUE(diff_snapshots(a, a).empty());
}

TEST(SnapshotDiff, TopicsAndStates) {
    MetadataSnapshot a;
    add(a, topic("gone", 1, {part(0, 1, 0, {1})}));
    add(a, topic("moves", 2, {part(0, 1, 0, {1, 2, 3})}));
    add(a, topic("grows", 3, {part(0, 1, 0, {1})}));
    add(a, topic("recreated", 4, {part(0, 1, 0, {1})}));
    add(a, topic("configured", 5, {part(0, 1, 0, {1})}));
    MetadataSnapshot b;
    add(b, topic("moves", 2, {part(0, 2, 1, {2, 3})}));
    add(b, topic("grows", 3, {part(0, 1, 0, {1}), part(1, 2, 0, {2})}));
    add(b, topic("recreated", 9, {part(0, 1, 0, {1})}));
    add(b, topic("configured", 5, {part(0, 1, 0, {1})}, {{"retention.ms", "1"}}));
    add(b, topic("new", 6, {part(0, -1, 0, {})}));
    auto changes = diff_snapshots(a, b);
    std::vector<std::pair<Kind, std::string>> expected{{Kind::topic_deleted, "gone"},
                                                       {Kind::topic_deleted, "recreated"},
                                                       {Kind::topic_configs_changed, "configured"},
                                                       {Kind::partitions_added, "grows"},
                                                       {Kind::partition_state_changed, "moves"},
                                                       {Kind::topic_created, "new"},
                                                       {Kind::topic_created, "recreated"}};
    // Deletions first, then the rest in topic name order.
    EXPECT_EQ(kinds(changes), expected);
    for (const auto& c : changes) {
        if (c.kind == Kind::topic_deleted) {
            EXPECT_TRUE(c.before && !c.after);
        } else if (c.kind == Kind::topic_created) {
            EXPECT_TRUE(!c.before && c.after);
        } else {
            EXPECT_TRUE(c.before && c.after);
        }
    }
}

TEST(SnapshotDiff, BrokersControllerAndBrokerConfigs) {
    MetadataSnapshot a;
    a.brokers = {{1, {{"PLAINTEXT", "h", 1}}, std::nullopt}};
    a.controller_id = 1;
    a.broker_configs[1] = {{"log.retention.ms", "1"}};
    MetadataSnapshot b = a;
    b.controller_id = 2;
    EXPECT_EQ(kinds(diff_snapshots(a, b)), (std::vector<std::pair<Kind, std::string>>{{Kind::brokers_changed, ""}}));
    b = a;
    b.broker_configs.erase(1);
    b.broker_configs[2] = {{"log.retention.ms", "2"}};
    b.default_broker_configs = {{"x", "y"}};
    auto changes = diff_snapshots(a, b);
    ASSERT_EQ(changes.size(), 3U);
    EXPECT_EQ(changes[0].broker_id, 1);
    EXPECT_EQ(changes[1].broker_id, 2);
    EXPECT_FALSE(changes[2].broker_id);
    for (const auto& c : changes) EXPECT_EQ(c.kind, Kind::broker_configs_changed);
}

}  // namespace
}  // namespace weir::metadata
