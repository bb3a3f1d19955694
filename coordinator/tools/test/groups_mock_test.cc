// `weir groups` end to end against librdkafka's mock cluster.
// The 2.0.2 mock lacks ListGroups, DescribeGroups and DeleteGroups, so this covers describe
// (offsets and lag, without members), reset-offsets and list's error path; the full set runs
// against a real broker in groups_broker_test.cc.
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <memory>
#include <sstream>

#include "coordinator/tools/groups_cli.h"
#include "coordinator/tools/test/groups_test_support.h"

namespace weir::tools {
namespace {

using test::CliResult;
using test::RdKafka;

constexpr const char* kTopic = "orders";
constexpr const char* kGroup = "billing";
// Records produced per partition, and the offsets the group commits (partition 2: none).
const std::map<std::int32_t, int> kProduced = {{0, 10}, {1, 5}, {2, 7}};
const std::map<std::int32_t, std::int64_t> kCommitted = {{0, 4}, {1, 5}};

struct MockClusterDeleter {
    void operator()(rd_kafka_mock_cluster_t* mc) const { rd_kafka_mock_cluster_destroy(mc); }
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

    CliResult groups(std::vector<std::string> args) {
        args.insert(args.begin(), {"--bootstrap-server", bootstrap_, "--timeout-ms", "5000"});
        return test::run_cli(args);
    }

    std::map<std::int32_t, std::int64_t> committed() { return test::committed(bootstrap_, kGroup, kTopic, 3); }

    RdKafka host_;
    std::unique_ptr<rd_kafka_mock_cluster_t, MockClusterDeleter> mock_;
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

    r = groups({"reset-offsets", kGroup, "--all-topics", "--shift-by", "-6", "--execute"});
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
    const auto r = groups({"reset-offsets", kGroup, "--topic", std::string(kTopic) + ":3", "--to-earliest", "--execute"});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("has no partition 3"), std::string::npos) << r.err;
}

TEST_F(GroupsMockTest, ListReportsABrokerWithoutListGroups) {
    const auto r = groups({"list"});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("could not list"), std::string::npos) << r.err;
}

TEST(GroupsUnreachable, EveryActionGivesUpWithinTheTimeout) {
    // Nothing listens on port 1; each call must fail within --timeout-ms (plus client start-up).
    for (const std::vector<std::string>& action :
         {std::vector<std::string>{"list"}, {"describe", "g"}, {"delete", "g"},
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
}  // namespace weir::tools
