#include "broker/admin/metadata_metrics.h"

#include <gtest/gtest.h>

#include "broker/admin/test/admin_fixture.h"

namespace weir::admin::test {
namespace {

using Kind = metadata::MetadataChange::Kind;

metadata::TopicPtr topic_state(std::int32_t leader, std::int32_t epoch, std::vector<std::int32_t> isr) {
    auto t = std::make_shared<metadata::TopicInfo>();
    t->name = "t";
    metadata::PartitionInfo p;
    p.leader = leader;
    p.leader_epoch = epoch;
    p.replicas = {1, 2, 3};
    p.isr = std::move(isr);
    t->partitions.push_back(p);
    return t;
}

metadata::MetadataChange isr_change(metadata::TopicPtr before, metadata::TopicPtr after) {
    metadata::MetadataChange c;
    c.kind = Kind::partition_state_changed;
    c.topic = "t";
    c.before = std::move(before);
    c.after = std::move(after);
    return c;
}

class MetadataMetricsTest : public AdminTest {};

TEST_F(MetadataMetricsTest, CountsIsrChangesOfPartitionsThisBrokerLeads) {
    start();
    MetadataMetrics counter(*store_, metrics_, 1);
    counter.on_change(isr_change(topic_state(1, 4, {1, 2, 3}), topic_state(1, 4, {1, 3})));
    counter.on_change(isr_change(topic_state(1, 4, {1, 3}), topic_state(1, 4, {1})));
    counter.on_change(isr_change(topic_state(1, 4, {1}), topic_state(1, 4, {1, 2})));
    EXPECT_EQ(metrics_.isr_shrinks(), 2u);
    EXPECT_EQ(metrics_.isr_expands(), 1u);
    // Another broker's partition, and an election (new epoch), are not this leader's ISR changes.
    counter.on_change(isr_change(topic_state(2, 4, {2, 3}), topic_state(2, 4, {2})));
    counter.on_change(isr_change(topic_state(2, 4, {2, 1, 3}), topic_state(1, 5, {1, 3})));
    EXPECT_EQ(metrics_.isr_shrinks(), 2u);
    EXPECT_EQ(metrics_.isr_expands(), 1u);
}

TEST_F(MetadataMetricsTest, ADeletedTopicsTrafficIsForgotten) {
    create_topic("gone");
    MetadataMetrics counter(*store_, metrics_, kBrokerId);
    metrics_.topic("gone").bytes_in = 10;
    metrics_.topic("kept").bytes_in = 10;
    auto deleted = metadata::test::run(store_->delete_topic("gone"));
    ASSERT_TRUE(deleted.ok()) << deleted.message;
    EXPECT_EQ(metrics_.topics().count("gone"), 0u);
    EXPECT_EQ(metrics_.topics().count("kept"), 1u);
}

}  // namespace
}  // namespace weir::admin::test
