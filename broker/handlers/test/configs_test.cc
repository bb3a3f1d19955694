#include "broker/common/logging.h"
#include "broker/handlers/test/handler_fixture.h"

namespace weir::handlers::test {
namespace {

constexpr std::int8_t kTopic = 2;
constexpr std::int8_t kBroker = 4;
constexpr std::int8_t kBrokerLogger = 8;

using DescribeRequest = msg::DescribeConfigsRequest;
using DescribeResult = msg::DescribeConfigsResponse::DescribeConfigsResult;
using DescribeEntry = msg::DescribeConfigsResponse::DescribeConfigsResourceResult;

DescribeRequest describe(std::int8_t type, std::string name,
                         std::optional<std::vector<std::string>> keys = std::nullopt) {
    DescribeRequest r;
    r.resources.push_back({type, std::move(name), std::move(keys), {}});
    return r;
}

const DescribeEntry* entry(const DescribeResult& r, std::string_view name) {
    for (const auto& c : r.configs)
        if (c.name == name) return &c;
    return nullptr;
}

class DescribeConfigsHandlerTest : public HandlerTest {};

TEST_F(DescribeConfigsHandlerTest, TopicV0IsDefault) {
    create_topic("t", 1, {{"retention.ms", "1000"}});
    auto r = call(describe(kTopic, "t"), 0);
    ASSERT_EQ(r.results.size(), 1u);
    const auto& res = r.results[0];
    EXPECT_EQ(res.error_code, 0);
    EXPECT_EQ(res.resource_type, kTopic);
    EXPECT_EQ(res.resource_name, "t");
    const auto* retention = entry(res, "retention.ms");
    ASSERT_NE(retention, nullptr);
    EXPECT_EQ(retention->value, "1000");
    EXPECT_FALSE(retention->is_default);
    EXPECT_EQ(retention->config_source, -1);  // not in v0
    const auto* cleanup = entry(res, "cleanup.policy");
    ASSERT_NE(cleanup, nullptr);
    EXPECT_TRUE(cleanup->is_default);
    EXPECT_FALSE(cleanup->read_only);
}

TEST_F(DescribeConfigsHandlerTest, TopicSynonymsFromV1) {
    create_topic("t", 1, {{"cleanup.policy", "compact"}});
    auto request = describe(kTopic, "t", std::vector<std::string>{"cleanup.policy"});
    request.include_synonyms = true;
    auto r = call(request, 1);
    ASSERT_EQ(r.results[0].configs.size(), 1u);
    const auto& cleanup = r.results[0].configs[0];
    EXPECT_EQ(cleanup.config_source, 1);  // DYNAMIC_TOPIC_CONFIG
    ASSERT_EQ(cleanup.synonyms.size(), 2u);
    EXPECT_EQ(cleanup.synonyms[0].name, "cleanup.policy");
    EXPECT_EQ(cleanup.synonyms[0].value, "compact");
    EXPECT_EQ(cleanup.synonyms[0].source, 1);
    EXPECT_EQ(cleanup.synonyms[1].name, "log.cleanup.policy");  // the broker default behind it
    EXPECT_EQ(cleanup.synonyms[1].value, "delete");
    EXPECT_EQ(cleanup.synonyms[1].source, 5);
    request.include_synonyms = false;
    EXPECT_TRUE(call(request, 1).results[0].configs[0].synonyms.empty());
    // v0 has no synonyms even when asked (the field is not sent).
    request.include_synonyms = true;
    EXPECT_TRUE(call(request, 0).results[0].configs[0].synonyms.empty());
}

TEST_F(DescribeConfigsHandlerTest, ConfigurationKeysFilter) {
    create_topic("t");
    auto some =
        call(describe(kTopic, "t", std::vector<std::string>{"retention.ms", "no.such.key", "cleanup.policy"}), 2);
    ASSERT_EQ(some.results[0].configs.size(), 2u);
    auto all = call(describe(kTopic, "t", std::vector<std::string>{}), 2);
    EXPECT_GT(all.results[0].configs.size(), 10u);
    EXPECT_EQ(all.results[0].configs.size(), call(describe(kTopic, "t"), 2).results[0].configs.size());
}

TEST_F(DescribeConfigsHandlerTest, BrokerConfigsWithDocumentation) {
    config_.static_props["num.partitions"] = "3";
    auto request = describe(kBroker, std::to_string(kBrokerId));
    request.include_documentation = true;
    auto r = call(request, 3);
    const auto& res = r.results[0];
    EXPECT_EQ(res.error_code, 0);
    const auto* partitions = entry(res, "num.partitions");
    ASSERT_NE(partitions, nullptr);
    EXPECT_EQ(partitions->value, "3");
    EXPECT_EQ(partitions->config_source, 4);  // STATIC_BROKER_CONFIG
    EXPECT_EQ(partitions->config_type, 3);    // INT
    ASSERT_TRUE(partitions->documentation.has_value());
    EXPECT_FALSE(partitions->documentation->empty());
    const auto* broker_id = entry(res, "broker.id");
    ASSERT_NE(broker_id, nullptr);
    EXPECT_TRUE(broker_id->read_only);

    request.include_documentation = false;
    auto plain = call(request, 4);
    EXPECT_EQ(entry(plain.results[0], "num.partitions")->documentation, std::nullopt);
    // v2 has no documentation or type.
    auto v2 = call(request, 2);
    EXPECT_EQ(entry(v2.results[0], "num.partitions")->config_type, 0);
}

TEST_F(DescribeConfigsHandlerTest, BrokerResourceNames) {
    auto cluster_default = call(describe(kBroker, ""), 1);
    EXPECT_EQ(cluster_default.results[0].error_code, 0);
    EXPECT_TRUE(cluster_default.results[0].configs.empty());
    auto other = call(describe(kBroker, "3"), 1);
    EXPECT_EQ(other.results[0].error_code, to_int(ErrorCode::invalid_request));
    EXPECT_EQ(other.results[0].error_message, "Unexpected broker id, expected 7 or empty string, but received 3");
    auto text = call(describe(kBroker, "abc"), 1);
    EXPECT_EQ(text.results[0].error_message, "Broker id must be an integer, but it is: abc");
}

TEST_F(DescribeConfigsHandlerTest, UnknownAndInvalidTopics) {
    start();
    auto unknown = call(describe(kTopic, "missing"), 0);
    EXPECT_EQ(unknown.results[0].error_code, to_int(ErrorCode::unknown_topic_or_partition));
    EXPECT_TRUE(unknown.results[0].configs.empty());
    auto invalid = call(describe(kTopic, "bad/name"), 4);
    EXPECT_EQ(invalid.results[0].error_code, to_int(ErrorCode::invalid_topic_exception));
}

TEST_F(DescribeConfigsHandlerTest, UnknownResourceTypeFailsTheWholeRequest) {
    create_topic("t");
    auto r = describe(kTopic, "t");
    r.resources.push_back({3, "x", std::nullopt, {}});
    auto answer = call(r, 1);
    ASSERT_EQ(answer.results.size(), 2u);
    for (const auto& res : answer.results) {
        EXPECT_EQ(res.error_code, to_int(ErrorCode::invalid_request));
        EXPECT_TRUE(res.configs.empty());
    }
}

TEST_F(DescribeConfigsHandlerTest, BrokerLogger) {
    auto r = call(describe(kBrokerLogger, std::to_string(kBrokerId)), 2);
    ASSERT_EQ(r.results[0].configs.size(), 1u);
    EXPECT_EQ(r.results[0].configs[0].name, "root");
    EXPECT_EQ(r.results[0].configs[0].config_source, 6);
    EXPECT_EQ(call(describe(kBrokerLogger, ""), 2).results[0].error_code, to_int(ErrorCode::invalid_request));
}

// ---- AlterConfigs ----------------------------------------------------------

using AlterRequest = msg::AlterConfigsRequest;

AlterRequest alter(std::int8_t type, std::string name,
                   std::vector<std::pair<std::string, std::optional<std::string>>> configs,
                   bool validate_only = false) {
    AlterRequest r;
    r.validate_only = validate_only;
    auto& res = r.resources.emplace_back();
    res.resource_type = type;
    res.resource_name = std::move(name);
    for (auto& [k, v] : configs) res.configs.push_back({k, v, {}});
    return r;
}

class AlterConfigsHandlerTest : public HandlerTest {};

TEST_F(AlterConfigsHandlerTest, ReplacesTopicOverrides) {
    create_topic("t", 1, {{"segment.ms", "5000"}});
    auto r = call(alter(kTopic, "t", {{"retention.ms", "1000"}, {"segment.bytes", "1048576"}}), 0);
    ASSERT_EQ(r.responses.size(), 1u);
    EXPECT_EQ(r.responses[0].error_code, 0);
    EXPECT_EQ(r.responses[0].error_message, std::nullopt);
    EXPECT_EQ(r.responses[0].resource_name, "t");
    auto configs = store_->topic("t")->configs;
    EXPECT_EQ(configs.size(), 2u);
    EXPECT_EQ(configs.at("retention.ms"), "1000");
    EXPECT_FALSE(configs.contains("segment.ms"));
    // The partition log sees the change.
    EXPECT_EQ(log("t", 0)->config().segment_bytes, 1048576);
}

TEST_F(AlterConfigsHandlerTest, ValidateOnlyAndInvalidValues) {
    create_topic("t");
    EXPECT_EQ(call(alter(kTopic, "t", {{"retention.ms", "1000"}}, true), 1).responses[0].error_code, 0);
    EXPECT_TRUE(store_->topic("t")->configs.empty());
    auto bad = call(alter(kTopic, "t", {{"retention.ms", "soon"}}), 1);
    EXPECT_EQ(bad.responses[0].error_code, to_int(ErrorCode::invalid_config));
    EXPECT_TRUE(bad.responses[0].error_message->starts_with(
        "Invalid config value for resource ConfigResource(type=TOPIC, name='t'): "));
    auto unknown = call(alter(kTopic, "t", {{"no.such", "1"}}), 2);
    EXPECT_EQ(unknown.responses[0].error_message, "Unknown topic config name: no.such");
    auto null_value = call(alter(kTopic, "t", {{"retention.ms", std::nullopt}}), 2);
    EXPECT_EQ(null_value.responses[0].error_code, to_int(ErrorCode::invalid_request));
    EXPECT_EQ(null_value.responses[0].error_message, "Null value not supported for : retention.ms");
}

TEST_F(AlterConfigsHandlerTest, UnknownTopic) {
    start();
    auto r = call(alter(kTopic, "missing", {{"retention.ms", "1"}}), 0);
    EXPECT_EQ(r.responses[0].error_code, to_int(ErrorCode::unknown_topic_or_partition));
    EXPECT_EQ(r.responses[0].error_message, "The topic 'missing' does not exist.");
    auto empty_name = call(alter(kTopic, "", {}), 0);
    EXPECT_EQ(empty_name.responses[0].error_code, to_int(ErrorCode::invalid_request));
}

TEST_F(AlterConfigsHandlerTest, BrokerConfigsAreStatic) {
    start();
    auto r = call(alter(kBroker, std::to_string(kBrokerId), {{"log.dirs", "/elsewhere"}}), 1);
    EXPECT_EQ(r.responses[0].error_code, to_int(ErrorCode::invalid_request));
    EXPECT_EQ(r.responses[0].error_message, "Cannot update these configs dynamically: Set(log.dirs)");
    EXPECT_EQ(call(alter(kBroker, std::to_string(kBrokerId), {}), 1).responses[0].error_code, 0);
    auto other = call(alter(kBroker, "8", {}), 1);
    EXPECT_EQ(other.responses[0].error_message, "Unexpected broker id, expected 7, but received 8");
    EXPECT_EQ(call(alter(kBrokerLogger, "7", {}), 2).responses[0].error_code, to_int(ErrorCode::invalid_request));
}

// librdkafka reads a topic's configs back and appends the change, so a key can
// come twice; Kafka's legacy AlterConfigs keeps the last value.
TEST_F(AlterConfigsHandlerTest, RepeatedKeyLastValueWins) {
    create_topic("t");
    auto r = call(alter(kTopic, "t",
                        {{"retention.ms", "1000"},
                         {"message.format.version", "3.0-IV1"},
                         {"retention.ms", "2000"},
                         {"message.format.version", "0.10.0.0"}}),
                  0);
    EXPECT_EQ(r.responses[0].error_code, 0);
    EXPECT_EQ(store_->topic("t")->configs.at("retention.ms"), "2000");
    EXPECT_EQ(store_->topic("t")->configs.at("message.format.version"), "0.10.0.0");
}

TEST_F(AlterConfigsHandlerTest, RepeatedResources) {
    create_topic("t");
    auto r = alter(kTopic, "t", {{"retention.ms", "1"}});
    r.resources.push_back(r.resources[0]);
    auto answer = call(r, 0);
    ASSERT_EQ(answer.responses.size(), 2u);
    for (const auto& res : answer.responses) {
        EXPECT_EQ(res.error_code, to_int(ErrorCode::invalid_request));
        EXPECT_EQ(res.error_message, "Each resource must appear at most once.");
    }
    EXPECT_TRUE(store_->topic("t")->configs.empty());
}

// ---- IncrementalAlterConfigs -----------------------------------------------

using IncrementalRequest = msg::IncrementalAlterConfigsRequest;

struct Change {
    std::string name;
    std::int8_t op;
    std::optional<std::string> value;
};

IncrementalRequest incremental(std::int8_t type, std::string name, std::vector<Change> changes,
                               bool validate_only = false) {
    IncrementalRequest r;
    r.validate_only = validate_only;
    auto& res = r.resources.emplace_back();
    res.resource_type = type;
    res.resource_name = std::move(name);
    for (auto& c : changes) res.configs.push_back({c.name, c.op, c.value, {}});
    return r;
}

constexpr std::int8_t kSet = 0, kDelete = 1, kAppend = 2, kSubtract = 3;

class IncrementalAlterConfigsHandlerTest : public HandlerTest {};

TEST_F(IncrementalAlterConfigsHandlerTest, SetAndDeleteKeepOtherOverrides) {
    create_topic("t", 1, {{"segment.ms", "5000"}, {"retention.bytes", "100"}});
    auto r =
        call(incremental(kTopic, "t", {{"retention.ms", kSet, "1000"}, {"retention.bytes", kDelete, std::nullopt}}), 0);
    EXPECT_EQ(r.responses[0].error_code, 0);
    EXPECT_EQ(r.responses[0].error_message, std::nullopt);
    auto configs = store_->topic("t")->configs;
    EXPECT_EQ(configs.at("retention.ms"), "1000");
    EXPECT_EQ(configs.at("segment.ms"), "5000");
    EXPECT_FALSE(configs.contains("retention.bytes"));
}

TEST_F(IncrementalAlterConfigsHandlerTest, AppendAndSubtractLists) {
    create_topic("t");
    EXPECT_EQ(call(incremental(kTopic, "t", {{"cleanup.policy", kAppend, "compact"}}), 1).responses[0].error_code, 0);
    EXPECT_EQ(store_->topic("t")->configs.at("cleanup.policy"), "delete,compact");
    EXPECT_EQ(call(incremental(kTopic, "t", {{"cleanup.policy", kSubtract, "delete"}}), 1).responses[0].error_code, 0);
    EXPECT_EQ(store_->topic("t")->configs.at("cleanup.policy"), "compact");
    auto scalar = call(incremental(kTopic, "t", {{"retention.ms", kAppend, "1"}}), 1);
    EXPECT_EQ(scalar.responses[0].error_code, to_int(ErrorCode::invalid_config));
    EXPECT_EQ(scalar.responses[0].error_message, "Config value append is not allowed for config key: retention.ms");
}

TEST_F(IncrementalAlterConfigsHandlerTest, RequestLevelChecks) {
    create_topic("t");
    auto nulls = call(incremental(kTopic, "t", {{"retention.ms", kSet, std::nullopt}}), 0);
    EXPECT_EQ(nulls.responses[0].error_message, "Null value not supported for : retention.ms");
    auto dups = call(incremental(kTopic, "t", {{"retention.ms", kSet, "1"}, {"retention.ms", kSet, "2"}}), 0);
    EXPECT_EQ(dups.responses[0].error_code, to_int(ErrorCode::invalid_request));
    EXPECT_EQ(dups.responses[0].error_message, "Error due to duplicate config keys");
    auto bad_op = call(incremental(kTopic, "t", {{"retention.ms", 9, "1"}}), 1);
    EXPECT_EQ(bad_op.responses[0].error_code, to_int(ErrorCode::invalid_request));
    auto missing = call(incremental(kTopic, "missing", {{"retention.ms", kSet, "1"}}), 1);
    EXPECT_EQ(missing.responses[0].error_code, to_int(ErrorCode::unknown_topic_or_partition));
    EXPECT_TRUE(store_->topic("t")->configs.empty());
}

TEST_F(IncrementalAlterConfigsHandlerTest, ValidateOnlyAndInvalidValue) {
    create_topic("t");
    EXPECT_EQ(call(incremental(kTopic, "t", {{"retention.ms", kSet, "1"}}, true), 1).responses[0].error_code, 0);
    EXPECT_TRUE(store_->topic("t")->configs.empty());
    auto bad = call(incremental(kTopic, "t", {{"min.cleanable.dirty.ratio", kSet, "7"}}), 1);
    EXPECT_EQ(bad.responses[0].error_code, to_int(ErrorCode::invalid_config));
}

TEST_F(IncrementalAlterConfigsHandlerTest, BrokerResources) {
    start();
    auto id = std::to_string(kBrokerId);
    auto set = call(incremental(kBroker, id, {{"log.dirs", kSet, "/x"}}), 1);
    EXPECT_EQ(set.responses[0].error_code, to_int(ErrorCode::invalid_request));
    EXPECT_EQ(set.responses[0].error_message, "Cannot update these configs dynamically: Set(log.dirs)");
    EXPECT_EQ(call(incremental(kBroker, id, {{"log.retention.ms", kDelete, std::nullopt}}), 1).responses[0].error_code,
              0);
    EXPECT_EQ(call(incremental(kBroker, "", {}), 0).responses[0].error_code, 0);
    EXPECT_EQ(call(incremental(kBroker, "x", {}), 0).responses[0].error_message,
              "Node id must be an integer, but it is: x");
}

TEST_F(IncrementalAlterConfigsHandlerTest, BrokerLoggerLevels) {
    start();
    auto id = std::to_string(kBrokerId);
    ASSERT_FALSE(logging::enabled(logging::Level::debug));
    EXPECT_EQ(call(incremental(kBrokerLogger, id, {{"root", kSet, "DEBUG"}}, true), 1).responses[0].error_code, 0);
    EXPECT_FALSE(logging::enabled(logging::Level::debug));
    EXPECT_EQ(call(incremental(kBrokerLogger, id, {{"root", kSet, "DEBUG"}}), 1).responses[0].error_code, 0);
    EXPECT_TRUE(logging::enabled(logging::Level::debug));
    logging::set_min_level(logging::Level::info);

    auto no_logger = call(incremental(kBrokerLogger, id, {{"kafka.server", kSet, "DEBUG"}}), 1);
    EXPECT_EQ(no_logger.responses[0].error_code, to_int(ErrorCode::invalid_config));
    auto bad_level = call(incremental(kBrokerLogger, id, {{"root", kSet, "LOUD"}}), 1);
    EXPECT_EQ(bad_level.responses[0].error_code, to_int(ErrorCode::invalid_config));
    auto remove_root = call(incremental(kBrokerLogger, id, {{"root", kDelete, std::nullopt}}), 1);
    EXPECT_EQ(remove_root.responses[0].error_code, to_int(ErrorCode::invalid_request));
    auto other_node = call(incremental(kBrokerLogger, "3", {{"root", kSet, "INFO"}}), 1);
    EXPECT_EQ(other_node.responses[0].error_code, to_int(ErrorCode::invalid_request));
    EXPECT_FALSE(logging::enabled(logging::Level::debug));
}

// ---- Dynamic broker configs (KIP-226) --------------------------------------

class DynamicBrokerConfigsTest : public HandlerTest {
protected:
    const std::string id = std::to_string(kBrokerId);

