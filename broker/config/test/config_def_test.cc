#include "broker/config/config_def.h"

#include <gtest/gtest.h>

#include "broker/config/config_error.h"
#include "broker/config/config_keys.h"

namespace weir::config {
namespace {

const ConfigKey& broker_key(std::string_view name) {
    const ConfigKey* k = find_broker_config_key(name);
    EXPECT_NE(k, nullptr) << name;
    return *k;
}

std::string error_of(const ConfigKey& key, std::string_view raw) {
    try {
        normalize_value(key, raw);
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "";
}

TEST(ConfigDefTest, Booleans) {
    const auto& k = broker_key("auto.create.topics.enable");
    EXPECT_EQ(normalize_value(k, " TRUE "), "true");
    EXPECT_EQ(normalize_value(k, "False"), "false");
    EXPECT_EQ(
        error_of(k, "yes"),
        "Invalid value yes for configuration auto.create.topics.enable: Expected value to be either true or false");
}

TEST(ConfigDefTest, IntegersAndRanges) {
    EXPECT_EQ(normalize_value(broker_key("num.partitions"), " +12 "), "12");
    EXPECT_EQ(error_of(broker_key("num.partitions"), "0"),
              "Invalid value 0 for configuration num.partitions: Value must be at least 1");
    EXPECT_EQ(error_of(broker_key("num.partitions"), "1x"),
              "Invalid value 1x for configuration num.partitions: Not a number of type INT");
    EXPECT_EQ(error_of(broker_key("num.partitions"), "2147483648"),
              "Invalid value 2147483648 for configuration num.partitions: Not a number of type INT");
    EXPECT_EQ(normalize_value(broker_key("num.partitions"), "2147483647"), "2147483647");
    EXPECT_EQ(error_of(broker_key("offsets.topic.replication.factor"), "32768"),
              "Invalid value 32768 for configuration offsets.topic.replication.factor: Not a number of type SHORT");
    EXPECT_EQ(normalize_value(broker_key("log.retention.bytes"), "-9223372036854775808"), "-9223372036854775808");
    EXPECT_FALSE(error_of(broker_key("log.retention.bytes"), "9223372036854775808").empty());
    EXPECT_FALSE(error_of(broker_key("log.retention.bytes"), "").empty());
    EXPECT_FALSE(error_of(broker_key("log.retention.bytes"), "-").empty());
}

TEST(ConfigDefTest, Doubles) {
    const auto& k = broker_key("log.cleaner.min.cleanable.ratio");
    EXPECT_EQ(normalize_value(k, "0.25"), "0.25");
    EXPECT_EQ(normalize_value(k, "1"), "1.0");
    EXPECT_EQ(error_of(k, "1.5"),
              "Invalid value 1.5 for configuration log.cleaner.min.cleanable.ratio: Value must be no more than 1");
    EXPECT_EQ(error_of(k, "-0.1"),
              "Invalid value -0.1 for configuration log.cleaner.min.cleanable.ratio: Value must be no less than 0");
    EXPECT_FALSE(error_of(k, "half").empty());
    // Java's Double.toString, as Kafka describes them.
    const auto& rate = broker_key("log.cleaner.io.max.bytes.per.second");
    EXPECT_EQ(normalize_value(rate, "1000000"), "1000000.0");
    EXPECT_EQ(normalize_value(rate, "1e7"), "1.0E7");
    EXPECT_EQ(normalize_value(rate, "0.0001"), "1.0E-4");
    EXPECT_EQ(normalize_value(rate, "0"), "0.0");
    EXPECT_EQ(normalize_value(rate, "1.7976931348623157E308"), "1.7976931348623157E308");
}

TEST(ConfigDefTest, EnumsAndLists) {
    const auto& ts = broker_key("log.message.timestamp.type");
    EXPECT_EQ(normalize_value(ts, "LogAppendTime"), "LogAppendTime");
    EXPECT_EQ(
        error_of(ts, "logappendtime"),
        "Invalid value logappendtime for configuration log.message.timestamp.type: String must be one of: CreateTime, "
        "LogAppendTime");
    const auto& cp = broker_key("log.cleanup.policy");
    EXPECT_EQ(normalize_value(cp, " compact ,  delete "), "compact,delete");
    EXPECT_EQ(normalize_value(cp, ""), "");
    EXPECT_EQ(error_of(cp, "compact,shrink"),
              "Invalid value shrink for configuration log.cleanup.policy: String must be one of: compact, delete");
    EXPECT_EQ(as_list("a,b,c").size(), 3U);
    EXPECT_TRUE(as_list("").empty());
}

TEST(ConfigDefTest, EveryDefaultIsValid) {
    for (const ConfigKey& k : broker_config_keys()) {
        if (!k.default_value) continue;
        EXPECT_NO_THROW(normalize_value(k, *k.default_value)) << k.name;
        EXPECT_EQ(normalize_value(k, *k.default_value), *k.default_value) << k.name << " default is not canonical";
    }
    for (const TopicConfigKey& k : topic_config_keys()) {
        ASSERT_TRUE(k.key.default_value) << k.key.name;
        EXPECT_EQ(normalize_value(k.key, *k.key.default_value), *k.key.default_value) << k.key.name;
        for (const BrokerSynonym& s : k.synonyms) EXPECT_NE(find_broker_config_key(s.name), nullptr) << s.name;
    }
}

TEST(ConfigDefTest, TopicNamesOfBrokerKeys) {
    EXPECT_EQ(topic_config_name_for("log.retention.ms"), "retention.ms");
    EXPECT_EQ(topic_config_name_for("log.segment.bytes"), "segment.bytes");
    EXPECT_EQ(topic_config_name_for("log.message.timestamp.type"), "message.timestamp.type");
    EXPECT_EQ(topic_config_name_for("log.cleanup.policy"), "cleanup.policy");
    EXPECT_EQ(topic_config_name_for("message.max.bytes"), "max.message.bytes");
    EXPECT_EQ(topic_config_name_for("min.insync.replicas"), "min.insync.replicas");
    EXPECT_EQ(topic_config_name_for("log.roll.ms"), "segment.ms");
    EXPECT_EQ(topic_config_name_for("log.index.interval.bytes"), "index.interval.bytes");
    EXPECT_EQ(topic_config_name_for("log.flush.interval.messages"), "flush.messages");
    EXPECT_EQ(topic_config_name_for("log.retention.hours"), "");  // not the primary synonym
    EXPECT_EQ(topic_config_name_for("broker.id"), "");
}

TEST(ConfigDefTest, BrokerSynonyms) {
    auto s = broker_config_synonyms("log.retention.hours");
    ASSERT_EQ(s.size(), 3U);
    EXPECT_EQ(s[0], "log.retention.ms");
    EXPECT_EQ(broker_config_synonyms("num.partitions").size(), 1U);
}

}  // namespace
}  // namespace weir::config
