// `weir groups` end to end against librdkafka's mock cluster.
// The 2.0.2 mock lacks ListGroups, DescribeGroups and DeleteGroups, and librdkafka 2.0.2 can abort
// (rd_kafka_enq_once assertion) when DescribeConsumerGroups/DeleteGroups meet such a broker. So
// MockClusterAdmin answers describe_group (as "unsupported", or with a scripted group), list_groups
// and delete_group itself; offsets, log offsets, metadata and commits go through the real client.
// The full set, against a real broker, is in groups_broker_test.cc.
#include <gtest/gtest.h>
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <chrono>
#include <map>
#include <memory>
#include <sstream>

#include "cli/groups/groups_cli.h"
#include "cli/groups/kafka_admin.h"
#include "cli/groups/test/groups_test_support.h"

namespace weir::cli {
namespace {

using test::CliResult;
using test::RdKafka;

constexpr const char* kTopic = "orders";
constexpr const char* kGroup = "billing";
// Records produced per partition, and the offsets the group commits (partition 2: none).
const std::map<std::int32_t, int> kProduced = {{0, 10}, {1, 5}, {2, 7}};
const std::map<std::int32_t, std::int64_t> kCommitted = {{0, 4}, {1, 5}};

class MockClusterAdmin final : public GroupAdmin {
public:
    MockClusterAdmin(const AdminConfig& config, std::optional<GroupDescription> group)
        : real_(config), group_(std::move(group)) {}

    // What librdkafka reports against the mock, without the call: it leaks in that error path.
    ListGroupsResult list_groups() override { return {{}, {"Local: Required feature not supported by broker"}}; }
    std::optional<GroupDescription> describe_group(const std::string&) override { return group_; }
    std::map<TopicPartition, std::int64_t> committed_offsets(const std::string& group,
                                                             const std::vector<TopicPartition>& partitions) override {
        return real_.committed_offsets(group, partitions);
    }
    std::vector<PartitionError> alter_offsets(const std::string& group,
                                              const std::map<TopicPartition, std::int64_t>& offsets) override {
        return real_.alter_offsets(group, offsets);
    }
    void delete_group(const std::string&) override { throw AdminError("the mock cluster has no DeleteGroups"); }
    std::map<std::string, std::vector<std::int32_t>> topic_partitions() override { return real_.topic_partitions(); }
    Watermarks watermarks(const TopicPartition& tp) override { return real_.watermarks(tp); }
    std::map<TopicPartition, std::int64_t> offsets_for_time(const std::vector<TopicPartition>& partitions,
                                                            std::int64_t timestamp_ms) override {
        return real_.offsets_for_time(partitions, timestamp_ms);
    }

private:
    KafkaAdmin real_;
    std::optional<GroupDescription> group_;
};

class GroupsMockTest : public ::testing::Test {
protected:
    void SetUp() override {
        host_ = test::make_client(RD_KAFKA_PRODUCER, {});
        ASSERT_TRUE(host_);
        mock_.reset(rd_kafka_mock_cluster_new(host_.get(), 1));
        ASSERT_TRUE(mock_);
        bootstrap_ = rd_kafka_mock_cluster_bootstraps(mock_.get());
        ASSERT_EQ(rd_kafka_mock_topic_create(mock_.get(), kTopic, 3, 1), RD_KAFKA_RESP_ERR_NO_ERROR);
        ASSERT_NO_FATAL_FAILURE(test::produce(bootstrap_, kTopic, kProduced));
        ASSERT_NO_FATAL_FAILURE(test::commit(bootstrap_, kGroup, kTopic, kCommitted));
    }

    void TearDown() override {
        mock_.reset();
        host_.reset();
    }

    // group: what DescribeGroups would say; nullopt: the broker does not support it (the mock's case).
    CliResult groups(std::vector<std::string> args, std::optional<GroupDescription> group = std::nullopt) {
        args.insert(args.begin(), {"--bootstrap-server", bootstrap_, "--timeout-ms", "5000"});
        return test::run_cli(args, [group](const AdminConfig& config) -> std::unique_ptr<GroupAdmin> {
            return std::make_unique<MockClusterAdmin>(config, group);
        });
    }

    static GroupDescription active_group() {
        GroupDescription g;
        g.group_id = kGroup;
        g.state = "Stable";
        g.assignor = "range";
        g.members.push_back({"member-1", "client-1", "/127.0.0.1", {{kTopic, 0}, {kTopic, 2}}});
        return g;
    }

    std::map<std::int32_t, std::int64_t> committed() { return test::committed(bootstrap_, kGroup, kTopic, 3); }

