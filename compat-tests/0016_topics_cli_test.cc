// The `weir topics` binary (kafka-topics.sh's command line) end to end against a weir broker:
// create with configs, describe, list, alter, delete and Kafka's error cases, each checked on the
// broker through librdkafka's admin API as well; and the one-line kafka-topics.sh wrapper driven
// through a shell, as librdkafka's own test suite drives Kafka's script.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "broker/common/temp_dir.h"
#include "harness/admin.h"
#include "harness/broker_process.h"
#include "harness/kafka_client.h"
#include "harness/subprocess.h"

namespace weir::compat {
namespace {

using namespace std::chrono_literals;

const std::string kError = "Error while executing topic command : ";

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

// The k=v pairs after "Configs: " in a --describe topic line.
std::set<std::string> configs_of(const std::string& topic_line) {
    std::set<std::string> out;
    const auto at = topic_line.find("\tConfigs: ");
    if (at == std::string::npos) return out;
    std::istringstream in(topic_line.substr(at + 10));
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty()) out.insert(item);
    return out;
}

class TopicsCliTest : public ::testing::Test {
protected:
    void SetUp() override { broker_.start(); }

    ProcessResult topics(std::vector<std::string> args) {
        args.insert(args.begin(), {weir_binary(), "topics", "--bootstrap-server", broker_.bootstrap()});
        auto r = run_process(args, 60s);
        EXPECT_FALSE(r.timed_out) << r.describe();
        return r;
    }

    int partition_count(const std::string& topic) {
        const auto md = cluster_metadata(admin().handle(), 5s);
        EXPECT_EQ(md.err, RdKafka::ERR_NO_ERROR);
        const auto it = md.topics.find(topic);
        return it == md.topics.end() ? -1 : static_cast<int>(it->second.partitions.size());
    }

    Admin& admin() {
        if (!admin_) admin_ = std::make_unique<Admin>(broker_.bootstrap());
        return *admin_;
    }

