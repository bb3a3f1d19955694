// `weir topics` against librdkafka's mock cluster, through the real client. The 2.0.2 mock answers
// Metadata but none of CreateTopics, CreatePartitions, DeleteTopics or DescribeConfigs (librdkafka
// waits for a controller the mock never names). So MockClusterAdmin answers describe_configs itself,
// listing and describing go through KafkaTopicAdmin, and the other calls are checked to fail within
// their bound. Against a real broker: compat-tests/0016_topics_cli_test.cc.
#include <gtest/gtest.h>
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "cli/rdkafka/handles.h"
#include "cli/topics/kafka_topic_admin.h"
#include "cli/topics/test/fake_topic_admin.h"

namespace weir::cli::topics {
namespace {

using test::CliResult;

const std::string kToolError = "Error while executing topic command : ";

void quiet_log(const rd_kafka_t*, int, const char*, const char*) {}

class MockClusterAdmin final : public TopicAdmin {
public:
    explicit MockClusterAdmin(const AdminConfig& config) : real_(config) {}

    std::vector<std::string> list_topics() override { return real_.list_topics(); }
    std::vector<TopicDescription> describe_topics(const std::vector<std::string>& topics) override {
        return real_.describe_topics(topics);
    }
    std::map<std::string, std::vector<ConfigEntry>> describe_configs(const std::vector<std::string>& topics) override {
        std::map<std::string, std::vector<ConfigEntry>> out;
        for (const auto& t : topics) out[t] = {{"cleanup.policy", "delete", true}, {"retention.ms", "3600000", false}};
        return out;
    }
    std::vector<std::int32_t> live_brokers() override { return real_.live_brokers(); }
    void create_topic(const NewTopic& topic) override { real_.create_topic(topic); }
    void create_partitions(const std::vector<NewPartitions>& increases) override { real_.create_partitions(increases); }
    void delete_topics(const std::vector<std::string>& topics) override { real_.delete_topics(topics); }
    void alter_topic_configs(const std::string& topic,
                             const std::vector<std::pair<std::string, std::string>>& configs) override {
        real_.alter_topic_configs(topic, configs);
    }

private:
    KafkaTopicAdmin real_;
};

class TopicsMockTest : public ::testing::Test {
protected:
    void SetUp() override {
        rd_kafka_conf_t* conf = rd_kafka_conf_new();
        rd_kafka_conf_set_log_cb(conf, quiet_log);
        char errstr[512];
        host_.reset(rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr));
        ASSERT_TRUE(host_) << errstr;
        mock_.reset(rd_kafka_mock_cluster_new(host_.get(), 3));
        ASSERT_TRUE(mock_);
        bootstrap_ = rd_kafka_mock_cluster_bootstraps(mock_.get());
        ASSERT_EQ(rd_kafka_mock_topic_create(mock_.get(), "orders", 3, 3), RD_KAFKA_RESP_ERR_NO_ERROR);
        ASSERT_EQ(rd_kafka_mock_topic_create(mock_.get(), "audit", 1, 3), RD_KAFKA_RESP_ERR_NO_ERROR);
        // The mock picks leaders at random.
        for (std::int32_t p = 0; p < 3; ++p)
            ASSERT_EQ(rd_kafka_mock_partition_set_leader(mock_.get(), "orders", p, p + 1), RD_KAFKA_RESP_ERR_NO_ERROR);
        ASSERT_EQ(rd_kafka_mock_partition_set_leader(mock_.get(), "audit", 0, 2), RD_KAFKA_RESP_ERR_NO_ERROR);
        std::ofstream(config_path_) << "default.api.timeout.ms=1500\n";
    }

    void TearDown() override {
        std::filesystem::remove(config_path_);
        mock_.reset();
        host_.reset();
    }

    CliResult topics(std::vector<std::string> args) {
        args.insert(args.begin(), {"--bootstrap-server", bootstrap_, "--command-config", config_path_.string()});
        return test::run_cli(args, [](const AdminConfig& config) -> std::unique_ptr<TopicAdmin> {
            return std::make_unique<MockClusterAdmin>(config);
        });
    }

