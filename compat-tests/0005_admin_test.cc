// Admin API through librdkafka: CreateTopics (configs, validate_only, errors),
// DescribeConfigs, AlterConfigs of dynamic broker configs, CreatePartitions,
// DeleteTopics.
#include <gtest/gtest.h>

#include <filesystem>

#include "harness/admin.h"
#include "harness/broker_process.h"
#include "harness/kafka_client.h"
#include "harness/wait.h"

namespace weir::compat {
namespace {

using namespace std::chrono_literals;

class AdminTest : public ::testing::Test {
protected:
    void SetUp() override { broker_.start(); }

    bool listed(const std::string& topic) {
        const auto md = cluster_metadata(admin().handle(), 5s);
        EXPECT_EQ(md.err, RdKafka::ERR_NO_ERROR);
        return md.topics.contains(topic);
    }
    int partition_count(const std::string& topic) {
        const auto md = cluster_metadata(admin().handle(), 5s);
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

TEST_F(AdminTest, CreateWithConfigsAndDescribe) {
    const auto r =
        admin().create_topic("configured", 3, 1, {{"retention.ms", "3600000"}, {"cleanup.policy", "delete"}});
    ASSERT_EQ(r.err, RD_KAFKA_RESP_ERR_NO_ERROR) << r.describe();

    const auto md = cluster_metadata(admin().handle(), 5s);
    ASSERT_TRUE(md.topics.contains("configured"));
    const auto& t = md.topics.at("configured");
    EXPECT_EQ(t.err, RdKafka::ERR_NO_ERROR);
    ASSERT_EQ(t.partitions.size(), 3u);
    for (const auto& p : t.partitions) {
        EXPECT_EQ(p.err, RdKafka::ERR_NO_ERROR);
        EXPECT_EQ(p.leader, 0) << "partition " << p.id;
    }

    const auto d = admin().describe_topic_configs("configured");
    ASSERT_EQ(d.result.err, RD_KAFKA_RESP_ERR_NO_ERROR) << d.result.describe();
    ASSERT_TRUE(d.entries.contains("retention.ms"));
    EXPECT_EQ(d.entries.at("retention.ms").value, "3600000");
    EXPECT_FALSE(d.entries.at("retention.ms").is_default);
    EXPECT_EQ(d.entries.at("retention.ms").source, RD_KAFKA_CONFIG_SOURCE_DYNAMIC_TOPIC_CONFIG);
    ASSERT_TRUE(d.entries.contains("cleanup.policy"));
    EXPECT_EQ(d.entries.at("cleanup.policy").value, "delete");
    // Topic configs that were not set are still listed, as defaults.
    ASSERT_TRUE(d.entries.contains("segment.bytes"));
    EXPECT_NE(d.entries.at("segment.bytes").source, RD_KAFKA_CONFIG_SOURCE_DYNAMIC_TOPIC_CONFIG);

    const auto missing = admin().describe_topic_configs("no-such-topic");
    EXPECT_EQ(missing.result.err, RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) << missing.result.describe();
}

TEST_F(AdminTest, CreatePartitions) {
    ASSERT_EQ(admin().create_topic("growing", 2).err, RD_KAFKA_RESP_ERR_NO_ERROR);
    auto r = admin().create_partitions("growing", 5);
    ASSERT_EQ(r.err, RD_KAFKA_RESP_ERR_NO_ERROR) << r.describe();
    EXPECT_TRUE(wait_until([&] { return partition_count("growing") == 5; }, 5s)) << partition_count("growing");

    r = admin().create_partitions("growing", 8, /*validate_only=*/true);
    EXPECT_EQ(r.err, RD_KAFKA_RESP_ERR_NO_ERROR) << r.describe();
    EXPECT_EQ(partition_count("growing"), 5) << "validate_only must not change anything";

    r = admin().create_partitions("growing", 3);
    EXPECT_EQ(r.err, RD_KAFKA_RESP_ERR_INVALID_PARTITIONS) << r.describe();
    r = admin().create_partitions("no-such-topic", 3);
    EXPECT_EQ(r.err, RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) << r.describe();

    // The new partitions take writes and reads.
    const auto d = produce_all(broker_.bootstrap(), {{"growing", 4, "k", "in-new-partition", {}, 0}});
    ASSERT_EQ(d.at(0).err, RdKafka::ERR_NO_ERROR) << err_name(d.at(0).err);
    EXPECT_EQ(d.at(0).offset, 0);
    const auto got = consume_all(broker_.bootstrap(), {{"growing", 4, RdKafka::Topic::OFFSET_BEGINNING}}, 1, 10s);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].value, "in-new-partition");
}

TEST_F(AdminTest, DeleteThenProduceAutoCreates) {
    ASSERT_EQ(admin().create_topic("doomed", 3).err, RD_KAFKA_RESP_ERR_NO_ERROR);
    ASSERT_EQ(produce_all(broker_.bootstrap(), {{"doomed", 2, "k", "old", {}, 0}}).at(0).err, RdKafka::ERR_NO_ERROR);
    const auto r = admin().delete_topic("doomed");
    ASSERT_EQ(r.err, RD_KAFKA_RESP_ERR_NO_ERROR) << r.describe();
    EXPECT_TRUE(wait_until([&] { return !listed("doomed"); }, 5s)) << "deleted topic still in metadata";
    EXPECT_EQ(admin().delete_topic("doomed").err, RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART);

    // auto.create.topics.enable=true (harness default): producing recreates it
    // with num.partitions=1 and none of the old data.
    const auto d = produce_all(broker_.bootstrap(), {{"doomed", RdKafka::Topic::PARTITION_UA, "k", "new", {}, 0}});
    ASSERT_EQ(d.at(0).err, RdKafka::ERR_NO_ERROR) << err_name(d.at(0).err);
    EXPECT_EQ(d.at(0).partition, 0);
    EXPECT_EQ(d.at(0).offset, 0);
    EXPECT_EQ(partition_count("doomed"), 1);
}

TEST(AdminNoAutoCreate, DeleteThenProduceFails) {
    BrokerProcess broker({.overrides = {{"auto.create.topics.enable", "false"}}});
    broker.start();
    Admin admin(broker.bootstrap());
    ASSERT_EQ(admin.create_topic("doomed", 1).err, RD_KAFKA_RESP_ERR_NO_ERROR);
    ASSERT_EQ(admin.delete_topic("doomed").err, RD_KAFKA_RESP_ERR_NO_ERROR);
    EXPECT_TRUE(wait_until([&] { return !cluster_metadata(admin.handle(), 5s).topics.contains("doomed"); }, 5s));
    const auto d = produce_all(broker.bootstrap(), {{"doomed", RdKafka::Topic::PARTITION_UA, "k", "v", {}, 0}},
                               {{"topic.metadata.propagation.max.ms", "1000"}, {"message.timeout.ms", "5000"}}, 15s);
    ASSERT_TRUE(d.at(0).done);
    EXPECT_TRUE(d.at(0).err == RdKafka::ERR__UNKNOWN_TOPIC || d.at(0).err == RdKafka::ERR_UNKNOWN_TOPIC_OR_PART)
        << err_name(d.at(0).err);
    EXPECT_FALSE(cluster_metadata(admin.handle(), 5s).topics.contains("doomed")) << "topic was auto-created";
}

TEST_F(AdminTest, CreateErrors) {
    ASSERT_EQ(admin().create_topic("twice", 1).err, RD_KAFKA_RESP_ERR_NO_ERROR);
    auto r = admin().create_topic("twice", 1);
    EXPECT_EQ(r.err, RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS) << r.describe();

    for (const auto& name : std::vector<std::string>{"bad name", "slash/topic", ".", "..", std::string(250, 'x')}) {
        r = admin().create_topic(name, 1);
        EXPECT_EQ(r.err, RD_KAFKA_RESP_ERR_TOPIC_EXCEPTION) << "name '" << name << "': " << r.describe();
    }
    EXPECT_EQ(admin().create_topic(std::string(249, 'y'), 1).err, RD_KAFKA_RESP_ERR_NO_ERROR) << "249 chars is legal";

    r = admin().create_topic("bad-config", 1, 1, {{"retention.ms", "not-a-number"}});
    EXPECT_EQ(r.err, RD_KAFKA_RESP_ERR_INVALID_CONFIG) << r.describe();
    r = admin().create_topic("unknown-config", 1, 1, {{"no.such.config", "1"}});
    EXPECT_EQ(r.err, RD_KAFKA_RESP_ERR_INVALID_CONFIG) << r.describe();
    r = admin().create_topic("too-many-replicas", 1, 3);
    EXPECT_EQ(r.err, RD_KAFKA_RESP_ERR_INVALID_REPLICATION_FACTOR) << r.describe();
    for (const char* t : {"bad-config", "unknown-config", "too-many-replicas"}) EXPECT_FALSE(listed(t)) << t;
}

TEST_F(AdminTest, ValidateOnly) {
    auto r = admin().create_topic("dry-run", 4, 1, {{"retention.ms", "1000"}}, /*validate_only=*/true);
    EXPECT_EQ(r.err, RD_KAFKA_RESP_ERR_NO_ERROR) << r.describe();
    EXPECT_FALSE(listed("dry-run")) << "validate_only created the topic";

    r = admin().create_topic("dry-run-bad", 1, 1, {{"retention.ms", "x"}}, /*validate_only=*/true);
    EXPECT_EQ(r.err, RD_KAFKA_RESP_ERR_INVALID_CONFIG) << r.describe();

    ASSERT_EQ(admin().create_topic("exists", 1).err, RD_KAFKA_RESP_ERR_NO_ERROR);
    r = admin().create_topic("exists", 1, 1, {}, /*validate_only=*/true);
    EXPECT_EQ(r.err, RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS) << r.describe();

    // And the real thing afterwards still works.
    r = admin().create_topic("dry-run", 4);
    EXPECT_EQ(r.err, RD_KAFKA_RESP_ERR_NO_ERROR) << r.describe();
    EXPECT_EQ(partition_count("dry-run"), 4);
}

// Dynamic broker configs: librdkafka's own 0081 case (a per-broker SASL key
// through legacy AlterConfigs), a log default that a running topic picks up at
// once, and both surviving a restart. librdkafka cannot name the cluster-wide
// default resource (""), so the handler tests cover that level.
TEST_F(AdminTest, DynamicBrokerConfigs) {
    ASSERT_EQ(admin().create_topic("dynamic", 1).err, RD_KAFKA_RESP_ERR_NO_ERROR);
    auto r = admin().alter_configs(RD_KAFKA_RESOURCE_BROKER, "0", {{"log.dirs", "/elsewhere"}});
    EXPECT_EQ(r.err, RD_KAFKA_RESP_ERR_INVALID_REQUEST) << r.describe();
    r = admin().alter_configs(RD_KAFKA_RESOURCE_BROKER, "0",
                              {{"sasl.kerberos.min.time.before.relogin", "58000"}, {"log.segment.bytes", "1024"}});
    EXPECT_EQ(r.err, RD_KAFKA_RESP_ERR_NO_ERROR) << r.describe();

    // The running log rolls at the new default size (one batch per produce).
    for (int i = 0; i < 3; ++i) {
        const auto d = produce_all(broker_.bootstrap(), {{"dynamic", 0, "k", std::string(2000, 'v'), {}, 0}});
        ASSERT_EQ(d.at(0).err, RdKafka::ERR_NO_ERROR);
    }
    int segments = 0;
    for (const auto& f : std::filesystem::directory_iterator(broker_.data_dir() / "dynamic-0"))
        segments += f.path().extension() == ".log";
    EXPECT_GT(segments, 1);

    auto check = [&] {
        const auto topic = admin().describe_topic_configs("dynamic");
        ASSERT_EQ(topic.result.err, RD_KAFKA_RESP_ERR_NO_ERROR) << topic.result.describe();
        EXPECT_EQ(topic.entries.at("segment.bytes").value, "1024");
        EXPECT_EQ(topic.entries.at("segment.bytes").source, RD_KAFKA_CONFIG_SOURCE_DYNAMIC_BROKER_CONFIG);
        const auto broker = admin().describe_broker_configs(0);
        ASSERT_EQ(broker.result.err, RD_KAFKA_RESP_ERR_NO_ERROR) << broker.result.describe();
        EXPECT_EQ(broker.entries.at("sasl.kerberos.min.time.before.relogin").value, "58000");
        EXPECT_EQ(broker.entries.at("sasl.kerberos.min.time.before.relogin").source,
                  RD_KAFKA_CONFIG_SOURCE_DYNAMIC_BROKER_CONFIG);
        EXPECT_FALSE(broker.entries.at("log.segment.bytes").read_only);
        EXPECT_TRUE(broker.entries.at("log.dirs").read_only);
    };
    check();
    admin_.reset();
    ASSERT_EQ(broker_.restart(), 0);
    check();
}

}  // namespace
}  // namespace weir::compat
