#include "broker/admin/topic_views.h"

#include <gmock/gmock.h>

#include "broker/admin/test/admin_fixture.h"

namespace weir::admin::test {
namespace {

namespace json = boost::json;

class TopicViewsTest : public AdminTest {};

TEST_F(TopicViewsTest, ListsTopicsWithPartitionCounts) {
    create_topic("beta", 3);
    create_topic("alpha", 1);
    auto r = get("/v1/topics");
    ASSERT_EQ(r.status, 200u);
    EXPECT_EQ(r.content_type, "application/json");
    const auto topics = json_of(r).as_array();
    ASSERT_EQ(topics.size(), 2u);
    EXPECT_EQ(topics[0].at("name"), "alpha");
    EXPECT_EQ(topics[1].at("name"), "beta");
    EXPECT_EQ(topics[1].at("partitions"), 3);
    EXPECT_EQ(topics[1].at("replication_factor"), 1);
    EXPECT_EQ(topics[1].at("internal"), false);
    EXPECT_EQ(topics[1].at("id").as_string(), store_->topic("beta")->id.to_string());
}

TEST_F(TopicViewsTest, TopicShowsPartitionsOffsetsSizeAndConfigs) {
    create_topic("orders", 2, {{"retention.ms", "1000"}});
    produce("orders", 1, 5);
    produce("orders", 1, 3);
    auto r = get("/v1/topics/orders");
    ASSERT_EQ(r.status, 200u);
    const auto topic = json_of(r).as_object();
    EXPECT_EQ(topic.at("name"), "orders");
    EXPECT_EQ(topic.at("configs").at("retention.ms"), "1000");
    const auto& partitions = topic.at("partitions").as_array();
    ASSERT_EQ(partitions.size(), 2u);
    const auto& p0 = partitions[0].as_object();
    EXPECT_EQ(p0.at("partition"), 0);
    EXPECT_EQ(p0.at("leader"), kBrokerId);
    EXPECT_EQ(p0.at("replicas"), json::array({kBrokerId}));
    EXPECT_EQ(p0.at("isr"), json::array({kBrokerId}));
    EXPECT_EQ(p0.at("log_end_offset"), 0);
    EXPECT_EQ(p0.at("size_bytes"), 0);
    const auto& p1 = partitions[1].as_object();
    EXPECT_EQ(p1.at("log_start_offset"), 0);
    EXPECT_EQ(p1.at("log_end_offset"), 8);
    EXPECT_EQ(p1.at("high_watermark"), 8);
    EXPECT_GT(p1.at("size_bytes").to_number<std::int64_t>(), 8 * 16);
    EXPECT_EQ(p1.at("size_bytes").to_number<std::int64_t>(),
              static_cast<std::int64_t>(core_->logs().get({"orders", 1})->size_bytes()));
}

TEST_F(TopicViewsTest, UnknownTopicIs404AsJson) {
    auto r = get("/v1/topics/nope");
    EXPECT_EQ(r.status, 404u);
    EXPECT_EQ(json_of(r).at("error").at("message"), "topic nope not found");
    EXPECT_EQ(json_of(r).at("error").at("status"), 404);
}

TEST_F(TopicViewsTest, ClusterAndBrokers) {
    create_topic("a", 2);
    create_topic("b", 3);
    auto cluster = json_of(get("/v1/cluster")).as_object();
    EXPECT_EQ(cluster.at("cluster_id").as_string(), store_->cluster_id());
    EXPECT_EQ(cluster.at("mode"), "single-node");
    EXPECT_EQ(cluster.at("broker_id"), kBrokerId);
    EXPECT_EQ(cluster.at("brokers"), 1);
    EXPECT_EQ(cluster.at("topics"), 2);
    EXPECT_EQ(cluster.at("partitions"), 5);

    auto brokers = json_of(get("/v1/brokers")).as_array();
    ASSERT_EQ(brokers.size(), 1u);
    EXPECT_EQ(brokers[0].at("id"), kBrokerId);
    EXPECT_EQ(brokers[0].at("self"), true);
    EXPECT_EQ(brokers[0].at("rack"), "rack-a");
    const auto& endpoints = brokers[0].at("endpoints").as_array();
    ASSERT_FALSE(endpoints.empty());
    EXPECT_EQ(endpoints[0].at("host"), "broker.example");
    EXPECT_EQ(endpoints[0].at("port"), 19092);
}

TEST_F(TopicViewsTest, HealthAndReadiness) {
    EXPECT_EQ(get("/healthz").status, 200u);
    EXPECT_EQ(get("/readyz").status, 200u);
    admin().ready = [] { return false; };
    auto loading = get("/readyz");
    EXPECT_EQ(loading.status, 503u);
    EXPECT_EQ(loading.body, "loading\n");
    EXPECT_EQ(get("/healthz").status, 200u);
    admin().ready = [] { return true; };
    context_->stopping_flag = true;
    EXPECT_EQ(get("/readyz").status, 503u);
}

TEST_F(TopicViewsTest, ConsoleIsServedAtTheRootAndReadsTheApi) {
    auto page = get("/");
    EXPECT_EQ(page.status, 200u);
    EXPECT_EQ(page.content_type, "text/html; charset=utf-8");
    for (const char* path : {"/v1/cluster", "/v1/brokers", "/v1/topics", "/v1/groups", "/v1/faults"})
        EXPECT_NE(page.body.find(path), std::string::npos) << path;
}

TEST_F(TopicViewsTest, GroupEndpointsWithoutACoordinatorAre503) {
    EXPECT_EQ(get("/v1/groups").status, 503u);
    EXPECT_EQ(get("/v1/groups/g").status, 503u);
}

}  // namespace
}  // namespace weir::admin::test