    rdkafka::Client host_;
    rdkafka::MockCluster mock_;
    std::string bootstrap_;
    std::filesystem::path config_path_ =
        std::filesystem::temp_directory_path() / ("weir-topics-mock-" + std::to_string(::getpid()) + ".properties");
};

TEST_F(TopicsMockTest, List) {
    const auto r = topics({"--list"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "audit\norders\n");
}

TEST_F(TopicsMockTest, DescribeShowsLeadersReplicasAndIsr) {
    const auto r = topics({"--describe", "--topic", "orders"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out,
              "Topic: orders\tPartitionCount: 3\tReplicationFactor: 3\tConfigs: retention.ms=3600000\n"
              "\tTopic: orders\tPartition: 0\tLeader: 1\tReplicas: 1,2,3\tIsr: 1,2,3\n"
              "\tTopic: orders\tPartition: 1\tLeader: 2\tReplicas: 1,2,3\tIsr: 1,2,3\n"
              "\tTopic: orders\tPartition: 2\tLeader: 3\tReplicas: 1,2,3\tIsr: 1,2,3\n");
}

TEST_F(TopicsMockTest, UnavailablePartitions) {
    auto r = topics({"--describe", "--unavailable-partitions"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;

    ASSERT_EQ(rd_kafka_mock_partition_set_leader(mock_.get(), "orders", 1, -1), RD_KAFKA_RESP_ERR_NO_ERROR);
    r = topics({"--describe", "--unavailable-partitions"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "\tTopic: orders\tPartition: 1\tLeader: none\tReplicas: 1,2,3\tIsr: 1,2,3\n");
}

TEST_F(TopicsMockTest, DescribeUnknownTopic) {
    const auto r = topics({"--describe", "--topic", "nope"});
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(r.out, kToolError + "Topic 'nope' does not exist as expected\n");
}

// What the mock cannot do fails within default.api.timeout.ms (1.5 s) plus client start-up.
TEST_F(TopicsMockTest, UnsupportedCallsFailWithinTheBound) {
    for (const std::vector<std::string>& action : {std::vector<std::string>{"--create", "--topic", "t"},
                                                   {"--alter", "--topic", "orders", "--partitions", "4"},
                                                   {"--delete", "--topic", "audit"}}) {
        const auto start = std::chrono::steady_clock::now();
        const auto r = topics(action);
        const auto took = std::chrono::steady_clock::now() - start;
        EXPECT_EQ(r.code, 1) << action[0] << ": " << r.out;
        EXPECT_EQ(r.out.rfind(kToolError, 0), 0U) << r.out;
        EXPECT_NE(r.err.find("timeout 1500 ms"), std::string::npos) << r.err;
        EXPECT_LT(took, std::chrono::seconds(6)) << action[0];
    }
    EXPECT_EQ(topics({"--list"}).out, "audit\norders\n");
}

TEST(TopicsUnreachable, EveryActionGivesUpWithinTheBound) {
    // Nothing listens on port 1.
    const auto path =
        std::filesystem::temp_directory_path() / ("weir-topics-unreachable-" + std::to_string(::getpid()));
    std::ofstream(path) << "default.api.timeout.ms=1000\n";
    for (const std::vector<std::string>& action : {std::vector<std::string>{"--list"},
                                                   {"--describe"},
                                                   {"--create", "--topic", "t"},
                                                   {"--alter", "--topic", "t", "--partitions", "2"},
                                                   {"--delete", "--topic", "t"}}) {
        std::vector<std::string> args = {"--bootstrap-server", "127.0.0.1:1", "--command-config", path.string()};
        args.insert(args.end(), action.begin(), action.end());
        const auto start = std::chrono::steady_clock::now();
        const auto r = test::run_cli(args);
        const auto took = std::chrono::steady_clock::now() - start;
        EXPECT_EQ(r.code, 1) << action[0];
        EXPECT_EQ(r.out.rfind(kToolError, 0), 0U) << action[0] << ": " << r.out;
        EXPECT_LT(took, std::chrono::seconds(6)) << action[0];
    }
    std::filesystem::remove(path);
}

}  // namespace
}  // namespace weir::cli::topics
