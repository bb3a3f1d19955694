#include "broker/config/broker_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "broker/config/config_error.h"

namespace weir::config {
namespace {

using ::testing::HasSubstr;

BrokerConfig build(const ConfigMap& props) {
    std::vector<std::string> warnings;
    return build_broker_config(props, warnings);
}

// The joined ConfigError message, or "" if the config was accepted.
std::string error_of(const ConfigMap& props) {
    try {
        build(props);
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "";
}

TEST(BrokerConfigTest, DefaultsMatchStructDefaults) {
    std::vector<std::string> warnings;
    BrokerConfig built = build_broker_config({}, warnings);
    BrokerConfig plain;
    EXPECT_TRUE(warnings.empty());
    EXPECT_EQ(built.broker_id, plain.broker_id);
    EXPECT_EQ(built.listeners, plain.listeners);
    EXPECT_EQ(built.advertised_listeners, plain.advertised_listeners);
    EXPECT_EQ(built.inter_broker_listener_name, plain.inter_broker_listener_name);
    EXPECT_EQ(built.log_dirs, plain.log_dirs);
    EXPECT_EQ(built.num_partitions, plain.num_partitions);
    EXPECT_EQ(built.default_replication_factor, plain.default_replication_factor);
    EXPECT_EQ(built.auto_create_topics_enable, plain.auto_create_topics_enable);
    EXPECT_EQ(built.message_max_bytes, plain.message_max_bytes);
    EXPECT_EQ(built.socket_request_max_bytes, plain.socket_request_max_bytes);
    EXPECT_EQ(built.log_segment_bytes, plain.log_segment_bytes);
    EXPECT_EQ(built.log_roll_ms, plain.log_roll_ms);
    EXPECT_EQ(built.log_roll_jitter_ms, plain.log_roll_jitter_ms);
    EXPECT_EQ(built.log_retention_ms, plain.log_retention_ms);
    EXPECT_EQ(built.log_retention_bytes, plain.log_retention_bytes);
    EXPECT_EQ(built.log_retention_check_interval_ms, plain.log_retention_check_interval_ms);
    EXPECT_EQ(built.log_cleanup_policy, plain.log_cleanup_policy);
    EXPECT_EQ(built.log_flush_interval_messages, plain.log_flush_interval_messages);
    EXPECT_EQ(built.log_flush_interval_ms, plain.log_flush_interval_ms);
    EXPECT_EQ(built.log_index_interval_bytes, plain.log_index_interval_bytes);
    EXPECT_EQ(built.log_index_size_max_bytes, plain.log_index_size_max_bytes);
    EXPECT_EQ(built.log_message_timestamp_type, plain.log_message_timestamp_type);
    EXPECT_EQ(built.compression_type, plain.compression_type);
    EXPECT_EQ(built.connections_max_idle_ms, plain.connections_max_idle_ms);
    EXPECT_EQ(built.queued_max_requests, plain.queued_max_requests);
    EXPECT_EQ(built.group_initial_rebalance_delay_ms, plain.group_initial_rebalance_delay_ms);
    EXPECT_EQ(built.group_min_session_timeout_ms, plain.group_min_session_timeout_ms);
    EXPECT_EQ(built.group_max_session_timeout_ms, plain.group_max_session_timeout_ms);
    EXPECT_EQ(built.group_max_size, plain.group_max_size);
    EXPECT_EQ(built.offsets_topic_num_partitions, plain.offsets_topic_num_partitions);
    EXPECT_EQ(built.offsets_topic_replication_factor, plain.offsets_topic_replication_factor);
    EXPECT_EQ(built.offsets_retention_minutes, plain.offsets_retention_minutes);
    EXPECT_EQ(built.offsets_commit_timeout_ms, plain.offsets_commit_timeout_ms);
    EXPECT_EQ(built.zookeeper_connect, plain.zookeeper_connect);
    EXPECT_EQ(built.zookeeper_session_timeout_ms, plain.zookeeper_session_timeout_ms);
    EXPECT_EQ(built.zookeeper_connection_timeout_ms, plain.zookeeper_connection_timeout_ms);
    EXPECT_EQ(built.replica_lag_time_max_ms, plain.replica_lag_time_max_ms);
    EXPECT_EQ(built.min_insync_replicas, plain.min_insync_replicas);
    EXPECT_EQ(built.admin_listener, plain.admin_listener);
    EXPECT_TRUE(built.single_node());
    EXPECT_TRUE(built.static_props.empty());
}

TEST(BrokerConfigTest, KafkaStockServerPropertiesAreAccepted) {
    std::vector<std::string> warnings;
    BrokerConfig c = build_broker_config({{"broker.id", "0"},
                                          {"num.network.threads", "3"},
                                          {"num.io.threads", "8"},
                                          {"socket.send.buffer.bytes", "102400"},
                                          {"socket.receive.buffer.bytes", "102400"},
                                          {"socket.request.max.bytes", "104857600"},
                                          {"log.dirs", "/tmp/kafka-logs"},
                                          {"num.partitions", "1"},
                                          {"num.recovery.threads.per.data.dir", "1"},
                                          {"offsets.topic.replication.factor", "1"},
                                          {"transaction.state.log.replication.factor", "1"},
                                          {"transaction.state.log.min.isr", "1"},
                                          {"log.retention.hours", "168"},
                                          {"log.retention.check.interval.ms", "300000"},
                                          {"zookeeper.connect", "localhost:2181"},
                                          {"zookeeper.connection.timeout.ms", "18000"},
                                          {"group.initial.rebalance.delay.ms", "0"}},
                                         warnings);
    EXPECT_TRUE(warnings.empty());
    EXPECT_FALSE(c.single_node());
    EXPECT_EQ(c.group_initial_rebalance_delay_ms, 0);
    EXPECT_EQ(c.log_dirs, std::vector<std::filesystem::path>{"/tmp/kafka-logs"});
}

TEST(BrokerConfigTest, UnknownKeysWarnOnly) {
    std::vector<std::string> warnings;
    BrokerConfig c = build_broker_config({{"no.such.key", "1"}, {"num.partitions", "4"}}, warnings);
    ASSERT_EQ(warnings.size(), 1U);
    EXPECT_THAT(warnings[0], HasSubstr("'no.such.key'"));
    EXPECT_EQ(c.num_partitions, 4);
}

TEST(BrokerConfigTest, ValuesAreTrimmedAndCanonical) {
    BrokerConfig c = build({{"num.partitions", "  6  "}, {"auto.create.topics.enable", "FALSE "}});
    EXPECT_EQ(c.num_partitions, 6);
    EXPECT_FALSE(c.auto_create_topics_enable);
    EXPECT_EQ(c.static_props.at("num.partitions"), "6");
    EXPECT_EQ(c.static_props.at("auto.create.topics.enable"), "false");
}

TEST(BrokerConfigTest, RetentionPrecedence) {
    EXPECT_EQ(build({}).log_retention_ms, 168LL * 3600 * 1000);
    EXPECT_EQ(build({{"log.retention.hours", "24"}}).log_retention_ms, 24LL * 3600 * 1000);
    EXPECT_EQ(build({{"log.retention.hours", "24"}, {"log.retention.minutes", "30"}}).log_retention_ms,
              30LL * 60 * 1000);
    EXPECT_EQ(build({{"log.retention.hours", "24"}, {"log.retention.minutes", "30"}, {"log.retention.ms", "1234"}})
                  .log_retention_ms,
              1234);
    EXPECT_EQ(build({{"log.retention.ms", "-1"}}).log_retention_ms, -1);
    EXPECT_EQ(build({{"log.retention.minutes", "-7"}}).log_retention_ms, -1);
    EXPECT_THAT(error_of({{"log.retention.ms", "0"}}), HasSubstr("log.retention.ms must be unlimited (-1)"));
    EXPECT_THAT(error_of({{"log.retention.hours", "0"}}), HasSubstr("log.retention.hours"));
}

TEST(BrokerConfigTest, RollTime) {
    EXPECT_EQ(build({{"log.roll.hours", "2"}}).log_roll_ms, 2LL * 3600 * 1000);
    EXPECT_EQ(build({{"log.roll.hours", "2"}, {"log.roll.ms", "5000"}}).log_roll_ms, 5000);
    EXPECT_THAT(error_of({{"log.roll.ms", "0"}}), HasSubstr("log.roll.ms"));
    EXPECT_THAT(error_of({{"log.roll.hours", "0"}}), HasSubstr("Value must be at least 1"));
}

TEST(BrokerConfigTest, FlushAndCleanup) {
    BrokerConfig c = build({{"log.flush.interval.ms", "1000"},
                            {"log.cleanup.policy", "compact,delete"},
                            {"log.message.timestamp.type", "LogAppendTime"}});
    EXPECT_EQ(c.log_flush_interval_ms, std::optional<std::int64_t>(1000));
    EXPECT_TRUE(c.log_cleanup_policy.compact);
    EXPECT_TRUE(c.log_cleanup_policy.remove);
    EXPECT_EQ(c.log_message_timestamp_type, records::TimestampType::log_append_time);
    EXPECT_FALSE(build({}).log_flush_interval_ms.has_value());
}

TEST(BrokerConfigTest, LogDirs) {
    EXPECT_EQ(build({{"log.dir", "/a"}}).log_dirs, std::vector<std::filesystem::path>{"/a"});
    EXPECT_EQ(build({{"log.dir", "/a"}, {"log.dirs", "/b, /c"}}).log_dirs,
              (std::vector<std::filesystem::path>{"/b", "/c"}));
    EXPECT_EQ(build({{"log.dirs", ""}, {"log.dir", "/a"}}).log_dirs, std::vector<std::filesystem::path>{"/a"});
    EXPECT_THAT(error_of({{"log.dirs", "/b,/b/"}}), HasSubstr("Duplicate log directory"));
    EXPECT_THAT(error_of({{"log.dir", " , "}}), HasSubstr("At least one log directory"));
}

TEST(BrokerConfigTest, BrokerIdAndNodeIdAlias) {
    EXPECT_EQ(build({{"broker.id", "3"}}).broker_id, 3);
    EXPECT_EQ(build({{"node.id", "4"}}).broker_id, 4);
    EXPECT_EQ(build({{"node.id", "4"}, {"broker.id", "4"}}).broker_id, 4);
    EXPECT_THAT(error_of({{"node.id", "4"}, {"broker.id", "5"}}), HasSubstr("must be equal"));
    EXPECT_THAT(error_of({{"broker.id", "-1"}}), HasSubstr("Invalid value -1 for configuration broker.id"));
}

TEST(BrokerConfigTest, InvalidValuesNameKeyAndValueAndAreAllReported) {
    try {
        build({{"num.partitions", "zero"}, {"message.max.bytes", "-5"}, {"compression.type", "brotli"}});
        FAIL() << "expected ConfigError";
    } catch (const ConfigError& e) {
        ASSERT_EQ(e.errors().size(), 3U) << e.what();
        EXPECT_THAT(e.what(), HasSubstr("Invalid value zero for configuration num.partitions"));
        EXPECT_THAT(e.what(), HasSubstr("Invalid value -5 for configuration message.max.bytes"));
        EXPECT_THAT(e.what(), HasSubstr("Invalid value brotli for configuration compression.type"));
    }
    EXPECT_THAT(error_of({{"log.message.timestamp.type", "WallTime"}}), HasSubstr("WallTime"));
    EXPECT_THAT(error_of({{"log.cleanup.policy", "delete,archive"}}), HasSubstr("archive"));
}

TEST(BrokerConfigTest, CrossKeyChecks) {
    EXPECT_THAT(error_of({{"replica.fetch.wait.max.ms", "40000"}}), HasSubstr("replica.socket.timeout.ms"));
    EXPECT_THAT(error_of({{"offsets.commit.required.acks", "5"}}), HasSubstr("offsets.commit.required.acks"));
    EXPECT_THAT(error_of({{"log.cleaner.dedupe.buffer.size", "1000"}}), HasSubstr("1MB per cleaner thread"));
}

TEST(BrokerConfigTest, ListenersParsing) {
    BrokerConfig c = build({{"listeners", "PLAINTEXT://:9092,INTERNAL://[::1]:9093,ext://10.0.0.1:0"},
                            {"listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,INTERNAL:PLAINTEXT,EXT:plaintext"},
                            {"advertised.listeners", "PLAINTEXT://kafka.example:19092"}});
    ASSERT_EQ(c.listeners.size(), 3U);
    EXPECT_EQ(c.listeners[0].name, "PLAINTEXT");
    EXPECT_EQ(c.listeners[0].host, "");
    EXPECT_EQ(c.listeners[0].port, 9092);
    EXPECT_EQ(c.listeners[1].name, "INTERNAL");
    EXPECT_EQ(c.listeners[1].host, "::1");
    EXPECT_EQ(c.listeners[1].to_string(), "INTERNAL://[::1]:9093");
    EXPECT_EQ(c.listeners[2].name, "EXT");  // names are upper-cased like Kafka's
    EXPECT_EQ(c.listeners[2].port, 0);
    ASSERT_EQ(c.advertised_listeners.size(), 1U);
    EXPECT_EQ(c.advertised_listeners[0].host, "kafka.example");
    EXPECT_EQ(c.advertised_listeners[0].port, 19092);
    ASSERT_NE(c.advertised_listener("PLAINTEXT"), nullptr);
    EXPECT_EQ(c.advertised_listener("INTERNAL"), nullptr);
}

TEST(BrokerConfigTest, AdvertisedDefaultsToListenersWithHostName) {
    BrokerConfig c = build({{"listeners", "PLAINTEXT://:9092"}});
    ASSERT_EQ(c.advertised_listeners.size(), 1U);
    EXPECT_FALSE(c.advertised_listeners[0].host.empty());
    EXPECT_EQ(c.advertised_listeners[0].port, 9092);
    EXPECT_EQ(c.listeners[0].host, "");  // still binds everything
}

TEST(BrokerConfigTest, ListenerErrors) {
    EXPECT_THAT(error_of({{"listeners", "PLAINTEXT:/localhost:9092"}}), HasSubstr("Unable to parse"));
    EXPECT_THAT(error_of({{"listeners", "PLAINTEXT://localhost"}}), HasSubstr("Unable to parse"));
    EXPECT_THAT(error_of({{"listeners", "PLAINTEXT://localhost:70000"}}), HasSubstr("Unable to parse"));
    EXPECT_THAT(error_of({{"listeners", "PLAINTEXT://local host:9092"}}), HasSubstr("Unable to parse"));
    EXPECT_THAT(error_of({{"listeners", "SSL://localhost:9093"}}), HasSubstr("does not support"));
    EXPECT_THAT(error_of({{"listeners", "CLIENT://localhost:9093"}}),
                HasSubstr("No security protocol defined for listener CLIENT"));
    EXPECT_THAT(error_of({{"listener.security.protocol.map", "PLAINTEXT:TLS"}}),
                HasSubstr("listener.security.protocol.map"));
    EXPECT_THAT(error_of({{"listeners", "PLAINTEXT://a:9092,PLAINTEXT://b:9093"}}), HasSubstr("different name"));
    EXPECT_THAT(error_of({{"listeners", "PLAINTEXT://a:9092,B://b:9092"},
                          {"listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,B:PLAINTEXT"}}),
                HasSubstr("different port"));
    EXPECT_THAT(error_of({{"listeners", ""}}), HasSubstr("At least one listener"));
    EXPECT_THAT(error_of({{"listeners", "PLAINTEXT://0.0.0.0:9092"}}), HasSubstr("nonroutable meta-address"));
    EXPECT_EQ(error_of({{"listeners", "PLAINTEXT://0.0.0.0:9092"}, {"advertised.listeners", "PLAINTEXT://h:9092"}}),
              "");
    EXPECT_THAT(error_of({{"advertised.listeners", "OTHER://h:9092"},
                          {"listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,OTHER:PLAINTEXT"}}),
                HasSubstr("subset"));
}

TEST(BrokerConfigTest, InterBrokerListener) {
    const ConfigMap custom{{"listeners", "CLIENT://127.0.0.1:9092"},
                           {"listener.security.protocol.map", "CLIENT:PLAINTEXT"}};
    EXPECT_THAT(error_of(custom), HasSubstr("inter.broker.listener.name"));
    ConfigMap with_name = custom;
    with_name["inter.broker.listener.name"] = "client";
    EXPECT_EQ(build(with_name).inter_broker_listener_name, "CLIENT");
    ConfigMap both = with_name;
    both["security.inter.broker.protocol"] = "PLAINTEXT";
    EXPECT_THAT(error_of(both), HasSubstr("Only one of"));
}

TEST(BrokerConfigTest, AdminListener) {
    auto a = build({{"weir.admin.listener", "127.0.0.1:8080"}}).admin_listener;
    ASSERT_TRUE(a.has_value());
    EXPECT_EQ(a->host, "127.0.0.1");
    EXPECT_EQ(a->port, 8080);
    auto b = build({{"weir.admin.listener", "http://:8081"}}).admin_listener;
    ASSERT_TRUE(b.has_value());
    EXPECT_EQ(b->host, "");
    EXPECT_EQ(b->port, 8081);
    EXPECT_THAT(error_of({{"weir.admin.listener", "nonsense"}}), HasSubstr("weir.admin.listener"));
    // On by default, on loopback only; empty turns it off; port 0 asks for any free port.
    EXPECT_EQ(build({}).admin_listener, (config::AdminListener{"127.0.0.1", 9644}));
    EXPECT_FALSE(build({{"weir.admin.listener", ""}}).admin_listener.has_value());
    EXPECT_EQ(build({{"weir.admin.listener", "http://127.0.0.1:0"}}).admin_listener,
              (config::AdminListener{"127.0.0.1", 0}));
}

TEST(BrokerConfigTest, InternalTopicReplicationFactorIsClampedToLiveBrokers) {
    BrokerConfig c = build({});
    EXPECT_EQ(c.offsets_topic_replication_factor, 3);
    EXPECT_EQ(c.internal_topic_replication_factor(1), 1);
    EXPECT_EQ(c.internal_topic_replication_factor(0), 1);
    EXPECT_EQ(c.internal_topic_replication_factor(5), 3);
    EXPECT_EQ(build({{"offsets.topic.replication.factor", "2"}}).internal_topic_replication_factor(5), 2);
}

TEST(BrokerConfigTest, ZooKeeperSettings) {
    BrokerConfig c = build({{"zookeeper.connect", "zk:2181/weir"}, {"zookeeper.session.timeout.ms", "9000"}});
    EXPECT_FALSE(c.single_node());
    EXPECT_EQ(c.zookeeper_connect, "zk:2181/weir");
    EXPECT_EQ(c.zookeeper_connection_timeout_ms, 9000);  // falls back to the session timeout
    EXPECT_TRUE(build({{"zookeeper.connect", ""}}).single_node());
}

}  // namespace
}  // namespace weir::config
