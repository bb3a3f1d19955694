#include "cli/groups/groups_report.h"

#include <gtest/gtest.h>

namespace weir::cli {
namespace {

GroupDescription stable_group() {
    GroupDescription g;
    g.group_id = "g";
    g.state = "Stable";
    g.assignor = "range";
    g.coordinator = "127.0.0.1:9092 (1)";
    g.members.push_back({"m-1", "client-a", "/10.0.0.1", {{"t", 1}, {"t", 0}}});
    g.members.push_back({"m-2", "client-b", "/10.0.0.2", {}});
    return g;
}

TEST(GroupsReport, DescribeRowsJoinAssignmentsAndCommittedOffsets) {
    const std::map<TopicPartition, std::int64_t> committed = {
        {{"t", 0}, 4}, {{"t", 1}, -1}, {{"u", 0}, 7}, {{"u", 1}, -1}};
    const std::map<TopicPartition, std::int64_t> log_end = {{{"t", 0}, 10}, {{"t", 1}, 5}, {{"u", 0}, 7}};
    const auto rows = describe_rows(stable_group(), committed, log_end);
    ASSERT_EQ(rows.size(), 4U);  // t-0, t-1 (assigned), u-0 (committed only), m-2 (no partitions); u-1 has nothing

    EXPECT_EQ(rows[0].tp, (TopicPartition{"t", 0}));
    EXPECT_EQ(rows[0].current_offset, 4);
    EXPECT_EQ(rows[0].log_end_offset, 10);
    EXPECT_EQ(rows[0].lag(), 6);
    EXPECT_EQ(rows[0].consumer_id, "m-1");

    EXPECT_EQ(rows[1].tp, (TopicPartition{"t", 1}));
    EXPECT_FALSE(rows[1].current_offset.has_value());
    EXPECT_FALSE(rows[1].lag().has_value());

    EXPECT_EQ(rows[2].tp, (TopicPartition{"u", 0}));
    EXPECT_EQ(rows[2].lag(), 0);
    EXPECT_TRUE(rows[2].consumer_id.empty());

    EXPECT_FALSE(rows[3].tp.has_value());
    EXPECT_EQ(rows[3].consumer_id, "m-2");

    EXPECT_EQ(partitions_of(rows), (std::vector<TopicPartition>{{"t", 0}, {"t", 1}, {"u", 0}}));
}

TEST(GroupsReport, DescribeRowsTopicFilter) {
    const std::map<TopicPartition, std::int64_t> committed = {{{"t", 0}, 4}, {{"u", 0}, 7}};
    const auto rows = describe_rows(stable_group(), committed, {}, {"u"});
    ASSERT_EQ(rows.size(), 2U);
    EXPECT_EQ(rows[0].tp, (TopicPartition{"u", 0}));
    EXPECT_FALSE(rows[0].log_end_offset.has_value());
    EXPECT_EQ(rows[1].consumer_id, "m-2");
}

TEST(GroupsReport, DescribeRowsWithoutGroupDescription) {
    const auto rows = describe_rows(std::nullopt, {{{"t", 0}, 3}}, {{{"t", 0}, 2}});
    ASSERT_EQ(rows.size(), 1U);
    EXPECT_EQ(rows[0].lag(), -1);  // committed past the log end: shown as is
}

TEST(GroupsReport, DescribeTableLayout) {
    const auto rows = describe_rows(stable_group(), {{{"t", 0}, 4}}, {{{"t", 0}, 10}, {{"t", 1}, 5}});
    const std::string table = format_describe_table("g", rows);
    EXPECT_EQ(table,
              "GROUP TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG CONSUMER-ID HOST      CLIENT-ID\n"
              "g     t     0         4              10             6   m-1         /10.0.0.1 client-a\n"
              "g     t     1         -              5              -   m-1         /10.0.0.1 client-a\n"
              "g     -     -         -              -              -   m-2         /10.0.0.2 client-b\n");
}

TEST(GroupsReport, StateAndResetTables) {
    EXPECT_EQ(format_state_table(stable_group()),
              "GROUP COORDINATOR (ID)   ASSIGNMENT-STRATEGY STATE  #MEMBERS\n"
              "g     127.0.0.1:9092 (1) range               Stable 2\n");
    EXPECT_EQ(format_reset_table("grp", {{{"orders", 0}, 0}, {{"orders", 10}, 12345}}),
              "GROUP TOPIC  PARTITION NEW-OFFSET\n"
              "grp   orders 0         0\n"
              "grp   orders 10        12345\n");
}

TEST(GroupsReport, ResetRefusedUnlessInactive) {
    auto g = stable_group();
    auto refusal = reset_refusal(g);
    ASSERT_TRUE(refusal.has_value());
    EXPECT_EQ(*refusal, "Assignments can only be reset if the group 'g' is inactive, but the current state is Stable.");
    g.state = "PreparingRebalance";
    EXPECT_TRUE(reset_refusal(g).has_value());
    g.state = "Empty";
    EXPECT_TRUE(reset_refusal(g).has_value());  // members listed: not inactive whatever the state says
    g.members.clear();
    EXPECT_FALSE(reset_refusal(g).has_value());
    g.state = "Dead";
    EXPECT_FALSE(reset_refusal(g).has_value());
}

TEST(GroupsReport, ResetTargets) {
    const TopicPartition tp{"t", 0};
    const Watermarks log{5, 20};
    using K = ResetSpec::Kind;
    EXPECT_EQ(reset_target({K::Earliest, 0}, tp, log, 9, {}).offset, 5);
    EXPECT_EQ(reset_target({K::Latest, 0}, tp, log, 9, {}).offset, 20);

    auto t = reset_target({K::Offset, 12}, tp, log, std::nullopt, {});
    EXPECT_EQ(t.offset, 12);
    EXPECT_FALSE(t.warning.has_value());
    t = reset_target({K::Offset, 2}, tp, log, std::nullopt, {});
    EXPECT_EQ(t.offset, 5);
    ASSERT_TRUE(t.warning.has_value());
    EXPECT_NE(t.warning->find("lower than earliest"), std::string::npos);
    t = reset_target({K::Offset, 99}, tp, log, std::nullopt, {});
    EXPECT_EQ(t.offset, 20);
    EXPECT_NE(t.warning->find("higher than latest"), std::string::npos);

    EXPECT_EQ(reset_target({K::ShiftBy, -3}, tp, log, 9, {}).offset, 6);
    EXPECT_EQ(reset_target({K::ShiftBy, -30}, tp, log, 9, {}).offset, 5);
    EXPECT_EQ(reset_target({K::ShiftBy, 30}, tp, log, 9, {}).offset, 20);
    t = reset_target({K::ShiftBy, 1}, tp, log, std::nullopt, {});
    EXPECT_TRUE(t.error.has_value());

    EXPECT_EQ(reset_target({K::Datetime, 1}, tp, log, 9, 7).offset, 7);
    EXPECT_EQ(reset_target({K::Datetime, 1}, tp, log, 9, -1).offset, 20);  // nothing that recent: log end
}

}  // namespace
}  // namespace weir::cli
