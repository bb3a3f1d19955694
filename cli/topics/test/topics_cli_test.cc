// `weir topics` end to end against an in-memory cluster (FakeTopicAdmin): what is asked of the
// cluster, what is printed where, and the exit codes.
#include "cli/topics/topics_cli.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "cli/topics/test/fake_topic_admin.h"

namespace weir::cli::topics {
namespace {

using test::CliResult;
using test::FakeCluster;
using Calls = std::vector<std::string>;

const std::string kError = "Error while executing topic command : ";

class TopicsCliTest : public ::testing::Test {
protected:
    CliResult topics(std::vector<std::string> args) {
        args.insert(args.begin(), {"--bootstrap-server", "kafka:9092"});
        return test::run_cli(args, test::fake_admin(cluster_, &config_));
    }

    FakeCluster cluster_;
    AdminConfig config_;
};

TEST_F(TopicsCliTest, CreatePrintsWhatKafkaPrints) {
    auto r = topics({"--create", "--topic", "orders", "--partitions", "3", "--replication-factor", "1", "--config",
                     "cleanup.policy=compact", "--config", "retention.ms=1000"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "Created topic orders.\n");
    EXPECT_TRUE(r.err.empty()) << r.err;
    EXPECT_EQ(config_.bootstrap, "kafka:9092");
    ASSERT_TRUE(cluster_.last_created.has_value());
    EXPECT_EQ(cluster_.last_created->partitions, 3);
    EXPECT_EQ(cluster_.last_created->replication_factor, 1);
    EXPECT_EQ(cluster_.last_created->configs, (std::vector<std::pair<std::string, std::string>>{
                                                  {"cleanup.policy", "compact"}, {"retention.ms", "1000"}}));

    // Without counts the broker's defaults apply; a '.' or '_' in the name draws Kafka's warning.
    r = topics({"--create", "--topic", "orders.eu"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out,
              "WARNING: Due to limitations in metric names, topics with a period ('.') or underscore ('_') could "
              "collide. To avoid issues it is best to use either, but not both.\nCreated topic orders.eu.\n");
    EXPECT_EQ(cluster_.last_created->partitions, -1);
    EXPECT_EQ(cluster_.last_created->replication_factor, -1);
}

TEST_F(TopicsCliTest, CreateWithReplicaAssignment) {
    const auto r = topics({"--create", "--topic", "t", "--replica-assignment", "1:2,2:1"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(cluster_.last_created->assignment, (std::vector<std::vector<std::int32_t>>{{1, 2}, {2, 1}}));
}

TEST_F(TopicsCliTest, CreateExistingTopic) {
    cluster_.add_topic("orders", 1);
    auto r = topics({"--create", "--topic", "orders"});
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(r.out, kError + "Topic 'orders' already exists.\n");
    EXPECT_EQ(r.err, "ERROR Topic 'orders' already exists.\n");

    r = topics({"--create", "--topic", "orders", "--if-not-exists"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST_F(TopicsCliTest, CreateRefusesBadCountsBeforeAsking) {
    for (const auto& [args, message] : std::vector<std::pair<std::vector<std::string>, std::string>>{
             {{"--partitions", "0"}, "The partitions must be greater than 0"},
             {{"--replication-factor", "0"}, "The replication factor must be between 1 and 32767 inclusive"},
             {{"--replication-factor", "32768"}, "The replication factor must be between 1 and 32767 inclusive"},
             {{"--config", "nonsense"},
              "requirement failed: Invalid topic config: all configs to be added must be in the format \"key=val\"."},
             {{"--replica-assignment", "1:1"}, "Partition replica lists may not contain duplicate entries: 1"},
             {{"--partitions", "x"}, "Cannot parse argument 'x' of option partitions"}}) {
        std::vector<std::string> full = {"--create", "--topic", "t"};
        full.insert(full.end(), args.begin(), args.end());
        const auto r = topics(full);
        EXPECT_EQ(r.code, 1) << message;
        EXPECT_EQ(r.out, kError + message + "\n");
    }
    EXPECT_EQ(std::count(cluster_.calls.begin(), cluster_.calls.end(), "create t"), 0);
}

TEST_F(TopicsCliTest, ListIsSortedAndFiltered) {
    cluster_.add_topic("payments", 1);
    cluster_.add_topic("orders", 1);
    cluster_.add_topic("__consumer_offsets", 1);
    auto r = topics({"--list"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "__consumer_offsets\norders\npayments\n");
    r = topics({"--list", "--exclude-internal"});
    EXPECT_EQ(r.out, "orders\npayments\n");
    r = topics({"--list", "--topic", "ord.*"});
    EXPECT_EQ(r.out, "orders\n");
    r = topics({"--list", "--topic", "nothing"});  // no error for --list, and Kafka's empty line
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "\n");
}

TEST_F(TopicsCliTest, DescribeAllOrSome) {
    cluster_.brokers = {1, 2};
    cluster_.add_topic("orders", 2, 2, {{"cleanup.policy", "compact"}});
    cluster_.add_topic("audit", 1);
    auto r = topics({"--describe"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out,
              "Topic: audit\tPartitionCount: 1\tReplicationFactor: 1\tConfigs: \n"
              "\tTopic: audit\tPartition: 0\tLeader: 1\tReplicas: 1\tIsr: 1\n"
              "Topic: orders\tPartitionCount: 2\tReplicationFactor: 2\tConfigs: cleanup.policy=compact\n"
              "\tTopic: orders\tPartition: 0\tLeader: 1\tReplicas: 1,2\tIsr: 1,2\n"
              "\tTopic: orders\tPartition: 1\tLeader: 2\tReplicas: 1,2\tIsr: 1,2\n");

    r = topics({"--describe", "--topic", "orders", "--topics-with-overrides"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "Topic: orders\tPartitionCount: 2\tReplicationFactor: 2\tConfigs: cleanup.policy=compact\n");

    cluster_.topics["orders"].partitions[1].isr = {2};
    r = topics({"--describe", "--under-replicated-partitions"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "\tTopic: orders\tPartition: 1\tLeader: 2\tReplicas: 1,2\tIsr: 2\n");
}

TEST_F(TopicsCliTest, UnknownTopicIsAnErrorUnlessIfExists) {
    cluster_.add_topic("orders", 1);
    for (const auto& action :
         std::vector<std::vector<std::string>>{{"--describe"}, {"--delete"}, {"--alter", "--partitions", "4"}}) {
        std::vector<std::string> args = action;
        args.insert(args.end(), {"--topic", "missing"});
        auto r = topics(args);
        EXPECT_EQ(r.code, 1) << action[0];
        EXPECT_EQ(r.out, kError + "Topic 'missing' does not exist as expected\n") << action[0];
        EXPECT_EQ(r.err, "ERROR Topic 'missing' does not exist as expected\n") << action[0];

        args.push_back("--if-exists");
        r = topics(args);
        EXPECT_EQ(r.code, 0) << action[0] << ": " << r.out;
        EXPECT_TRUE(r.out.empty()) << r.out;
    }
    EXPECT_EQ(cluster_.topics.size(), 1U);
    // Only listings were asked for.
    EXPECT_EQ(std::count(cluster_.calls.begin(), cluster_.calls.end(), "list"),
              static_cast<std::ptrdiff_t>(cluster_.calls.size()));
}

TEST_F(TopicsCliTest, AlterIncreasesPartitions) {
    cluster_.add_topic("orders", 2);
    auto r = topics({"--alter", "--topic", "orders", "--partitions", "4"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;  // Kafka 3's --alter prints nothing
    EXPECT_EQ(cluster_.topics["orders"].partitions.size(), 4U);

    r = topics({"--alter", "--topic", "orders", "--partitions", "2"});
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(r.out, kError + "Topic currently has 4 partitions, which is higher than the requested 2.\n");
    EXPECT_EQ(cluster_.topics["orders"].partitions.size(), 4U);
}

TEST_F(TopicsCliTest, AlterWithAssignmentSendsOnlyTheNewPartitions) {
    cluster_.brokers = {1, 2, 3};
    cluster_.add_topic("orders", 2);
    const auto r = topics({"--alter", "--topic", "orders", "--partitions", "4", "--replica-assignment", "1,2,3,1"});
    ASSERT_EQ(r.code, 0) << r.out;
    ASSERT_EQ(cluster_.last_increases.size(), 1U);
    EXPECT_EQ(cluster_.last_increases[0].total, 4);
    EXPECT_EQ(cluster_.last_increases[0].assignment, (std::vector<std::vector<std::int32_t>>{{3}, {1}}));
}

TEST_F(TopicsCliTest, AlterAndDeleteTakeEveryMatchingTopic) {
    cluster_.add_topic("orders.eu", 1);
    cluster_.add_topic("orders.us", 1);
    cluster_.add_topic("payments", 1);
    auto r = topics({"--alter", "--topic", "orders\\..*", "--partitions", "2"});
    ASSERT_EQ(r.code, 0) << r.out;
    EXPECT_EQ(cluster_.topics["orders.eu"].partitions.size(), 2U);
    EXPECT_EQ(cluster_.topics["orders.us"].partitions.size(), 2U);
    EXPECT_EQ(cluster_.topics["payments"].partitions.size(), 1U);

    r = topics({"--delete", "--topic", "orders.eu,orders.us"});
    ASSERT_EQ(r.code, 0) << r.out;
    EXPECT_TRUE(r.out.empty()) << r.out;  // Kafka 3's --delete prints nothing
    EXPECT_EQ(cluster_.topics.size(), 1U);
    EXPECT_TRUE(cluster_.topics.contains("payments"));
}

TEST_F(TopicsCliTest, ClusterErrorsAreCommandErrors) {
    cluster_.add_topic("orders", 1);
    cluster_.fail_next = AdminError(-185, "list topics: Local: Timed out");
    auto r = topics({"--list"});
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(r.out, kError + "list topics: Local: Timed out\n");
    // librdkafka's own errors get a hint on stderr.
    EXPECT_EQ(r.err, "ERROR list topics: Local: Timed out (bootstrap kafka:9092, timeout 30000 ms)\n");

    r = topics({"--list", "--topic", "bad("});
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(r.out, kError + "bad( is an invalid regex.\n");
}

TEST_F(TopicsCliTest, UsageErrorsGoToStderrWithTheUsage) {
    auto r = topics({"--list", "--describe"});
    EXPECT_EQ(r.code, 1);
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_EQ(r.err.substr(0, r.err.find('\n')),
              "Command must include exactly one action: --list, --describe, --create, --alter or --delete");
    EXPECT_NE(r.err.find("--bootstrap-server <String: server to"), std::string::npos) << r.err;

    r = test::run_cli({"--help"});
    EXPECT_EQ(r.code, 1);  // Kafka's tools exit 1 after printing their help
    EXPECT_NE(r.err.find("--replica-assignment"), std::string::npos) << r.err;

    r = test::run_cli({"--zookeeper", "zk:2181", "--list"});
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(r.err.substr(0, r.err.find('\n')), "zookeeper is not a recognized option");
    EXPECT_EQ(r.err.find("--bootstrap-server <String"), std::string::npos) << "no usage for a parser error";

    r = test::run_cli({"--list"});
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(r.err, "--bootstrap-server must be specified\n");
    EXPECT_TRUE(cluster_.calls.empty());
}

class TopicsCommandConfigTest : public TopicsCliTest {
protected:
    void TearDown() override { std::filesystem::remove(path_); }

    std::string write(const std::string& text) {
        std::ofstream(path_) << text;
        return path_.string();
    }

    std::filesystem::path path_ =
        std::filesystem::temp_directory_path() / ("weir-topics-cli-" + std::to_string(::getpid()) + ".properties");
};

TEST_F(TopicsCommandConfigTest, JavaClientPropertiesAreTranslated) {
    const auto file = write(
        "default.api.timeout.ms=2500\n"
        "client.id=ops-script\n"
        "bootstrap.servers=ignored:1\n"
        "sasl.login.callback.handler.class=org.example.Handler\n");
    const auto r = topics({"--list", "--command-config", file});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(config_.timeout, std::chrono::milliseconds(2500));
    EXPECT_EQ(config_.bootstrap, "kafka:9092");
    EXPECT_EQ(config_.properties, (std::vector<std::pair<std::string, std::string>>{{"bootstrap.servers", "ignored:1"},
                                                                                    {"client.id", "ops-script"}}));
    EXPECT_EQ(r.err,
              "WARN The configuration 'sasl.login.callback.handler.class' was supplied but isn't a known config.\n");
}

TEST_F(TopicsCommandConfigTest, BadFilesFailBeforeContactingTheCluster) {
    auto r = topics({"--list", "--command-config", "/nonexistent.properties"});
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(r.err, "/nonexistent.properties (No such file or directory)\n");
    EXPECT_TRUE(r.out.empty());

    r = topics({"--list", "--command-config", write("default.api.timeout.ms=soon\n")});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("Invalid value soon for configuration default.api.timeout.ms"), std::string::npos) << r.err;

    // Java's Properties.load throws on a broken \u escape, so kafka-topics.sh stops there as well.
    r = topics({"--list", "--command-config", write("client.id=\\u12\n")});
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(r.err, path_.string() + ": Malformed \\uxxxx encoding on line 1\n");
    EXPECT_TRUE(cluster_.calls.empty());
}

// The file is read by the broker's parser of server.properties: a character beyond the BMP, which
// Java writes as two \u escapes, reaches librdkafka as one UTF-8 code point.
TEST_F(TopicsCommandConfigTest, EscapedSurrogatePairsReachTheClientAsUtf8) {
    const auto r = topics({"--list", "--command-config", write("client.id=ops-\\uD83D\\uDE00\n")});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(config_.properties,
              (std::vector<std::pair<std::string, std::string>>{{"client.id", "ops-\xF0\x9F\x98\x80"}}));
}

// Keys librdkafka knows but cannot honour (Java trust stores, JAAS) stop the tool with its explanation.
TEST(TopicsCliKafkaClient, PropertiesLibrdkafkaRefusesFailWithoutContactingABroker) {
    const auto path =
        std::filesystem::temp_directory_path() / ("weir-topics-bad-" + std::to_string(::getpid()) + ".properties");
    for (const auto& [line, expected] : std::vector<std::pair<std::string, std::string>>{
             {"security.protocol=carrier-pigeon", "security.protocol=carrier-pigeon"},
             {"ssl.truststore.location=/etc/kafka/truststore.jks", "Java TrustStores are not supported"}}) {
        std::ofstream(path) << line << "\n";
        const auto r =
            test::run_cli({"--bootstrap-server", "127.0.0.1:1", "--list", "--command-config", path.string()});
        EXPECT_EQ(r.code, 1) << line;
        EXPECT_NE(r.err.find(expected), std::string::npos) << r.err;
        EXPECT_TRUE(r.out.empty()) << r.out;
    }
    std::filesystem::remove(path);
}

}  // namespace
}  // namespace weir::cli::topics
