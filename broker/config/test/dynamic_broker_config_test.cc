#include "broker/config/dynamic_broker_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "broker/config/broker_config.h"
#include "broker/config/config_keys.h"
#include "broker/config/describe_configs.h"
#include "broker/config/test/config_test_util.h"
#include "broker/config/topic_config.h"

namespace weir::config {
namespace {

using ::testing::HasSubstr;

std::optional<std::string> validate(const BrokerConfig& config, const ConfigMap& proposed, bool per_broker = true,
                                    const DynamicBrokerConfigs& stored = {}) {
    return validate_dynamic_broker_configs(config, stored, proposed, per_broker);
}

// Kafka's DynamicLogConfig.ReconfigurableConfigs: the first broker synonym of
// every topic config, except log.message.format.version.
TEST(DynamicBrokerConfigTest, LogDefaultsAreDynamicButNotTheirLesserSynonyms) {
    for (const TopicConfigKey& key : topic_config_keys()) {
        if (key.synonyms.empty()) continue;
        EXPECT_EQ(is_dynamic_broker_config(key.synonyms.front().name), key.key.name != "message.format.version")
            << key.synonyms.front().name;
        for (std::size_t i = 1; i < key.synonyms.size(); ++i)
            EXPECT_FALSE(is_dynamic_broker_config(key.synonyms[i].name)) << key.synonyms[i].name;
    }
    EXPECT_FALSE(is_dynamic_broker_config("log.dirs"));
    EXPECT_FALSE(is_dynamic_broker_config("listener.name.plaintext.ssl.keystore.location"));
    EXPECT_TRUE(is_dynamic_broker_config("sasl.kerberos.min.time.before.relogin"));
}

TEST(DynamicBrokerConfigTest, ValidatesNamesLevelsAndValues) {
    const BrokerConfig b = broker({});
    EXPECT_EQ(validate(b, {{"sasl.kerberos.min.time.before.relogin", "58000"}}), std::nullopt);
    EXPECT_EQ(validate(b, {{"log.dirs", "/x"}, {"broker.id", "3"}}),
              "Cannot update these configs dynamically: Set(broker.id, log.dirs)");
    EXPECT_EQ(validate(b, {{"ssl.keystore.location", "/ks"}}),
              "These security configs can be dynamically updated only per-listener using the listener prefix: "
              "Set(ssl.keystore.location)");
    EXPECT_EQ(validate(b, {{"listener.name.plaintext.ssl.keystore.location", "/ks"}}), std::nullopt);
    EXPECT_EQ(validate(b, {{"sasl.kerberos.min.time.before.relogin", "58000"}}, false),
              "Cannot update these configs at default cluster level, broker id must be specified: "
              "Set(sasl.kerberos.min.time.before.relogin)");
    EXPECT_EQ(validate(b, {{"listener.name.plaintext.ssl.keystore.location", "/ks"}}, false),
              "Cannot update these configs at default cluster level, broker id must be specified: "
              "Set(listener.name.plaintext.ssl.keystore.location)");
    EXPECT_EQ(validate(b, {{"listener.name.plaintext.max.connections", "5"}}, false), std::nullopt);
    EXPECT_EQ(validate(b, {{"log.retention.ms", "soon"}}, false),
              "Invalid value soon for configuration log.retention.ms: Not a number of type LONG");
    // A listener override is typed by the key it overrides.
    EXPECT_EQ(
        validate(b, {{"listener.name.plaintext.ssl.client.auth", "sometimes"}}),
        "Invalid value sometimes for configuration ssl.client.auth: String must be one of: required, requested, none");
    // Custom keys are stored for plugins, unchecked.
    EXPECT_EQ(validate(b, {{"my.plugin.setting", "anything"}}, false), std::nullopt);
    EXPECT_EQ(validate(b, {{"leader.replication.throttled.rate", "-1"}}, false),
              "Invalid value -1 for configuration leader.replication.throttled.rate: Value must be at least 0");
    // Checks of the whole broker config still hold.
    EXPECT_EQ(
        validate(b, {{"log.retention.ms", "0"}}, false),
        "Invalid value 0 for configuration log.retention.ms: log.retention.ms must be unlimited (-1) or, equal or "
        "greater than 1");
}

TEST(DynamicBrokerConfigTest, ReconfigurablePartsRefuseLargeSteps) {
    const BrokerConfig b = broker({{"num.io.threads", "8"}});
    EXPECT_EQ(validate(b, {{"num.io.threads", "16"}}), std::nullopt);
    EXPECT_EQ(validate(b, {{"num.io.threads", "17"}}),
              "Invalid value org.apache.kafka.common.config.ConfigException: Dynamic thread count update validation "
              "failed for num.io.threads=17, value should not be greater than double the current value 8 for "
              "configuration Invalid dynamic configuration");
    EXPECT_THAT(*validate(b, {{"num.io.threads", "3"}}),
                HasSubstr("value should be at least half the current value 8"));
    // The current value includes what is stored already.
    EXPECT_EQ(validate(b, {{"num.io.threads", "32"}}, true, {{{"num.io.threads", "16"}}, {}}), std::nullopt);
    EXPECT_THAT(*validate(b, {{"log.cleaner.threads", "3"}}),
                HasSubstr("Log cleaner threads cannot be increased to more than double the current value 1"));
    EXPECT_THAT(*validate(b, {{"listeners", "PLAINTEXT://127.0.0.1:9999"}}),
                HasSubstr("Weir cannot change its listeners"));
    EXPECT_EQ(validate(b, {{"listeners", "PLAINTEXT://127.0.0.1:9092"}}), std::nullopt);  // no change
}

TEST(DynamicBrokerConfigTest, NormalizesValuesToStore) {
    ConfigMap normalized;
    EXPECT_EQ(validate_dynamic_broker_configs(
                  broker({}), {}, {{"log.cleanup.policy", " compact , delete "}, {"x.y", " z "}}, false, &normalized),
              std::nullopt);
    EXPECT_EQ(normalized, (ConfigMap{{"log.cleanup.policy", "compact,delete"}, {"x.y", " z "}}));
}

TEST(DynamicBrokerConfigTest, LayersOverrideStaticSynonyms) {
    const BrokerConfig b = broker({{"log.retention.hours", "24"}, {"log.segment.bytes", "1048576"}});
    DynamicBrokerConfigs dynamic{{{"log.retention.ms", "1000"}},
                                 {{"log.retention.ms", "2000"}, {"log.segment.bytes", "2097152"}}};
    const ConfigMap props = current_broker_props(b.static_props, dynamic);
    EXPECT_EQ(props.at("log.retention.ms"), "1000");
    EXPECT_FALSE(props.contains("log.retention.hours"));  // removed by the dynamic synonym
    EXPECT_EQ(props.at("log.segment.bytes"), "2097152");

    const TopicConfig t = resolve_topic_config(b, {}, dynamic);
    EXPECT_EQ(t.log.retention_ms, 1000);
    EXPECT_EQ(t.log.segment_bytes, 2097152);
    EXPECT_EQ(resolve_topic_config(b, {{"retention.ms", "5"}}, dynamic).log.retention_ms, 5);
    EXPECT_EQ(resolve_topic_config(b, {}, {{}, {{"log.retention.ms", "2000"}}}).log.retention_ms, 2000);
}

TEST(DynamicBrokerConfigTest, StoredEntriesThatNoLongerApplyAreIgnored) {
    DynamicBrokerConfigs stored{{{"log.dirs", "/x"}, {"log.retention.ms", "soon"}, {"log.retention.bytes", "7"}},
                                {{"sasl.kerberos.min.time.before.relogin", "1"}, {"ssl.keystore.location", "/ks"}}};
    const DynamicBrokerConfigs applicable = applicable_dynamic_configs(stored);
    EXPECT_EQ(applicable.broker, (ConfigMap{{"log.retention.bytes", "7"}}));
    EXPECT_TRUE(applicable.cluster_default.empty());
}

TEST(DynamicBrokerConfigTest, DescribeSourcesAndSynonymsInKafkaOrder) {
    const BrokerConfig b = broker({{"log.retention.ms", "5000"}});
    const DynamicBrokerConfigs dynamic{
        {{"log.retention.ms", "1000"}, {"listener.name.plaintext.ssl.keystore.password", "pw"}},
        {{"log.retention.ms", "2000"}, {"my.plugin", "v"}}};
    auto entries = describe_broker_configs(b, dynamic);
    const auto& ms = entry(entries, "log.retention.ms");
    EXPECT_EQ(ms.value, "1000");
    EXPECT_EQ(ms.source, ConfigSource::dynamic_broker_config);
    EXPECT_FALSE(ms.read_only);
    ASSERT_EQ(ms.synonyms.size(), 4U);
    EXPECT_EQ(ms.synonyms[0].source, ConfigSource::dynamic_broker_config);
    EXPECT_EQ(ms.synonyms[1].source, ConfigSource::dynamic_default_broker_config);
    EXPECT_EQ(ms.synonyms[1].value, "2000");
    EXPECT_EQ(ms.synonyms[2].source, ConfigSource::static_broker_config);
    EXPECT_EQ(ms.synonyms[2].value, "5000");
    EXPECT_EQ(ms.synonyms[3].name, "log.retention.hours");
    EXPECT_EQ(ms.synonyms[3].source, ConfigSource::default_config);

    const auto& password = entry(entries, "listener.name.plaintext.ssl.keystore.password");
    EXPECT_TRUE(password.is_sensitive);
    EXPECT_EQ(password.value, std::nullopt);
    EXPECT_EQ(password.type, ConfigType::password);
    EXPECT_TRUE(password.read_only);
    ASSERT_EQ(password.synonyms.size(), 1U);
    EXPECT_EQ(password.synonyms[0].value, std::nullopt);
    EXPECT_EQ(password.source, ConfigSource::dynamic_broker_config);

    const auto& plugin = entry(entries, "my.plugin");
    EXPECT_TRUE(plugin.is_sensitive);  // untyped: Kafka hides it to be safe
    EXPECT_EQ(plugin.type, ConfigType::unknown);
    EXPECT_EQ(plugin.source, ConfigSource::dynamic_default_broker_config);

    auto defaults = describe_default_broker_configs(dynamic);
    ASSERT_EQ(defaults.size(), 2U);
    EXPECT_EQ(defaults[0].name, "log.retention.ms");
    EXPECT_EQ(defaults[0].value, "2000");
    EXPECT_EQ(defaults[0].source, ConfigSource::dynamic_default_broker_config);
    ASSERT_EQ(defaults[0].synonyms.size(), 1U);
    EXPECT_EQ(defaults[0].synonyms[0].source, ConfigSource::dynamic_default_broker_config);
    EXPECT_EQ(defaults[1].name, "my.plugin");

    auto topic = describe_topic_configs(b, {}, dynamic);
    const auto& retention = entry(topic, "retention.ms");
    EXPECT_EQ(retention.value, "1000");
    EXPECT_EQ(retention.source, ConfigSource::dynamic_broker_config);
}

}  // namespace
}  // namespace weir::config
