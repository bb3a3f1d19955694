#include "broker/config/topic_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "broker/config/describe_configs.h"
#include "broker/config/test/config_test_util.h"

namespace weir::config {
namespace {

using ::testing::HasSubstr;

TEST(TopicConfigTest, KafkaDefaultsWithoutOverrides) {
    TopicConfig t = resolve_topic_config(broker({}), {});
    EXPECT_EQ(t.log.retention_ms, 604800000);
    EXPECT_EQ(t.log.retention_bytes, -1);
    EXPECT_EQ(t.log.segment_bytes, 1073741824);
    EXPECT_EQ(t.log.segment_ms, 604800000);
    EXPECT_EQ(t.values.at("segment.jitter.ms"), "0");
    EXPECT_TRUE(t.log.cleanup_delete);
    EXPECT_FALSE(t.log.cleanup_compact);
    EXPECT_EQ(t.log.message_timestamp_type, records::TimestampType::create_time);
    EXPECT_EQ(t.log.max_message_bytes, 1048588);
    EXPECT_EQ(t.log.min_insync_replicas, 1);
    EXPECT_EQ(t.log.index_interval_bytes, 4096);
    EXPECT_EQ(t.log.flush_interval_messages, INT64_MAX);
    EXPECT_EQ(t.log.flush_interval_ms, INT64_MAX);
    EXPECT_EQ(t.values.at("compression.type"), "producer");
    EXPECT_EQ(t.log.min_cleanable_dirty_ratio, 0.5);
    EXPECT_EQ(t.values.at("retention.ms"), "604800000");
    EXPECT_EQ(t.values.size(), topic_config_keys().size());
}

// Code that builds a LogConfig itself (tests, internal logs) gets what a
// topic without overrides gets from the table.
TEST(TopicConfigTest, TheLogConfigsDefaultsAreTheTablesDefaults) {
    EXPECT_EQ(resolve_topic_config(broker({}), {}).log, storage::LogConfig{});
}

TEST(TopicConfigTest, BrokerSettingsBecomeTopicDefaults) {
    BrokerConfig b = broker({{"log.retention.hours", "24"},
                             {"log.roll.hours", "1"},
                             {"log.segment.bytes", "1048576"},
                             {"message.max.bytes", "2000000"},
                             {"log.cleanup.policy", "compact"},
                             {"log.message.timestamp.type", "LogAppendTime"},
                             {"log.flush.interval.ms", "250"},
                             {"min.insync.replicas", "2"}});
    TopicConfig t = resolve_topic_config(b, {});
    EXPECT_EQ(t.log.retention_ms, 24LL * 3600 * 1000);
    EXPECT_EQ(t.log.segment_ms, 3600LL * 1000);
    EXPECT_EQ(t.log.segment_bytes, 1048576);
    EXPECT_EQ(t.log.max_message_bytes, 2000000);
    EXPECT_TRUE(t.log.cleanup_compact);
    EXPECT_FALSE(t.log.cleanup_delete);
    EXPECT_EQ(t.log.message_timestamp_type, records::TimestampType::log_append_time);
    EXPECT_EQ(t.log.flush_interval_ms, 250);
    EXPECT_EQ(t.log.min_insync_replicas, 2);
}

TEST(TopicConfigTest, RetentionSynonymPrecedence) {
    EXPECT_EQ(resolve_topic_config(broker({{"log.retention.minutes", "2"}, {"log.retention.hours", "5"}}), {})
                  .log.retention_ms,
              120000);
    EXPECT_EQ(
        resolve_topic_config(broker({{"log.retention.ms", "99"}, {"log.retention.minutes", "2"}}), {}).log.retention_ms,
        99);
    EXPECT_EQ(resolve_topic_config(broker({{"log.retention.hours", "-3"}}), {}).log.retention_ms, -1);
}

TEST(TopicConfigTest, OverridesBeatBrokerDefaults) {
    BrokerConfig b = broker({{"log.retention.hours", "24"}});
    TopicConfig t = resolve_topic_config(b, {{"retention.ms", "1000"}, {"cleanup.policy", "compact,delete"}});
    EXPECT_EQ(t.log.retention_ms, 1000);
    EXPECT_TRUE(t.log.cleanup_compact);
    EXPECT_TRUE(t.log.cleanup_delete);
    // An invalid stored override is ignored rather than trusted.
    EXPECT_EQ(resolve_topic_config(b, {{"retention.ms", "soon"}}).log.retention_ms, 24LL * 3600 * 1000);
}

TEST(TopicConfigTest, Validation) {
    ConfigMap normalized;
    EXPECT_FALSE(
        validate_topic_configs({{"retention.ms", " 5000 "}, {"cleanup.policy", "compact , delete"}}, &normalized));
    EXPECT_EQ(normalized.at("retention.ms"), "5000");
    EXPECT_EQ(normalized.at("cleanup.policy"), "compact,delete");

    EXPECT_EQ(validate_topic_configs({{"retention.hours", "5"}}), "Unknown topic config name: retention.hours");
    EXPECT_EQ(validate_topic_configs({{"log.retention.ms", "5"}}), "Unknown topic config name: log.retention.ms");
    EXPECT_THAT(*validate_topic_configs({{"retention.ms", "-2"}}), HasSubstr("Value must be at least -1"));
    EXPECT_THAT(*validate_topic_configs({{"segment.bytes", "10"}}), HasSubstr("segment.bytes"));
    EXPECT_THAT(*validate_topic_configs({{"message.timestamp.type", "Now"}}), HasSubstr("String must be one of"));
    EXPECT_THAT(*validate_topic_configs({{"min.insync.replicas", "0"}}), HasSubstr("min.insync.replicas"));
    EXPECT_THAT(*validate_topic_configs({{"min.compaction.lag.ms", "10"}, {"max.compaction.lag.ms", "5"}}),
                HasSubstr("conflict topic config setting"));
    EXPECT_FALSE(validate_topic_configs({{"leader.replication.throttled.replicas", "0:1,1:2"}}));
    EXPECT_TRUE(validate_topic_configs({{"leader.replication.throttled.replicas", "0-1"}}));
    EXPECT_FALSE(validate_topic_configs({}));
}

TEST(DescribeConfigsTest, TopicSources) {
    BrokerConfig b = broker({{"log.segment.bytes", "1048576"}, {"log.retention.hours", "24"}});
    auto entries = describe_topic_configs(b, {{"cleanup.policy", "compact"}});
    EXPECT_EQ(entries.size(), topic_config_keys().size());

    const auto& cleanup = entry(entries, "cleanup.policy");
    EXPECT_EQ(cleanup.source, ConfigSource::dynamic_topic_config);
    EXPECT_EQ(cleanup.value, "compact");
    EXPECT_FALSE(cleanup.read_only);
    EXPECT_EQ(cleanup.type, ConfigType::list);
    ASSERT_EQ(cleanup.synonyms.size(), 2U);
    EXPECT_EQ(cleanup.synonyms[0].source, ConfigSource::dynamic_topic_config);
    EXPECT_EQ(cleanup.synonyms[1].name, "log.cleanup.policy");
    EXPECT_EQ(cleanup.synonyms[1].source, ConfigSource::default_config);

    const auto& segment = entry(entries, "segment.bytes");
    EXPECT_EQ(segment.source, ConfigSource::static_broker_config);
    EXPECT_EQ(segment.value, "1048576");
    ASSERT_EQ(segment.synonyms.size(), 2U);
    EXPECT_EQ(segment.synonyms[0].name, "log.segment.bytes");
    EXPECT_EQ(segment.synonyms[0].value, "1048576");
    EXPECT_EQ(segment.synonyms[1].value, "1073741824");

    const auto& compression = entry(entries, "compression.type");
    EXPECT_EQ(compression.source, ConfigSource::default_config);
    EXPECT_EQ(compression.value, "producer");
    EXPECT_TRUE(compression.is_default());

    // Like Kafka: the value follows log.retention.hours, but the synonym list
    // starts at log.retention.ms, so the hours entries are dropped.
    const auto& retention = entry(entries, "retention.ms");
    EXPECT_EQ(retention.value, "86400000");
    EXPECT_EQ(retention.source, ConfigSource::default_config);
    EXPECT_TRUE(retention.synonyms.empty());
}

TEST(DescribeConfigsTest, BrokerSourcesAndReadOnly) {
    BrokerConfig b = broker({{"log.retention.hours", "24"}, {"num.partitions", "3"}});
    auto entries = describe_broker_configs(b);

    const auto& parts = entry(entries, "num.partitions");
    EXPECT_EQ(parts.value, "3");
    EXPECT_EQ(parts.source, ConfigSource::static_broker_config);
    EXPECT_TRUE(parts.read_only);
    ASSERT_EQ(parts.synonyms.size(), 2U);
    EXPECT_EQ(parts.synonyms[0].source, ConfigSource::static_broker_config);
    EXPECT_EQ(parts.synonyms[1].source, ConfigSource::default_config);
    EXPECT_EQ(parts.synonyms[1].value, "1");

    const auto& hours = entry(entries, "log.retention.hours");
    EXPECT_EQ(hours.value, "24");
    EXPECT_EQ(hours.source, ConfigSource::static_broker_config);
    EXPECT_TRUE(hours.read_only);  // only log.retention.ms of the group is dynamic

    const auto& ms = entry(entries, "log.retention.ms");
    EXPECT_FALSE(ms.value.has_value());
    EXPECT_EQ(ms.source, ConfigSource::default_config);
    EXPECT_TRUE(ms.synonyms.empty());

    const auto& id = entry(entries, "broker.id");
    EXPECT_EQ(id.value, "0");
    EXPECT_EQ(id.source, ConfigSource::default_config);
    EXPECT_EQ(id.type, ConfigType::int32);
    EXPECT_FALSE(id.is_sensitive);
    EXPECT_FALSE(id.documentation.empty());
}

}  // namespace
}  // namespace weir::config
