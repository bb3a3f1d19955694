#include "broker/metadata/zookeeper/zk_data.h"

#include <gtest/gtest.h>

namespace weir::zk {
namespace {

TEST(ZkData, Paths) {
    EXPECT_EQ(paths::broker(3), "/brokers/ids/3");
    EXPECT_EQ(paths::topic("t"), "/brokers/topics/t");
    EXPECT_EQ(paths::partition_state("t", 7), "/brokers/topics/t/partitions/7/state");
    EXPECT_EQ(paths::topic_config("t"), "/config/topics/t");
    EXPECT_EQ(paths::broker_config(std::nullopt), "/config/brokers/<default>");
    EXPECT_EQ(paths::broker_config(2), "/config/brokers/2");
    EXPECT_EQ(paths::delete_topic("t"), "/admin/delete_topics/t");
}

TEST(ZkData, ReadsKafkasBrokerRegistration) {
    // As a Kafka 3.x broker writes it (ZkData.scala, version 5).
    auto b = decode_broker(
        1, R"({"features":{},"listener_security_protocol_map":{"CLIENT":"PLAINTEXT","REPLICATION":"PLAINTEXT"},)"
           R"("endpoints":["CLIENT://h1:9092","REPLICATION://h1:9093"],"jmx_port":9999,"port":9092,)"
           R"("host":"h1","version":5,"timestamp":"2233345666","rack":"dc1"})");
    EXPECT_EQ(b.id, 1);
    ASSERT_EQ(b.endpoints.size(), 2U);
    EXPECT_EQ(b.endpoints[0], (metadata::BrokerEndpoint{"CLIENT", "h1", 9092}));
    EXPECT_EQ(b.endpoints[1], (metadata::BrokerEndpoint{"REPLICATION", "h1", 9093}));
    EXPECT_EQ(b.rack, "dc1");
    // Version 1: host and port only.
    auto old = decode_broker(2, R"({"jmx_port":-1,"timestamp":"1","host":"h2","version":1,"port":9094})");
    ASSERT_EQ(old.endpoints.size(), 1U);
    EXPECT_EQ(old.endpoints[0], (metadata::BrokerEndpoint{"PLAINTEXT", "h2", 9094}));
    EXPECT_FALSE(old.rack);
}

TEST(ZkData, BrokerRegistrationRoundTrips) {
    metadata::BrokerInfo b{4, {{"PLAINTEXT", "127.0.0.1", 9092}, {"INTERNAL", "::1", 9093}}, std::string("r1")};
    auto json = encode_broker(b, 1700000000000);
    EXPECT_NE(json.find(R"("version":5)"), std::string::npos);
    EXPECT_NE(json.find(R"("host":"127.0.0.1")"), std::string::npos);
    EXPECT_NE(json.find(R"("port":9092)"), std::string::npos);
    EXPECT_NE(json.find(R"("timestamp":"1700000000000")"), std::string::npos);
    EXPECT_NE(json.find(R"("INTERNAL://[::1]:9093")"), std::string::npos);
    EXPECT_EQ(decode_broker(4, json), b);
}

TEST(ZkData, TopicAssignment) {
    auto a =
        decode_topic_assignment(R"({"version":2,"partitions":{"0":[1,2,3],"1":[2,3,1]},)"
                                R"("adding_replicas":{},"removing_replicas":{},"topic_id":"AAAAAAAAAAAAAAAAAAAAAQ"})");
    ASSERT_EQ(a.partitions.size(), 2U);
    EXPECT_EQ(a.partitions.at(1), (std::vector<std::int32_t>{2, 3, 1}));
    ASSERT_TRUE(a.topic_id);
    EXPECT_EQ(decode_topic_assignment(encode_topic_assignment(a)).partitions, a.partitions);
    EXPECT_EQ(decode_topic_assignment(encode_topic_assignment(a)).topic_id, a.topic_id);
    // Version 1 (no topic id), as old tools write it.
    EXPECT_FALSE(decode_topic_assignment(R"({"version":1,"partitions":{"0":[1]}})").topic_id);
    EXPECT_THROW(decode_topic_assignment(R"({"version":2})"), ZkDataError);
    EXPECT_THROW(decode_topic_assignment("not json"), ZkDataError);
    EXPECT_THROW(decode_topic_assignment(R"({"partitions":{"x":[1]}})"), ZkDataError);
}

TEST(ZkData, PartitionState) {
    auto s = decode_partition_state(R"({"version":1,"leader":1,"leader_epoch":4,"controller_epoch":2,"isr":[1,2,3]})");
    EXPECT_EQ(s, (LeaderAndIsr{1, 4, {1, 2, 3}, 2}));
    EXPECT_EQ(decode_partition_state(encode_partition_state(s)), s);
    EXPECT_THROW(decode_partition_state(R"({"version":1,"leader":1})"), ZkDataError);
}

TEST(ZkData, ConfigsControllerAndClusterId) {
    config::ConfigMap c{{"cleanup.policy", "compact"}, {"retention.ms", "1000"}};
    EXPECT_EQ(decode_config(encode_config(c)), c);
    EXPECT_EQ(decode_config(R"({"version":1,"config":{}})"), config::ConfigMap{});
    EXPECT_EQ(decode_config(""), config::ConfigMap{});
    EXPECT_THROW(decode_config(R"({"version":1,"config":{"a":1}})"), ZkDataError);
    EXPECT_EQ(decode_controller(R"({"version":1,"brokerid":1,"timestamp":"1585098432431"})"), 1);
    EXPECT_EQ(decode_controller(encode_controller(7, 5)), 7);
    EXPECT_EQ(decode_cluster_id(R"({"version":"1","id":"Xy-Z"})"), "Xy-Z");
    EXPECT_EQ(decode_cluster_id(encode_cluster_id("abc")), "abc");
    EXPECT_EQ(encode_config_change("topics/t"), R"({"version":2,"entity_path":"topics/t"})");
}

}  // namespace
}  // namespace weir::zk