    RdKafka host_;
    rdkafka::MockCluster mock_;
    std::string bootstrap_;
};

TEST_F(GroupsMockTest, DescribeShowsCommittedOffsetsLogEndAndLag) {
    const auto r = groups({"describe", kGroup, "--topic", kTopic});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("does not support DescribeGroups"), std::string::npos) << r.err;

    const auto rows = test::table_rows(r.out, "GROUP TOPIC");
    ASSERT_EQ(rows.size(), 2U) << r.out;  // partition 2 has no committed offset and no owner
    for (const auto& [partition, offset] : kCommitted) {
        const auto& row = rows.at(static_cast<std::size_t>(partition));
        ASSERT_EQ(row.size(), 9U) << r.out;
        EXPECT_EQ(row[0], kGroup);
        EXPECT_EQ(row[1], kTopic);
        EXPECT_EQ(row[2], std::to_string(partition));
        EXPECT_EQ(row[3], std::to_string(offset));
        EXPECT_EQ(row[4], std::to_string(kProduced.at(partition)));
        EXPECT_EQ(row[5], std::to_string(kProduced.at(partition) - offset));
        EXPECT_EQ(row[6], "-");
        EXPECT_EQ(row[7], "-");
        EXPECT_EQ(row[8], "-");
    }
}

TEST_F(GroupsMockTest, DescribeJoinsMembersWithOffsets) {
    const auto r = groups({"describe", kGroup, "--topic", kTopic}, active_group());
    ASSERT_EQ(r.code, 0) << r.err;
    const auto state = test::table_rows(r.out, "GROUP COORDINATOR");
    ASSERT_EQ(state.size(), 1U) << r.out;
    EXPECT_EQ(state[0], (std::vector<std::string>{kGroup, "-", "range", "Stable", "1"}));
    const auto rows = test::table_rows(r.out, "GROUP TOPIC");
    ASSERT_EQ(rows.size(), 3U) << r.out;
    EXPECT_EQ(rows[0],
              (std::vector<std::string>{kGroup, kTopic, "0", "4", "10", "6", "member-1", "/127.0.0.1", "client-1"}));
    EXPECT_EQ(rows[1], (std::vector<std::string>{kGroup, kTopic, "1", "5", "5", "0", "-", "-", "-"}));
    EXPECT_EQ(rows[2],
              (std::vector<std::string>{kGroup, kTopic, "2", "-", "7", "-", "member-1", "/127.0.0.1", "client-1"}));
}

TEST_F(GroupsMockTest, ResetRefusesAnActiveGroup) {
    for (const char* mode : {"--dry-run", "--execute"}) {
        const auto r = groups({"reset-offsets", kGroup, "--topic", kTopic, "--to-earliest", mode}, active_group());
        EXPECT_EQ(r.code, 1) << mode;
        EXPECT_NE(
            r.err.find(
                "Assignments can only be reset if the group 'billing' is inactive, but the current state is Stable."),
            std::string::npos)
            << r.err;
        EXPECT_TRUE(r.out.empty()) << r.out;
    }
    EXPECT_EQ(committed(), kCommitted);
}

TEST_F(GroupsMockTest, ResetAcceptsAnEmptyGroup) {
    GroupDescription empty{kGroup, "Empty", "", "", {}};
    const auto r = groups({"reset-offsets", kGroup, "--topic", kTopic, "--to-earliest", "--execute"}, empty);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(r.err.empty()) << r.err;
    EXPECT_EQ(committed(), (std::map<std::int32_t, std::int64_t>{{0, 0}, {1, 0}, {2, 0}}));
}

TEST_F(GroupsMockTest, DescribeUnknownGroupFails) {
    const auto r = groups({"describe", "nobody", "--topic", kTopic});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("Consumer group 'nobody' does not exist"), std::string::npos) << r.err;
}

TEST_F(GroupsMockTest, DescribeUnknownTopicFails) {
    const auto r = groups({"describe", kGroup, "--topic", "nope"});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("topic 'nope' does not exist"), std::string::npos) << r.err;
}

