#include <limits>

#include "broker/handlers/test/handler_fixture.h"

namespace weir::handlers::test {
namespace {

using MetadataReq = msg::MetadataRequest;
using TopicRequest = MetadataReq::MetadataRequestTopic;

MetadataReq for_topics(std::vector<std::string> names) {
    MetadataReq r;
    r.topics.emplace();
    for (auto& n : names) {
        TopicRequest t;
        t.name = std::move(n);
        r.topics->push_back(std::move(t));
    }
    return r;
}

MetadataReq all_topics() {
    MetadataReq r;
    r.topics.reset();
    return r;
}

std::vector<std::string> names_of(const msg::MetadataResponse& r) {
    std::vector<std::string> out;
    for (const auto& t : r.topics) out.push_back(t.name.value_or("<null>"));
    std::sort(out.begin(), out.end());
    return out;
}

const msg::MetadataResponse::MetadataResponseTopic* find(const msg::MetadataResponse& r, std::string_view name) {
    for (const auto& t : r.topics)
        if (t.name == name) return &t;
    return nullptr;
}

class MetadataHandlerTest : public HandlerTest {};

TEST_F(MetadataHandlerTest, V0EmptyListAndV1NullMeanAllTopics) {
    create_topic("a", 2);
    create_topic("b");
    EXPECT_EQ(names_of(call(for_topics({}), 0)), (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(names_of(call(all_topics(), 1)), (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(names_of(call(all_topics(), 12)), (std::vector<std::string>{"a", "b"}));
    // From v1 an empty list means no topics.
    EXPECT_TRUE(call(for_topics({}), 1).topics.empty());
    EXPECT_EQ(names_of(call(for_topics({"b"}), 5)), (std::vector<std::string>{"b"}));
}

TEST_F(MetadataHandlerTest, BrokersComeFromTheRequestListener) {
    auto plain = call(all_topics(), 1);
    ASSERT_EQ(plain.brokers.size(), 1u);
    EXPECT_EQ(plain.brokers[0].node_id, kBrokerId);
    EXPECT_EQ(plain.brokers[0].host, "broker.example");
    EXPECT_EQ(plain.brokers[0].port, 19092);
    EXPECT_EQ(plain.brokers[0].rack, "rack-a");

    auto internal = call(all_topics(), 1, "INTERNAL");
    ASSERT_EQ(internal.brokers.size(), 1u);
    EXPECT_EQ(internal.brokers[0].host, "internal.example");
    EXPECT_EQ(internal.brokers[0].port, 19093);

    // v0 has no rack.
    auto v0 = call(for_topics({}), 0);
    ASSERT_EQ(v0.brokers.size(), 1u);
    EXPECT_EQ(v0.brokers[0].rack, std::nullopt);
}

TEST_F(MetadataHandlerTest, ClusterIdAndControllerByVersion) {
    start();
    EXPECT_EQ(call(for_topics({}), 0).controller_id, -1);  // not in v0
    auto v1 = call(all_topics(), 1);
    EXPECT_EQ(v1.controller_id, kBrokerId);
    EXPECT_EQ(v1.cluster_id, std::nullopt);
    auto v2 = call(all_topics(), 2);
    EXPECT_EQ(v2.cluster_id, store_->cluster_id());
    EXPECT_FALSE(v2.cluster_id->empty());
}

TEST_F(MetadataHandlerTest, TopicAndPartitionFieldsByVersion) {
    create_topic("t", 2);
    auto id = store_->topic("t")->id;

    auto v12 = call(for_topics({"t"}), 12);
    ASSERT_EQ(v12.topics.size(), 1u);
    const auto& t = v12.topics[0];
    EXPECT_EQ(t.error_code, 0);
    EXPECT_EQ(t.topic_id, id);
    EXPECT_FALSE(t.is_internal);
    EXPECT_EQ(t.topic_authorized_operations, std::numeric_limits<std::int32_t>::min());
    ASSERT_EQ(t.partitions.size(), 2u);
    for (int p = 0; p < 2; ++p) {
        EXPECT_EQ(t.partitions[p].partition_index, p);
        EXPECT_EQ(t.partitions[p].error_code, 0);
        EXPECT_EQ(t.partitions[p].leader_id, kBrokerId);
        EXPECT_EQ(t.partitions[p].leader_epoch, 0);
        EXPECT_EQ(t.partitions[p].replica_nodes, std::vector<std::int32_t>{kBrokerId});
        EXPECT_EQ(t.partitions[p].isr_nodes, std::vector<std::int32_t>{kBrokerId});
        EXPECT_TRUE(t.partitions[p].offline_replicas.empty());
    }
    // Fields a version lacks read back as their defaults.
    auto v6 = call(for_topics({"t"}), 6);
    EXPECT_EQ(v6.topics[0].partitions[0].leader_epoch, -1);
    EXPECT_EQ(v6.topics[0].topic_id, Uuid{});
    auto v9 = call(for_topics({"t"}), 9);
    EXPECT_EQ(v9.topics[0].partitions[0].leader_epoch, 0);
    EXPECT_EQ(v9.topics[0].topic_id, Uuid{});
}

TEST_F(MetadataHandlerTest, AutoCreatesRequestedTopicsWithBrokerDefaults) {
    config_.num_partitions = 3;
    config_.default_replication_factor = 3;  // clamped to the one live broker
    auto r = call(for_topics({"fresh"}), 9);
    ASSERT_EQ(r.topics.size(), 1u);
    EXPECT_EQ(r.topics[0].error_code, 0);
    EXPECT_EQ(r.topics[0].name, "fresh");
    ASSERT_EQ(r.topics[0].partitions.size(), 3u);
    EXPECT_EQ(r.topics[0].partitions[2].leader_id, kBrokerId);
    EXPECT_EQ(r.topics[0].partitions[2].replica_nodes, std::vector<std::int32_t>{kBrokerId});
    ASSERT_NE(store_->topic("fresh"), nullptr);
    // The broker's metadata listener created the logs.
    for (int p = 0; p < 3; ++p) EXPECT_NE(log("fresh", p), nullptr) << p;
}

TEST_F(MetadataHandlerTest, AutoCreationCanBeRefused) {
    auto no_create = for_topics({"x"});
    no_create.allow_auto_topic_creation = false;
    auto v4 = call(no_create, 4);
    ASSERT_EQ(v4.topics.size(), 1u);
    EXPECT_EQ(v4.topics[0].error_code, to_int(ErrorCode::unknown_topic_or_partition));
    EXPECT_TRUE(v4.topics[0].partitions.empty());
    EXPECT_EQ(store_->topic("x"), nullptr);

    // v3 cannot say no: the field is absent and defaults to true.
    auto v3 = call(no_create, 3);
    EXPECT_EQ(v3.topics[0].error_code, 0);
    EXPECT_NE(store_->topic("x"), nullptr);
}

TEST_F(MetadataHandlerTest, AutoCreationDisabledByBrokerConfig) {
    config_.auto_create_topics_enable = false;
    auto r = call(for_topics({"y"}), 1);
    EXPECT_EQ(r.topics[0].error_code, to_int(ErrorCode::unknown_topic_or_partition));
    EXPECT_EQ(store_->topic("y"), nullptr);
}

TEST_F(MetadataHandlerTest, InvalidTopicNames) {
    auto created = call(for_topics({"bad name!"}), 4);
    EXPECT_EQ(created.topics[0].error_code, to_int(ErrorCode::invalid_topic_exception));
    config_.auto_create_topics_enable = false;
    auto not_created = call(for_topics({".."}), 4);
    EXPECT_EQ(not_created.topics[0].error_code, to_int(ErrorCode::invalid_topic_exception));
}

TEST_F(MetadataHandlerTest, DuplicateNamesAnsweredOnce) {
    create_topic("d");
    EXPECT_EQ(call(for_topics({"d", "d"}), 1).topics.size(), 1u);
}

TEST_F(MetadataHandlerTest, AutoCreatedConsumerOffsetsIsInternal) {
    config_.offsets_topic_num_partitions = 4;
    auto r = call(for_topics({"__consumer_offsets"}), 1);
    ASSERT_EQ(r.topics.size(), 1u);
    EXPECT_EQ(r.topics[0].error_code, 0);
    EXPECT_TRUE(r.topics[0].is_internal);
    EXPECT_EQ(r.topics[0].partitions.size(), 4u);
    auto info = store_->topic("__consumer_offsets");
    ASSERT_NE(info, nullptr);
    EXPECT_EQ(info->configs.at("cleanup.policy"), "compact");
}

TEST_F(MetadataHandlerTest, TopicsByIdFromV12) {
    create_topic("by-id");
    auto id = store_->topic("by-id")->id;
    Uuid unknown{};
    unknown.bytes[15] = 42;

    MetadataReq r;
    r.topics.emplace();
    r.topics->push_back({id, std::nullopt, {}});
    r.topics->push_back({unknown, std::nullopt, {}});
    auto v12 = call(r, 12);
    ASSERT_EQ(v12.topics.size(), 2u);
    EXPECT_EQ(v12.topics[0].error_code, to_int(ErrorCode::unknown_topic_id));
    EXPECT_EQ(v12.topics[0].name, std::nullopt);
    EXPECT_EQ(v12.topics[0].topic_id, unknown);
    EXPECT_EQ(v12.topics[1].error_code, 0);
    EXPECT_EQ(v12.topics[1].name, "by-id");
    EXPECT_EQ(v12.topics[1].topic_id, id);
    EXPECT_EQ(v12.topics[1].partitions.size(), 1u);

    // v10 and v11 carry the field but Kafka refuses ids there.
    MetadataReq named;
    named.topics.emplace();
    named.topics->push_back({id, std::string("by-id"), {}});
    auto v10 = call(named, 10);
    ASSERT_EQ(v10.topics.size(), 1u);
    EXPECT_EQ(v10.topics[0].error_code, to_int(ErrorCode::invalid_request));
    EXPECT_TRUE(v10.brokers.empty());
}

TEST_F(MetadataHandlerTest, AuthorizedOperations) {
    create_topic("ops");
    auto r = for_topics({"ops"});
    r.include_topic_authorized_operations = true;
    r.include_cluster_authorized_operations = true;
    auto v8 = call(r, 8);
    EXPECT_EQ(v8.topics[0].topic_authorized_operations, 3576);
    EXPECT_EQ(v8.cluster_authorized_operations, 8096);
    // The cluster field is gone from v11.
    auto v11 = call(r, 11);
    EXPECT_EQ(v11.topics[0].topic_authorized_operations, 3576);
    EXPECT_EQ(v11.cluster_authorized_operations, std::numeric_limits<std::int32_t>::min());
    auto plain = call(for_topics({"ops"}), 8);
    EXPECT_EQ(plain.topics[0].topic_authorized_operations, std::numeric_limits<std::int32_t>::min());
    EXPECT_EQ(plain.cluster_authorized_operations, std::numeric_limits<std::int32_t>::min());
}

TEST_F(MetadataHandlerTest, LeaderWithoutEndpointOnTheListener) {
    create_topic("l");
    auto v6 = call(for_topics({"l"}), 6, "NOWHERE");
    EXPECT_TRUE(v6.brokers.empty());
    ASSERT_EQ(v6.topics[0].partitions.size(), 1u);
    EXPECT_EQ(v6.topics[0].partitions[0].error_code, to_int(ErrorCode::listener_not_found));
    EXPECT_EQ(v6.topics[0].partitions[0].leader_id, -1);
    auto v5 = call(for_topics({"l"}), 5, "NOWHERE");
    EXPECT_EQ(v5.topics[0].partitions[0].error_code, to_int(ErrorCode::leader_not_available));
    // v0 also drops replicas it cannot describe.
    auto v0 = call(for_topics({"l"}), 0, "NOWHERE");
    EXPECT_TRUE(v0.topics[0].partitions[0].replica_nodes.empty());
}

TEST_F(MetadataHandlerTest, CreatedTopicReportedAfterwards) {
    auto first = call(for_topics({"later"}), 1);
    ASSERT_EQ(first.topics[0].error_code, 0);
    auto all = call(all_topics(), 1);
    ASSERT_NE(find(all, "later"), nullptr);
    EXPECT_EQ(find(all, "later")->partitions.size(), static_cast<std::size_t>(config_.num_partitions));
}

}  // namespace
}  // namespace weir::handlers::test