    BrokerProcess broker_;
    std::unique_ptr<Admin> admin_;
};

TEST_F(TopicsCliTest, CreateDescribeListAlterDelete) {
    auto r = topics({"--create", "--topic", "cli-orders", "--partitions", "2", "--replication-factor", "1", "--config",
                     "cleanup.policy=compact", "--config", "retention.ms=3600000"});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_EQ(r.out, "Created topic cli-orders.\n");
    EXPECT_TRUE(r.err.empty()) << r.err;
    EXPECT_EQ(partition_count("cli-orders"), 2);
    const auto configs = admin().describe_topic_configs("cli-orders");
    ASSERT_EQ(configs.result.err, RD_KAFKA_RESP_ERR_NO_ERROR) << configs.result.describe();
    EXPECT_EQ(configs.entries.at("cleanup.policy").value, "compact");
    EXPECT_EQ(configs.entries.at("retention.ms").value, "3600000");

    r = topics({"--describe", "--topic", "cli-orders"});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    auto lines = lines_of(r.out);
    ASSERT_EQ(lines.size(), 3U) << r.out;
    EXPECT_EQ(lines[0].rfind("Topic: cli-orders\tPartitionCount: 2\tReplicationFactor: 1\tConfigs: ", 0), 0U)
        << lines[0];
    const auto shown = configs_of(lines[0]);
    EXPECT_TRUE(shown.contains("cleanup.policy=compact")) << lines[0];
    EXPECT_TRUE(shown.contains("retention.ms=3600000")) << lines[0];
    EXPECT_EQ(lines[1], "\tTopic: cli-orders\tPartition: 0\tLeader: 0\tReplicas: 0\tIsr: 0");
    EXPECT_EQ(lines[2], "\tTopic: cli-orders\tPartition: 1\tLeader: 0\tReplicas: 0\tIsr: 0");

    r = topics({"--describe", "--topics-with-overrides"});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_EQ(lines_of(r.out).size(), 1U) << r.out;

    r = topics({"--create", "--topic", "cli-audit"});  // the broker's default partition count
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_EQ(partition_count("cli-audit"), 1);
    r = topics({"--list"});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_EQ(r.out, "cli-audit\ncli-orders\n");
    r = topics({"--list", "--topic", "cli-o.*"});
    EXPECT_EQ(r.out, "cli-orders\n");

    r = topics({"--alter", "--topic", "cli-orders", "--partitions", "4"});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_EQ(partition_count("cli-orders"), 4);
    r = topics({"--describe", "--topic", "cli-orders"});
    lines = lines_of(r.out);
    ASSERT_EQ(lines.size(), 5U) << r.out;
    EXPECT_NE(lines[0].find("\tPartitionCount: 4\t"), std::string::npos) << lines[0];
    EXPECT_EQ(lines[4], "\tTopic: cli-orders\tPartition: 3\tLeader: 0\tReplicas: 0\tIsr: 0");

    r = topics({"--delete", "--topic", "cli-audit"});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_EQ(partition_count("cli-audit"), -1);
    r = topics({"--list"});
    EXPECT_EQ(r.out, "cli-orders\n");
}

TEST_F(TopicsCliTest, KafkasErrors) {
    ASSERT_EQ(topics({"--create", "--topic", "cli-dup", "--partitions", "3"}).exit_code, 0);

    auto r = topics({"--create", "--topic", "cli-dup"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.out, kError + "Topic 'cli-dup' already exists.\n");
    EXPECT_NE(r.err.find("Topic 'cli-dup' already exists."), std::string::npos) << r.err;
    r = topics({"--create", "--topic", "cli-dup", "--if-not-exists"});
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_TRUE(r.out.empty()) << r.out;

    for (const auto& action :
         std::vector<std::vector<std::string>>{{"--describe"}, {"--delete"}, {"--alter", "--partitions", "5"}}) {
        auto args = action;
        args.insert(args.end(), {"--topic", "cli-ghost"});
        r = topics(args);
        EXPECT_EQ(r.exit_code, 1) << action[0];
        EXPECT_EQ(r.out, kError + "Topic 'cli-ghost' does not exist as expected\n") << action[0];
        args.push_back("--if-exists");
        r = topics(args);
        EXPECT_EQ(r.exit_code, 0) << action[0] << ": " << r.describe();
    }
    EXPECT_EQ(partition_count("cli-ghost"), -1);

    r = topics({"--alter", "--topic", "cli-dup", "--partitions", "2"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.out, kError + "Topic currently has 3 partitions, which is higher than the requested 2.\n");
    r = topics({"--alter", "--topic", "cli-dup", "--partitions", "3"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.out, kError + "Topic already has 3 partitions.\n");
    EXPECT_EQ(partition_count("cli-dup"), 3);

    r = topics({"--create", "--topic", "cli-bad-config", "--config", "retention.ms=soon"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.out.rfind(kError, 0), 0U) << r.out;
    EXPECT_EQ(partition_count("cli-bad-config"), -1);

    r = topics({"--list", "--describe"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("Command must include exactly one action"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;

    r = run_process({weir_binary(), "topics", "--zookeeper", "127.0.0.1:2181", "--list"}, 60s);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err.rfind("zookeeper is not a recognized option\n", 0), 0U) << r.err;
}

TEST_F(TopicsCliTest, KafkaTopicsShWrapperThroughAShell) {
    TempDir dir("weir-topics-wrapper");
    const auto script = dir.path() / "kafka-topics.sh";
    std::ofstream(script) << "#!/bin/sh\nexec '" << weir_binary() << "' topics \"$@\"\n";
    std::filesystem::permissions(script, std::filesystem::perms::owner_all);
    // What librdkafka's test_kafka_topics() hands to system(), quotes and all.
    const std::string cmd = script.string() + " --bootstrap-server " + broker_.bootstrap() +
                            " --create --topic \"rdkafkatest_rnd_0052\" --replication-factor 1 --partitions 1 "
                            "--config message.timestamp.type=LogAppendTime";
    auto r = run_process({"/bin/sh", "-c", cmd}, 60s);
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_EQ(r.out,
              "WARNING: Due to limitations in metric names, topics with a period ('.') or underscore ('_') could "
              "collide. To avoid issues it is best to use either, but not both.\n"
              "Created topic rdkafkatest_rnd_0052.\n");
    const auto configs = admin().describe_topic_configs("rdkafkatest_rnd_0052");
    ASSERT_EQ(configs.result.err, RD_KAFKA_RESP_ERR_NO_ERROR) << configs.result.describe();
    EXPECT_EQ(configs.entries.at("message.timestamp.type").value, "LogAppendTime");

    r = run_process({"/bin/sh", "-c",
                     script.string() + " --bootstrap-server " + broker_.bootstrap() +
                         " --delete --topic \"rdkafkatest_rnd_0052\" "},
                    60s);
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_EQ(partition_count("rdkafkatest_rnd_0052"), -1);
}

// `weir configs` (kafka-configs.sh) on the same broker: the overrides weir
// topics --describe shows are the ones it set and removed.
TEST_F(TopicsCliTest, ConfigsDescribesAddsAndDeletesTopicOverrides) {
    ASSERT_EQ(topics({"--create", "--topic", "cfg", "--config", "retention.ms=1000"}).exit_code, 0);
    const auto configs = [&](std::vector<std::string> args) {
        args.insert(args.begin(), {weir_binary(), "configs", "--bootstrap-server", broker_.bootstrap()});
        auto r = run_process(args, 60s);
        EXPECT_FALSE(r.timed_out) << r.describe();
        return r;
    };
    auto described = configs({"--entity-type", "topics", "--entity-name", "cfg", "--describe"});
    ASSERT_EQ(described.exit_code, 0) << described.describe();
    EXPECT_EQ(lines_of(described.out),
              (std::vector<std::string>{
                  "Dynamic configs for topic cfg are:",
                  "  retention.ms=1000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=1000}"}));

    auto altered =
        configs({"--topic", "cfg", "--alter", "--add-config", "cleanup.policy=[compact,delete],segment.bytes=1048576",
                 "--delete-config", "retention.ms"});
    ASSERT_EQ(altered.exit_code, 0) << altered.describe();
    EXPECT_EQ(altered.out, "Completed updating config for topic cfg.\n");
    auto line = lines_of(topics({"--describe", "--topic", "cfg"}).out).at(0);
    EXPECT_EQ(configs_of(line), (std::set<std::string>{"cleanup.policy=compact", "delete", "segment.bytes=1048576"}))
        << line;

    auto invalid = configs({"--topic", "cfg", "--alter", "--delete-config", "retention.ms"});
    EXPECT_EQ(invalid.exit_code, 1);
    EXPECT_EQ(invalid.err, "Invalid config(s): retention.ms\n");
    auto refused = configs({"--topic", "cfg", "--alter", "--add-config", "max.message.bytes=abc"});
    EXPECT_EQ(refused.exit_code, 1);
    EXPECT_NE(refused.err.find("Invalid value abc for configuration max.message.bytes"), std::string::npos)
        << refused.err;
}

}  // namespace
}  // namespace weir::compat
