#include <filesystem>

#include "broker/handlers/test/handler_fixture.h"

namespace weir::handlers::test {
namespace {

using CreateRequest = msg::CreateTopicsRequest;
using CreatableTopic = CreateRequest::CreatableTopic;

CreatableTopic creatable(std::string name, std::int32_t partitions = 1, std::int16_t replication = 1,
                         std::vector<std::pair<std::string, std::optional<std::string>>> configs = {}) {
    CreatableTopic t;
    t.name = std::move(name);
    t.num_partitions = partitions;
    t.replication_factor = replication;
    for (auto& [k, v] : configs) t.configs.push_back({k, v, {}});
    return t;
}

CreateRequest create_request(std::vector<CreatableTopic> topics, bool validate_only = false) {
    CreateRequest r;
    r.topics = std::move(topics);
    r.timeout_ms = 30000;
    r.validate_only = validate_only;
    return r;
}

const msg::CreateTopicsResponse::CreatableTopicConfigs* config_of(
    const msg::CreateTopicsResponse::CreatableTopicResult& r, std::string_view name) {
    if (!r.configs) return nullptr;
    for (const auto& c : *r.configs)
        if (c.name == name) return &c;
    return nullptr;
}

class CreateTopicsHandlerTest : public HandlerTest {};

TEST_F(CreateTopicsHandlerTest, CreatesTopicAndItsLogs) {
    auto r = call(create_request({creatable("new", 3)}), 0);
    ASSERT_EQ(r.topics.size(), 1u);
    EXPECT_EQ(r.topics[0].name, "new");
    EXPECT_EQ(r.topics[0].error_code, 0);
    auto info = store_->topic("new");
    ASSERT_NE(info, nullptr);
    EXPECT_EQ(info->partitions.size(), 3u);
    for (int p = 0; p < 3; ++p) EXPECT_NE(log("new", p), nullptr);
}

TEST_F(CreateTopicsHandlerTest, MinusOneTakesBrokerDefaults) {
    config_.num_partitions = 2;
    auto r = call(create_request({creatable("defaults", -1, -1)}), 4);
    EXPECT_EQ(r.topics[0].error_code, 0);
    EXPECT_EQ(store_->topic("defaults")->partitions.size(), 2u);
}

TEST_F(CreateTopicsHandlerTest, V5AnswersPartitionsReplicationAndConfigs) {
    config_.num_partitions = 2;
    auto r = call(create_request({creatable("cfg", -1, -1, {{"retention.ms", "1000"}})}), 5);
    const auto& t = r.topics[0];
    EXPECT_EQ(t.error_code, 0);
    EXPECT_EQ(t.error_message, std::nullopt);
    EXPECT_EQ(t.num_partitions, 2);
    EXPECT_EQ(t.replication_factor, 1);
    EXPECT_EQ(t.topic_config_error_code, 0);
    const auto* retention = config_of(t, "retention.ms");
    ASSERT_NE(retention, nullptr);
    EXPECT_EQ(retention->value, "1000");
    EXPECT_EQ(retention->config_source, 1);  // DYNAMIC_TOPIC_CONFIG
    EXPECT_FALSE(retention->read_only);
    const auto* cleanup = config_of(t, "cleanup.policy");
    ASSERT_NE(cleanup, nullptr);
    EXPECT_EQ(cleanup->value, "delete");
    EXPECT_EQ(cleanup->config_source, 5);  // DEFAULT_CONFIG
    EXPECT_EQ(t.topic_id, Uuid{});         // v7+
    EXPECT_EQ(store_->topic("cfg")->configs.at("retention.ms"), "1000");
}

TEST_F(CreateTopicsHandlerTest, V7AnswersTopicId) {
    auto r = call(create_request({creatable("with-id")}), 7);
    EXPECT_EQ(r.topics[0].error_code, 0);
    EXPECT_EQ(r.topics[0].topic_id, store_->topic("with-id")->id);
    EXPECT_NE(r.topics[0].topic_id, Uuid{});
}

TEST_F(CreateTopicsHandlerTest, AlreadyExists) {
    create_topic("dup");
    auto r = call(create_request({creatable("dup")}), 5);
    const auto& t = r.topics[0];
    EXPECT_EQ(t.error_code, to_int(ErrorCode::topic_already_exists));
    EXPECT_EQ(t.error_message, "Topic 'dup' already exists.");
    EXPECT_EQ(t.num_partitions, -1);
    EXPECT_EQ(t.replication_factor, -1);
    ASSERT_TRUE(t.configs.has_value());
    EXPECT_TRUE(t.configs->empty());
    EXPECT_EQ(call(create_request({creatable("dup")}), 0).topics[0].error_code,
              to_int(ErrorCode::topic_already_exists));
}

TEST_F(CreateTopicsHandlerTest, InvalidConfigs) {
    auto r = call(create_request({creatable("bad-value", 1, 1, {{"retention.ms", "abc"}}),
                                  creatable("bad-name", 1, 1, {{"no.such.config", "1"}}),
                                  creatable("null-value", 1, 1, {{"retention.ms", std::nullopt}})}),
                  2);
    ASSERT_EQ(r.topics.size(), 3u);
    for (const auto& t : r.topics) EXPECT_EQ(t.error_code, to_int(ErrorCode::invalid_config)) << t.name;
    EXPECT_NE(r.topics[0].error_message->find("retention.ms"), std::string::npos);
    EXPECT_EQ(r.topics[1].error_message, "Unknown topic config name: no.such.config");
    EXPECT_EQ(r.topics[2].error_message, "Null value not supported for topic configs: retention.ms");
    EXPECT_TRUE(store_->topics().empty());
}

TEST_F(CreateTopicsHandlerTest, ValidateOnlyCreatesNothing) {
    auto r = call(create_request({creatable("dry", 4)}, true), 7);
    EXPECT_EQ(r.topics[0].error_code, 0);
    EXPECT_EQ(r.topics[0].num_partitions, 4);
    EXPECT_EQ(r.topics[0].topic_id, Uuid{});
    EXPECT_EQ(store_->topic("dry"), nullptr);
    // v0 has no validate_only: the topic is created.
    EXPECT_EQ(call(create_request({creatable("dry", 4)}, true), 0).topics[0].error_code, 0);
    EXPECT_NE(store_->topic("dry"), nullptr);
}

TEST_F(CreateTopicsHandlerTest, DuplicateNamesInOneRequest) {
    auto r = call(create_request({creatable("twice"), creatable("twice", 2), creatable("once")}), 1);
    ASSERT_EQ(r.topics.size(), 3u);
    EXPECT_EQ(r.topics[0].error_code, to_int(ErrorCode::invalid_request));
    EXPECT_EQ(r.topics[0].error_message, "Found multiple entries for this topic.");
    EXPECT_EQ(r.topics[1].error_code, to_int(ErrorCode::invalid_request));
    EXPECT_EQ(r.topics[2].error_code, 0);
    EXPECT_EQ(store_->topic("twice"), nullptr);
}

TEST_F(CreateTopicsHandlerTest, InvalidNamesPartitionsAndReplication) {
    auto r = call(create_request({creatable("no spaces"), creatable("zero", 0), creatable("rf", 1, 3),
                                  creatable("__cluster_metadata")}),
                  3);
    EXPECT_EQ(r.topics[0].error_code, to_int(ErrorCode::invalid_topic_exception));
    EXPECT_EQ(r.topics[1].error_code, to_int(ErrorCode::invalid_partitions));
    EXPECT_EQ(r.topics[1].error_message, "Number of partitions must be larger than 0.");
    EXPECT_EQ(r.topics[2].error_code, to_int(ErrorCode::invalid_replication_factor));
    EXPECT_EQ(r.topics[2].error_message, "Replication factor: 3 larger than available brokers: 1.");
    EXPECT_EQ(r.topics[3].error_code, to_int(ErrorCode::topic_authorization_failed));
}

TEST_F(CreateTopicsHandlerTest, ManualAssignments) {
    auto t = creatable("manual", -1, -1);
    t.assignments.push_back({0, {kBrokerId}, {}});
    t.assignments.push_back({1, {kBrokerId}, {}});
    auto both = t;
    both.name = "both";
    both.num_partitions = 2;
    auto r = call(create_request({t, both}), 5);
    EXPECT_EQ(r.topics[0].error_code, 0);
    EXPECT_EQ(r.topics[0].num_partitions, 2);
    EXPECT_EQ(r.topics[0].replication_factor, 1);
    EXPECT_EQ(store_->topic("manual")->partitions.size(), 2u);
    EXPECT_EQ(r.topics[1].error_code, to_int(ErrorCode::invalid_request));
}

TEST_F(CreateTopicsHandlerTest, ZeroTimeoutAnswersTimedOutButCreates) {
    auto request = create_request({creatable("quick")});
    request.timeout_ms = 0;
    auto r = call(request, 7);
    EXPECT_EQ(r.topics[0].error_code, to_int(ErrorCode::request_timed_out));
    EXPECT_NE(store_->topic("quick"), nullptr);
    EXPECT_NE(r.topics[0].topic_id, Uuid{});
}

// ---- DeleteTopics ----------------------------------------------------------

using DeleteRequest = msg::DeleteTopicsRequest;

DeleteRequest delete_by_name(std::vector<std::string> names) {
    DeleteRequest r;
    r.timeout_ms = 30000;
    r.topic_names = names;
    for (auto& n : names) r.topics.push_back({n, {}, {}});
    return r;
}

class DeleteTopicsHandlerTest : public HandlerTest {};

TEST_F(DeleteTopicsHandlerTest, ByNameRemovesTopicAndFiles) {
    create_topic("gone", 2);
    produce("gone", 0, 3);
    auto dir = log("gone", 0)->dir();
    ASSERT_TRUE(std::filesystem::exists(dir));
    auto r = call(delete_by_name({"gone", "never"}), 0);
    ASSERT_EQ(r.responses.size(), 2u);
    EXPECT_EQ(r.responses[0].name, "gone");
    EXPECT_EQ(r.responses[0].error_code, 0);
    EXPECT_EQ(r.responses[1].error_code, to_int(ErrorCode::unknown_topic_or_partition));
    EXPECT_EQ(store_->topic("gone"), nullptr);
    EXPECT_EQ(log("gone", 0), nullptr);
    EXPECT_FALSE(std::filesystem::exists(dir));
}

TEST_F(DeleteTopicsHandlerTest, ByIdFromV6) {
    create_topic("by-id");
    auto id = store_->topic("by-id")->id;
    Uuid unknown{};
    unknown.bytes[0] = 9;
    DeleteRequest r;
    r.timeout_ms = 1000;
    r.topics.push_back({std::nullopt, id, {}});
    r.topics.push_back({std::nullopt, unknown, {}});
    auto answer = call(r, 6);
    ASSERT_EQ(answer.responses.size(), 2u);
    EXPECT_EQ(answer.responses[0].error_code, 0);
    EXPECT_EQ(answer.responses[0].name, "by-id");
    EXPECT_EQ(answer.responses[0].topic_id, id);
    EXPECT_EQ(answer.responses[1].error_code, to_int(ErrorCode::unknown_topic_id));
    EXPECT_EQ(answer.responses[1].name, std::nullopt);
    EXPECT_EQ(store_->topic("by-id"), nullptr);
}

TEST_F(DeleteTopicsHandlerTest, NameAndIdTogetherRejectTheRequest) {
    create_topic("a");
    create_topic("b");
    DeleteRequest r;
    r.timeout_ms = 1000;
    r.topics.push_back({std::string("a"), store_->topic("a")->id, {}});
    r.topics.push_back({std::string("b"), {}, {}});
    auto answer = call(r, 6);
    ASSERT_EQ(answer.responses.size(), 2u);
    for (const auto& t : answer.responses) EXPECT_EQ(t.error_code, to_int(ErrorCode::invalid_request));
    EXPECT_NE(store_->topic("a"), nullptr);
    EXPECT_NE(store_->topic("b"), nullptr);
}

TEST_F(DeleteTopicsHandlerTest, DeletionDisabled) {
    config_.delete_topic_enable = false;
    create_topic("keep");
    EXPECT_EQ(call(delete_by_name({"keep"}), 2).responses[0].error_code, to_int(ErrorCode::invalid_request));
    EXPECT_EQ(call(delete_by_name({"keep"}), 3).responses[0].error_code, to_int(ErrorCode::topic_deletion_disabled));
    EXPECT_NE(store_->topic("keep"), nullptr);
}

TEST_F(DeleteTopicsHandlerTest, ZeroTimeoutAndDuplicates) {
    create_topic("x");
    auto r = delete_by_name({"x", "x"});
    r.timeout_ms = 0;
    auto answer = call(r, 5);
    ASSERT_EQ(answer.responses.size(), 2u);
    EXPECT_EQ(answer.responses[0].error_code, to_int(ErrorCode::request_timed_out));
    EXPECT_EQ(answer.responses[1].error_code, to_int(ErrorCode::request_timed_out));
    EXPECT_EQ(store_->topic("x"), nullptr);
}

TEST_F(DeleteTopicsHandlerTest, InternalTopicsCannotBeDeleted) {
    create_topic("__consumer_offsets");
    auto r = call(delete_by_name({"__consumer_offsets"}), 5);
    EXPECT_EQ(r.responses[0].error_code, to_int(ErrorCode::invalid_request));
    EXPECT_TRUE(r.responses[0].error_message.has_value());
    EXPECT_NE(store_->topic("__consumer_offsets"), nullptr);
}

// ---- CreatePartitions ------------------------------------------------------

using PartitionsRequest = msg::CreatePartitionsRequest;

PartitionsRequest grow(std::string topic, std::int32_t count, bool validate_only = false) {
    PartitionsRequest r;
    r.timeout_ms = 30000;
    r.validate_only = validate_only;
    auto& t = r.topics.emplace_back();
    t.name = std::move(topic);
    t.count = count;
    t.assignments.reset();
    return r;
}

class CreatePartitionsHandlerTest : public HandlerTest {};

TEST_F(CreatePartitionsHandlerTest, GrowsTopicAndCreatesLogs) {
    create_topic("g");
    auto r = call(grow("g", 3), 0);
    ASSERT_EQ(r.results.size(), 1u);
    EXPECT_EQ(r.results[0].name, "g");
    EXPECT_EQ(r.results[0].error_code, 0);
    EXPECT_EQ(r.results[0].error_message, std::nullopt);
    EXPECT_EQ(store_->topic("g")->partitions.size(), 3u);
    EXPECT_NE(log("g", 2), nullptr);
}

TEST_F(CreatePartitionsHandlerTest, CountMustGrow) {
    create_topic("g", 2);
    auto fewer = call(grow("g", 1), 1);
    EXPECT_EQ(fewer.results[0].error_code, to_int(ErrorCode::invalid_partitions));
    EXPECT_EQ(fewer.results[0].error_message,
              "Topic currently has 2 partitions, which is higher than the requested 1.");
    auto same = call(grow("g", 2), 2);
    EXPECT_EQ(same.results[0].error_code, to_int(ErrorCode::invalid_partitions));
    EXPECT_EQ(same.results[0].error_message, "Topic already has 2 partitions.");
    auto unknown = call(grow("nope", 2), 3);
    EXPECT_EQ(unknown.results[0].error_code, to_int(ErrorCode::unknown_topic_or_partition));
    EXPECT_EQ(unknown.results[0].error_message, "The topic 'nope' does not exist.");
}

TEST_F(CreatePartitionsHandlerTest, ValidateOnly) {
    create_topic("v");
    EXPECT_EQ(call(grow("v", 5, true), 1).results[0].error_code, 0);
    EXPECT_EQ(store_->topic("v")->partitions.size(), 1u);
}

TEST_F(CreatePartitionsHandlerTest, Assignments) {
    create_topic("a");
    auto ok = grow("a", 3);
    ok.topics[0].assignments.emplace();
    ok.topics[0].assignments->push_back({{kBrokerId}, {}});
    ok.topics[0].assignments->push_back({{kBrokerId}, {}});
    EXPECT_EQ(call(ok, 2).results[0].error_code, 0);
    EXPECT_EQ(store_->topic("a")->partitions.size(), 3u);

    auto unknown_broker = grow("a", 4);
    unknown_broker.topics[0].assignments.emplace();
    unknown_broker.topics[0].assignments->push_back({{99}, {}});
    auto r = call(unknown_broker, 2);
    EXPECT_EQ(r.results[0].error_code, to_int(ErrorCode::invalid_replica_assignment));
    EXPECT_EQ(r.results[0].error_message, "Unknown broker(s) in replica assignment: 99.");

    auto empty = grow("a", 4);
    empty.topics[0].assignments.emplace();  // present but empty: not automatic placement
    auto e = call(empty, 0);
    EXPECT_EQ(e.results[0].error_code, to_int(ErrorCode::invalid_replica_assignment));
    EXPECT_EQ(e.results[0].error_message, "Increasing the number of partitions by 1 but 0 assignments provided.");
    EXPECT_EQ(store_->topic("a")->partitions.size(), 3u);
}

TEST_F(CreatePartitionsHandlerTest, DuplicateTopicsAnsweredOnce) {
    create_topic("d");
    auto r = grow("d", 2);
    r.topics.push_back(r.topics[0]);
    auto answer = call(r, 3);
    ASSERT_EQ(answer.results.size(), 1u);
    EXPECT_EQ(answer.results[0].error_code, to_int(ErrorCode::invalid_request));
    EXPECT_EQ(answer.results[0].error_message, "Duplicate topic in request.");
    EXPECT_EQ(store_->topic("d")->partitions.size(), 1u);
}

TEST_F(CreatePartitionsHandlerTest, ZeroTimeout) {
    create_topic("z");
    auto r = grow("z", 2);
    r.timeout_ms = 0;
    EXPECT_EQ(call(r, 1).results[0].error_code, to_int(ErrorCode::request_timed_out));
    EXPECT_EQ(store_->topic("z")->partitions.size(), 2u);
}

}  // namespace
}  // namespace weir::handlers::test