    DescribeResult describe_broker(const std::string& name, std::vector<std::string> keys, std::int16_t version = 1) {
        auto request = describe(kBroker, name, std::move(keys));
        request.include_synonyms = true;
        return call(request, version).results.at(0);
    }
    config::DynamicBrokerConfigs stored() { return store_->snapshot()->dynamic_broker_configs(kBrokerId); }
};

// librdkafka's 0081 do_test_AlterConfigs: a per-broker SASL setting, legacy
// AlterConfigs, and Kafka answers NO_ERROR (Weir stores it and has no SASL to
// apply it to).
TEST_F(DynamicBrokerConfigsTest, LegacyAlterConfigsSetsAPerBrokerKey) {
    create_topic("t");
    auto request = alter(kTopic, "t", {{"compression.type", "gzip"}, {"flush.ms", "12345678"}});
    request.resources.push_back(alter(kBroker, id, {{"sasl.kerberos.min.time.before.relogin", "58000"}}).resources[0]);
    for (std::int16_t version : {0, 1}) {
        auto r = call(request, version);
        ASSERT_EQ(r.responses.size(), 2u);
        EXPECT_EQ(r.responses[0].error_code, 0);
        EXPECT_EQ(r.responses[1].error_code, 0) << r.responses[1].error_message.value_or("");
        EXPECT_EQ(r.responses[1].error_message, std::nullopt);
    }
    EXPECT_EQ(stored().broker, (config::ConfigMap{{"sasl.kerberos.min.time.before.relogin", "58000"}}));

    auto res = describe_broker(id, {"sasl.kerberos.min.time.before.relogin"});
    ASSERT_EQ(res.configs.size(), 1u);
    const auto& relogin = res.configs[0];
    EXPECT_EQ(relogin.value, "58000");
    EXPECT_EQ(relogin.config_source, 2);  // DYNAMIC_BROKER_CONFIG
    EXPECT_FALSE(relogin.read_only);
    ASSERT_EQ(relogin.synonyms.size(), 2u);
    EXPECT_EQ(relogin.synonyms[0].source, 2);
    EXPECT_EQ(relogin.synonyms[1].value, "60000");
    EXPECT_EQ(relogin.synonyms[1].source, 5);  // DEFAULT_CONFIG
}

TEST_F(DynamicBrokerConfigsTest, LegacyAlterConfigsReplacesTheWholeSet) {
    ASSERT_EQ(call(alter(kBroker, id, {{"log.retention.ms", "1000"}, {"log.segment.bytes", "1048576"}}), 1)
                  .responses[0]
                  .error_code,
              0);
    ASSERT_EQ(call(alter(kBroker, id, {{"log.retention.bytes", "5000"}}), 1).responses[0].error_code, 0);
    EXPECT_EQ(stored().broker, (config::ConfigMap{{"log.retention.bytes", "5000"}}));
    ASSERT_EQ(call(alter(kBroker, id, {}), 1).responses[0].error_code, 0);
    EXPECT_TRUE(stored().broker.empty());
}

TEST_F(DynamicBrokerConfigsTest, ValidateOnlyStoresNothing) {
    EXPECT_EQ(call(alter(kBroker, id, {{"log.retention.ms", "1000"}}, true), 1).responses[0].error_code, 0);
    EXPECT_EQ(call(incremental(kBroker, "", {{"log.retention.ms", kSet, "1000"}}, true), 1).responses[0].error_code, 0);
    EXPECT_TRUE(stored().empty());
}

TEST_F(DynamicBrokerConfigsTest, StaticKeysAndBadValuesAreRefused) {
    start();
    // Only the first of a synonym group is dynamic in Kafka.
    auto hours = call(alter(kBroker, id, {{"log.retention.hours", "1"}}), 0);
    EXPECT_EQ(hours.responses[0].error_code, to_int(ErrorCode::invalid_request));
    EXPECT_EQ(hours.responses[0].error_message, "Cannot update these configs dynamically: Set(log.retention.hours)");
    // ConfigAdminManager answers every failed check with INVALID_REQUEST and
    // the ConfigException's message (KAFKA-13609), bad values included.
    auto bad = call(incremental(kBroker, id, {{"log.retention.ms", kSet, "soon"}}), 1);
    EXPECT_EQ(bad.responses[0].error_code, to_int(ErrorCode::invalid_request));
    EXPECT_EQ(bad.responses[0].error_message,
              "Invalid value soon for configuration log.retention.ms: Not a number of type LONG");
    auto range = call(alter(kBroker, "", {{"log.segment.bytes", "10"}}), 1);
    EXPECT_EQ(range.responses[0].error_code, to_int(ErrorCode::invalid_request));
    EXPECT_EQ(range.responses[0].error_message,
              "Invalid value 10 for configuration log.segment.bytes: Value must be at least 14");
    auto level = call(alter(kBroker, "", {{"sasl.kerberos.min.time.before.relogin", "58000"}}), 1);
    EXPECT_EQ(level.responses[0].error_message,
              "Cannot update these configs at default cluster level, broker id must be specified: "
              "Set(sasl.kerberos.min.time.before.relogin)");
    auto keystore = call(alter(kBroker, id, {{"ssl.keystore.location", "/ks"}}), 1);
    EXPECT_EQ(keystore.responses[0].error_code, to_int(ErrorCode::invalid_request));
    auto threads = call(incremental(kBroker, "", {{"num.io.threads", kSet, "64"}}), 1);
    EXPECT_EQ(threads.responses[0].error_code, to_int(ErrorCode::invalid_request));
    EXPECT_EQ(threads.responses[0].error_message,
              "Invalid value org.apache.kafka.common.config.ConfigException: Dynamic thread count update validation "
              "failed for num.io.threads=64, value should not be greater than double the current value 8 for "
              "configuration Invalid dynamic configuration");
    auto listeners = call(alter(kBroker, id, {{"listeners", "PLAINTEXT://127.0.0.1:1"}}), 1);
    EXPECT_EQ(listeners.responses[0].error_code, to_int(ErrorCode::invalid_request));
    EXPECT_TRUE(stored().empty());
}

TEST_F(DynamicBrokerConfigsTest, DescribeShowsPerBrokerOverDefaultOverStatic) {
    config_.static_props["log.retention.ms"] = "5000";
    ASSERT_EQ(call(alter(kBroker, "", {{"log.retention.ms", "2000"}, {"log.cleanup.policy", "compact"}}), 0)
                  .responses[0]
                  .error_code,
              0);
    ASSERT_EQ(call(alter(kBroker, id, {{"log.retention.ms", "1000"}}), 0).responses[0].error_code, 0);

    auto broker = describe_broker(id, {"log.retention.ms", "log.cleanup.policy", "log.retention.hours"});
    ASSERT_EQ(broker.error_code, 0);
    const auto* ms = entry(broker, "log.retention.ms");
    ASSERT_NE(ms, nullptr);
    EXPECT_EQ(ms->value, "1000");
    EXPECT_EQ(ms->config_source, 2);
    ASSERT_EQ(ms->synonyms.size(), 4u);
    EXPECT_EQ(ms->synonyms[0].value, "1000");
    EXPECT_EQ(ms->synonyms[0].source, 2);  // DYNAMIC_BROKER_CONFIG
    EXPECT_EQ(ms->synonyms[1].value, "2000");
    EXPECT_EQ(ms->synonyms[1].source, 3);  // DYNAMIC_DEFAULT_BROKER_CONFIG
    EXPECT_EQ(ms->synonyms[2].value, "5000");
    EXPECT_EQ(ms->synonyms[2].source, 4);  // STATIC_BROKER_CONFIG
    EXPECT_EQ(ms->synonyms[3].name, "log.retention.hours");
    EXPECT_EQ(ms->synonyms[3].source, 5);  // DEFAULT_CONFIG
    const auto* cleanup = entry(broker, "log.cleanup.policy");
    ASSERT_NE(cleanup, nullptr);
    EXPECT_EQ(cleanup->value, "compact");
    EXPECT_EQ(cleanup->config_source, 3);
    EXPECT_TRUE(entry(broker, "log.retention.hours")->read_only);
    // v0 has no source; IsDefault is false for a dynamic value.
    EXPECT_FALSE(entry(describe_broker(id, {"log.retention.ms"}, 0), "log.retention.ms")->is_default);

    auto defaults = describe_broker("", {});
    ASSERT_EQ(defaults.error_code, 0);
    ASSERT_EQ(defaults.configs.size(), 2u);
    EXPECT_EQ(defaults.configs[0].name, "log.cleanup.policy");
    EXPECT_EQ(defaults.configs[1].name, "log.retention.ms");
    EXPECT_EQ(defaults.configs[1].value, "2000");
    EXPECT_EQ(defaults.configs[1].config_source, 3);
    ASSERT_EQ(defaults.configs[1].synonyms.size(), 1u);
    EXPECT_EQ(defaults.configs[1].synonyms[0].source, 3);
}

TEST_F(DynamicBrokerConfigsTest, IncrementalDeleteFallsBackToTheDefault) {
    create_topic("t");
    ASSERT_EQ(call(incremental(kBroker, "", {{"log.retention.ms", kSet, "2000"}}), 1).responses[0].error_code, 0);
    ASSERT_EQ(
        call(incremental(kBroker, id, {{"log.retention.ms", kSet, "1000"}, {"log.retention.bytes", kSet, "77"}}), 1)
            .responses[0]
            .error_code,
        0);
    EXPECT_EQ(log("t", 0)->config().retention_ms, 1000);

    ASSERT_EQ(call(incremental(kBroker, id, {{"log.retention.ms", kDelete, std::nullopt}}), 1).responses[0].error_code,
              0);
    EXPECT_EQ(stored().broker, (config::ConfigMap{{"log.retention.bytes", "77"}}));  // the rest is kept
    const auto described = describe_broker(id, {"log.retention.ms"});
    const auto* ms = entry(described, "log.retention.ms");
    ASSERT_NE(ms, nullptr);
    EXPECT_EQ(ms->value, "2000");
    EXPECT_EQ(ms->config_source, 3);
    EXPECT_EQ(log("t", 0)->config().retention_ms, 2000);
    EXPECT_EQ(log("t", 0)->config().retention_bytes, 77);
}

TEST_F(DynamicBrokerConfigsTest, IncrementalAppendAndSubtractStartFromTheStoredSet) {
    ASSERT_EQ(call(incremental(kBroker, "", {{"log.cleanup.policy", kAppend, "compact"}}), 1).responses[0].error_code,
              0);
    EXPECT_EQ(stored().cluster_default.at("log.cleanup.policy"), "delete,compact");
    ASSERT_EQ(call(incremental(kBroker, "", {{"log.cleanup.policy", kSubtract, "delete"}}), 1).responses[0].error_code,
              0);
    EXPECT_EQ(stored().cluster_default.at("log.cleanup.policy"), "compact");
}

TEST_F(DynamicBrokerConfigsTest, LogDefaultsReachTopicsWithoutOverrides) {
    create_topic("plain");
    create_topic("own", 1, {{"retention.ms", "999"}});
    ASSERT_EQ(call(incremental(kBroker, "",
                               {{"log.retention.ms", kSet, "3600000"},
                                {"log.segment.bytes", kSet, "1048576"},
                                {"message.max.bytes", kSet, "100"}}),
                   1)
                  .responses[0]
                  .error_code,
              0);
    EXPECT_EQ(log("plain", 0)->config().retention_ms, 3600000);
    EXPECT_EQ(log("plain", 0)->config().segment_bytes, 1048576);
    EXPECT_EQ(log("own", 0)->config().retention_ms, 999);
    EXPECT_EQ(log("own", 0)->config().segment_bytes, 1048576);

    auto topic = describe(kTopic, "plain", std::vector<std::string>{"retention.ms", "max.message.bytes"});
    topic.include_synonyms = true;
    auto res = call(topic, 1).results[0];
    const auto* retention = entry(res, "retention.ms");
    ASSERT_NE(retention, nullptr);
    EXPECT_EQ(retention->value, "3600000");
    EXPECT_EQ(retention->config_source, 3);
    ASSERT_FALSE(retention->synonyms.empty());
    EXPECT_EQ(retention->synonyms[0].name, "log.retention.ms");
    EXPECT_EQ(entry(res, "max.message.bytes")->value, "100");

    // Produce checks the new max.message.bytes.
    partitions::ProduceLimits limits;
    limits.produce_version = 9;
    EXPECT_EQ(partitions_->get({"plain", 0})->config().max_message_bytes, 100);
    const auto batch = make_batch(10, 1000, 64);
    EXPECT_EQ(partitions_->produce({"plain", 0}, batch, limits).error, ErrorCode::message_too_large);
}

TEST_F(DynamicBrokerConfigsTest, ListenerOverridesAndSecretsAreHidden) {
    ASSERT_EQ(call(alter(kBroker, id,
                         {{"listener.name.plaintext.ssl.keystore.password", "secret"},
                          {"sasl.jaas.config", "org.example.Login required;"},
                          {"my.plugin.setting", "x"}}),
                   1)
                  .responses[0]
                  .error_code,
              0);
    auto res = describe_broker(id, {}, 3);
    const auto* password = entry(res, "listener.name.plaintext.ssl.keystore.password");
    ASSERT_NE(password, nullptr);
    EXPECT_TRUE(password->is_sensitive);
    EXPECT_EQ(password->value, std::nullopt);
    EXPECT_EQ(password->config_source, 2);
    EXPECT_EQ(password->config_type, 9);  // PASSWORD
    ASSERT_EQ(password->synonyms.size(), 1u);
    EXPECT_EQ(password->synonyms[0].value, std::nullopt);
    const auto* jaas = entry(res, "sasl.jaas.config");
    ASSERT_NE(jaas, nullptr);
    EXPECT_TRUE(jaas->is_sensitive);
    EXPECT_EQ(jaas->value, std::nullopt);
    const auto* plugin = entry(res, "my.plugin.setting");
    ASSERT_NE(plugin, nullptr);
    EXPECT_TRUE(plugin->is_sensitive);
    EXPECT_TRUE(plugin->read_only);
}

TEST_F(DynamicBrokerConfigsTest, SurviveARestart) {
    create_topic("t");
    ASSERT_EQ(call(alter(kBroker, id, {{"log.retention.ms", "1234"}}), 1).responses[0].error_code, 0);
    ASSERT_EQ(call(alter(kBroker, "", {{"log.retention.bytes", "4321"}}), 1).responses[0].error_code, 0);
    restart();
    EXPECT_EQ(stored().broker, (config::ConfigMap{{"log.retention.ms", "1234"}}));
    EXPECT_EQ(stored().cluster_default, (config::ConfigMap{{"log.retention.bytes", "4321"}}));
    // The log opens with them.
    EXPECT_EQ(log("t", 0)->config().retention_ms, 1234);
    EXPECT_EQ(log("t", 0)->config().retention_bytes, 4321);
    const auto described = describe_broker(id, {"log.retention.ms"});
    const auto* ms = entry(described, "log.retention.ms");
    ASSERT_NE(ms, nullptr);
    EXPECT_EQ(ms->value, "1234");
    EXPECT_EQ(ms->config_source, 2);
}

}  // namespace
}  // namespace weir::handlers::test
