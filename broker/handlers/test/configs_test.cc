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

DescribeRequest describe(std::int8_t type, std::string name, std::optional<std::vector<std::string>> keys = std::nullopt) {
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
    auto some = call(describe(kTopic, "t", std::vector<std::string>{"retention.ms", "no.such.key", "cleanup.policy"}), 2);
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

AlterRequest alter(std::int8_t type, std::string name, std::vector<std::pair<std::string, std::optional<std::string>>> configs,
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
    auto r = call(alter(kTopic, "t", {{"retention.ms", "1000"}, {"message.format.version", "3.0-IV1"},
                                      {"retention.ms", "2000"}, {"message.format.version", "0.10.0.0"}}),
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

IncrementalRequest incremental(std::int8_t type, std::string name, std::vector<Change> changes, bool validate_only = false) {
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
    auto r = call(incremental(kTopic, "t", {{"retention.ms", kSet, "1000"}, {"retention.bytes", kDelete, std::nullopt}}), 0);
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
    EXPECT_EQ(scalar.responses[0].error_code, to_int(ErrorCode::invalid_request));
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
    EXPECT_EQ(call(incremental(kBroker, id, {{"log.retention.ms", kDelete, std::nullopt}}), 1).responses[0].error_code, 0);
    EXPECT_EQ(call(incremental(kBroker, "", {}), 0).responses[0].error_code, 0);
    EXPECT_EQ(call(incremental(kBroker, "x", {}), 0).responses[0].error_message, "Node id must be an integer, but it is: x");
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

}  // namespace
}  // namespace weir::handlers::test