TEST_F(GroupsMockTest, ResetDryRunPrintsPlanAndChangesNothing) {
    const auto r = groups({"reset-offsets", kGroup, "--topic", kTopic, "--to-earliest"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("Dry run"), std::string::npos) << r.err;
    const auto rows = test::table_rows(r.out, "GROUP TOPIC");
    ASSERT_EQ(rows.size(), 3U) << r.out;
    for (std::size_t p = 0; p < rows.size(); ++p)
        EXPECT_EQ(rows[p], (std::vector<std::string>{kGroup, kTopic, std::to_string(p), "0"}));
    EXPECT_EQ(committed(), kCommitted);
}

TEST_F(GroupsMockTest, ResetExecuteToOffsetEarliestLatestAndShift) {
    auto r = groups({"reset-offsets", kGroup, "--topic", std::string(kTopic) + ":0", "--to-offset", "2", "--execute"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err.find("Dry run"), std::string::npos);
    EXPECT_EQ(committed(), (std::map<std::int32_t, std::int64_t>{{0, 2}, {1, 5}}));

    // Past the log end: clamped, with Kafka's warning.
    r = groups({"reset-offsets", kGroup, "--topic", std::string(kTopic) + ":2", "--to-offset", "100", "--execute"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("higher than latest offset"), std::string::npos) << r.err;
    EXPECT_EQ(committed(), (std::map<std::int32_t, std::int64_t>{{0, 2}, {1, 5}, {2, 7}}));

    r = groups({"reset-offsets", kGroup, "--topic", kTopic, "--to-earliest", "--execute"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(committed(), (std::map<std::int32_t, std::int64_t>{{0, 0}, {1, 0}, {2, 0}}));

    r = groups({"reset-offsets", kGroup, "--topic", kTopic, "--to-latest", "--execute"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(committed(), (std::map<std::int32_t, std::int64_t>{{0, 10}, {1, 5}, {2, 7}}));

    r = groups({"reset-offsets", kGroup, "--topic", kTopic, "--shift-by", "-6", "--execute"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(committed(), (std::map<std::int32_t, std::int64_t>{{0, 4}, {1, 0}, {2, 1}}));

    // describe agrees with what was committed.
    r = groups({"describe", kGroup, "--topic", kTopic});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto rows = test::table_rows(r.out, "GROUP TOPIC");
    ASSERT_EQ(rows.size(), 3U) << r.out;
    EXPECT_EQ(rows[0][5], "6");
    EXPECT_EQ(rows[1][5], "5");
    EXPECT_EQ(rows[2][5], "6");
}

TEST_F(GroupsMockTest, ResetToDatetimeAfterLastRecordGoesToLogEnd) {
    // The mock answers no offset for a timestamp lookup; Kafka's rule then picks the log end.
    const auto r = groups({"reset-offsets", kGroup, "--topic", kTopic, "--to-datetime", "2100-01-01T00:00:00Z"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto rows = test::table_rows(r.out, "GROUP TOPIC");
    ASSERT_EQ(rows.size(), 3U) << r.out;
    for (const auto& [partition, count] : kProduced)
        EXPECT_EQ(rows.at(static_cast<std::size_t>(partition))[3], std::to_string(count));
}

TEST_F(GroupsMockTest, ResetShiftWithoutCommittedOffsetFails) {
    const auto r = groups({"reset-offsets", kGroup, "--topic", kTopic, "--shift-by", "1", "--execute"});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("orders-2 has no committed offset"), std::string::npos) << r.err;
    EXPECT_EQ(committed(), kCommitted);
}

TEST_F(GroupsMockTest, ResetUnknownPartitionFails) {
    const auto r =
        groups({"reset-offsets", kGroup, "--topic", std::string(kTopic) + ":3", "--to-earliest", "--execute"});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("has no partition 3"), std::string::npos) << r.err;
}

// The mock's OffsetFetch ignores "all topics"; against it --all-topics finds no offsets.
TEST_F(GroupsMockTest, ResetAllTopicsWithoutCommittedOffsetsFails) {
    const auto r = groups({"reset-offsets", kGroup, "--all-topics", "--to-earliest", "--execute"});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("has no committed offsets"), std::string::npos) << r.err;
    EXPECT_EQ(committed(), kCommitted);
}

TEST_F(GroupsMockTest, ListReportsABrokerWithoutListGroups) {
    const auto r = groups({"list"});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("Error: could not list groups: Local: Required feature not supported"), std::string::npos)
        << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(GroupsUnreachable, EveryActionGivesUpWithinTheTimeout) {
    // Nothing listens on port 1; each call must fail within --timeout-ms (plus client start-up).
    for (const std::vector<std::string>& action : {std::vector<std::string>{"list"},
                                                   {"describe", "g"},
                                                   {"delete", "g"},
                                                   {"reset-offsets", "g", "--topic", "t", "--to-earliest"}}) {
        std::vector<std::string> args = {"--bootstrap-server", "127.0.0.1:1", "--timeout-ms", "1000"};
        args.insert(args.end(), action.begin(), action.end());
        const auto start = std::chrono::steady_clock::now();
        const auto r = test::run_cli(args);
        const auto took = std::chrono::steady_clock::now() - start;
        EXPECT_EQ(r.code, 1) << action[0] << ": " << r.err;
        EXPECT_NE(r.err.find("Error"), std::string::npos) << r.err;
        EXPECT_LT(took, std::chrono::seconds(8)) << action[0];
    }
}

}  // namespace
}  // namespace weir::cli
