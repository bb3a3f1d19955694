// The admin HTTP listener of a real broker: health and readiness, Prometheus
// metrics that follow what librdkafka producers and a consumer group do, the
// JSON views of a topic and a group, and bad HTTP input that gets 4xx or a
// closed connection while Kafka clients keep working.
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <filesystem>
#include <regex>
#include <thread>

#include "harness/admin.h"
#include "harness/broker_process.h"
#include "harness/http_client.h"
#include "harness/kafka_client.h"
#include "harness/raw_connection.h"
#include "harness/subprocess.h"
#include "harness/wait.h"

namespace weir::compat {
namespace {

using namespace std::chrono_literals;
namespace json = boost::json;

// The value of one sample of a /metrics text, e.g.
// metric(text, "weir_requests_total{api=\"Produce\"}"); nullopt if absent.
std::optional<double> metric(const std::string& text, const std::string& series) {
    const auto at = text.find("\n" + series + " ");
    if (at == std::string::npos) return std::nullopt;
    return std::stod(text.substr(at + series.size() + 2));
}

double metric_or_zero(const std::string& text, const std::string& series) { return metric(text, series).value_or(0); }

std::string scrape(const BrokerProcess& broker) {
    auto r = http_get(broker.admin_port(), "/metrics");
    EXPECT_EQ(r.status, 200) << r.raw;
    EXPECT_EQ(r.headers["content-type"], "text/plain; version=0.0.4; charset=utf-8");
    return "\n" + r.body;
}

json::value get_json(const BrokerProcess& broker, const std::string& target, int expected_status = 200) {
    auto r = http_get(broker.admin_port(), target);
    EXPECT_EQ(r.status, expected_status) << target << "\n" << r.raw;
    EXPECT_EQ(r.headers["content-type"], "application/json") << target;
    try {
        return json::parse(r.body);
    } catch (const std::exception& e) {
        ADD_FAILURE() << target << ": not JSON: " << e.what() << "\n" << r.body;
        return nullptr;
    }
}

std::vector<Delivery> produce_to(const BrokerProcess& broker, const std::string& topic, std::int32_t partition, int n,
                                 const std::string& prefix) {
    std::vector<OutMessage> messages;
    for (int i = 0; i < n; ++i)
        messages.push_back({topic, partition, prefix + std::to_string(i), std::string(100, 'v'), {}, 0});
    auto deliveries = produce_all(broker.bootstrap(), messages);
    for (const auto& d : deliveries) EXPECT_EQ(d.err, RdKafka::ERR_NO_ERROR) << err_name(d.err);
    return deliveries;
}

// A subscribed KafkaConsumer that commits only when told.
class GroupMember {
public:
    GroupMember(const std::string& bootstrap, const std::string& group, const std::string& topic) {
        auto conf = make_conf(bootstrap, {{"group.id", group},
                                          {"client.id", "admin-test-consumer"},
                                          {"enable.auto.commit", "false"},
                                          {"auto.offset.reset", "earliest"},
                                          {"session.timeout.ms", "10000"}});
        std::string err;
        consumer_.reset(RdKafka::KafkaConsumer::create(conf.get(), err));
        if (!consumer_) throw std::runtime_error(err);
        if (auto e = consumer_->subscribe({topic}); e != RdKafka::ERR_NO_ERROR)
            throw std::runtime_error(RdKafka::err2str(e));
    }
    ~GroupMember() { consumer_->close(); }

    // Polls until `count` messages arrived (bounded); returns how many did.
    std::size_t consume(std::size_t count, std::chrono::milliseconds timeout) {
        std::size_t got = 0;
        const auto deadline = std::chrono::steady_clock::now() + timeout;
        while (got < count && std::chrono::steady_clock::now() < deadline) {
            std::unique_ptr<RdKafka::Message> m(consumer_->consume(100));
            if (m->err() == RdKafka::ERR_NO_ERROR) ++got;
        }
        return got;
    }
    RdKafka::ErrorCode commit() { return consumer_->commitSync(); }

private:
    std::unique_ptr<RdKafka::KafkaConsumer> consumer_;
};

const json::object* find_partition(const json::value& offsets, const std::string& topic, int partition) {
    for (const auto& o : offsets.as_array())
        if (o.at("topic").as_string() == topic && o.at("partition") == partition) return &o.as_object();
    return nullptr;
}

TEST(AdminHttp, HealthAndReadiness) {
    BrokerProcess broker;
    broker.start();
    auto health = http_get(broker.admin_port(), "/healthz");
    EXPECT_EQ(health.status, 200) << health.raw;
    EXPECT_EQ(health.body, "ok\n");
    // Ready once the group coordinator has loaded its partitions: bounded wait.
    EXPECT_TRUE(wait_until([&] { return http_get(broker.admin_port(), "/readyz").status == 200; }, 10s));
    // The broker logs where its admin listener is.
    EXPECT_NE(broker.log_tail(200).find("admin listener on http://127.0.0.1:" + std::to_string(broker.admin_port())),
              std::string::npos);
}

TEST(AdminHttp, MetricsAndViewsFollowProducersAndAConsumerGroup) {
    BrokerProcess broker;
    broker.start();
    const std::string topic = "admin-http";
    Admin admin(broker.bootstrap());
    ASSERT_EQ(admin.create_topic(topic, 2).err, RD_KAFKA_RESP_ERR_NO_ERROR);

    const auto before = scrape(broker);
    const double produce_requests_before = metric_or_zero(before, "weir_requests_total{api=\"Produce\"}");
    produce_to(broker, topic, 0, 30, "a");
    produce_to(broker, topic, 1, 20, "b");

    auto text = scrape(broker);
    EXPECT_GT(metric_or_zero(text, "weir_requests_total{api=\"Produce\"}"), produce_requests_before);
    EXPECT_EQ(metric(text, "weir_messages_in_total{topic=\"" + topic + "\"}"), 50);
    EXPECT_GT(metric_or_zero(text, "weir_bytes_in_total{topic=\"" + topic + "\"}"), 50 * 100);
    EXPECT_EQ(metric(text, "weir_partition_log_end_offset{topic=\"" + topic + "\",partition=\"0\"}"), 30);
    EXPECT_EQ(metric(text, "weir_partition_log_end_offset{topic=\"" + topic + "\",partition=\"1\"}"), 20);
    EXPECT_EQ(metric(text, "weir_partition_log_start_offset{topic=\"" + topic + "\",partition=\"1\"}"), 0);
    EXPECT_GT(metric_or_zero(text, "weir_partition_size_bytes{topic=\"" + topic + "\",partition=\"0\"}"), 30 * 100);
    EXPECT_GT(metric_or_zero(text, "weir_request_duration_seconds_count{api=\"Produce\"}"), 0);
    EXPECT_NE(text.find("weir_request_duration_seconds_bucket{api=\"Produce\",le=\"+Inf\"}"), std::string::npos);

    {
        GroupMember member(broker.bootstrap(), "admin-group", topic);
        ASSERT_EQ(member.consume(50, 20s), 50u);
        ASSERT_EQ(member.commit(), RdKafka::ERR_NO_ERROR);

        text = scrape(broker);
        EXPECT_GT(metric_or_zero(text, "weir_bytes_out_total{topic=\"" + topic + "\"}"), 50 * 100);
        EXPECT_GE(metric_or_zero(text, "weir_connections"), 1);
        EXPECT_EQ(metric(text, "weir_consumer_group_members{group=\"admin-group\"}"), 1);
        EXPECT_EQ(
            metric(text, "weir_consumer_group_lag{group=\"admin-group\",topic=\"" + topic + "\",partition=\"0\"}"), 0);
        EXPECT_GT(metric_or_zero(text, "weir_requests_total{api=\"OffsetCommit\"}"), 0);

        // New records the member has not committed: lag moves.
        produce_to(broker, topic, 0, 10, "c");
        text = scrape(broker);
        EXPECT_EQ(
            metric(text, "weir_consumer_group_lag{group=\"admin-group\",topic=\"" + topic + "\",partition=\"0\"}"), 10);
        EXPECT_EQ(
            metric(text, "weir_consumer_group_lag{group=\"admin-group\",topic=\"" + topic + "\",partition=\"1\"}"), 0);
        EXPECT_EQ(metric(text, "weir_messages_in_total{topic=\"" + topic + "\"}"), 60);

        auto group = get_json(broker, "/v1/groups/admin-group");
        ASSERT_TRUE(group.is_object()) << json::serialize(group);
        EXPECT_EQ(group.at("state"), "Stable") << json::serialize(group);
        EXPECT_EQ(group.at("protocol_type"), "consumer");
        const auto& members = group.at("members").as_array();
        ASSERT_EQ(members.size(), 1u) << json::serialize(group);
        EXPECT_EQ(members[0].at("client_id"), "admin-test-consumer");
        EXPECT_NE(members[0].at("client_host").as_string().find("127.0.0.1"), json::string::npos);
        EXPECT_EQ(members[0].at("assignment").as_array().size(), 2u) << json::serialize(group);
        const auto* p0 = find_partition(group.at("offsets"), topic, 0);
        const auto* p1 = find_partition(group.at("offsets"), topic, 1);
        ASSERT_TRUE(p0 && p1) << json::serialize(group);
        EXPECT_EQ(p0->at("committed_offset"), 30);
        EXPECT_EQ(p0->at("high_watermark"), 40);
        EXPECT_EQ(p0->at("lag"), 10);
        EXPECT_EQ(p1->at("committed_offset"), 20);
        EXPECT_EQ(p1->at("lag"), 0);
        EXPECT_EQ(group.at("total_lag"), 10);

        auto groups = get_json(broker, "/v1/groups");
        bool listed = false;
        for (const auto& g : groups.as_array()) listed |= g.at("group_id") == "admin-group";
        EXPECT_TRUE(listed) << json::serialize(groups);
    }

    auto t = get_json(broker, "/v1/topics/" + topic);
    ASSERT_TRUE(t.is_object());
    const auto& partitions = t.at("partitions").as_array();
    ASSERT_EQ(partitions.size(), 2u);
    EXPECT_EQ(partitions[0].at("leader"), 0);
    EXPECT_EQ(partitions[0].at("isr"), json::array({0}));
    EXPECT_EQ(partitions[0].at("replicas"), json::array({0}));
    EXPECT_EQ(partitions[0].at("log_end_offset"), 40);
    EXPECT_EQ(partitions[1].at("log_end_offset"), 20);
    EXPECT_EQ(partitions[0].at("log_start_offset"), 0);
    EXPECT_GT(partitions[0].at("size_bytes").to_number<std::int64_t>(), 40 * 100);

    auto topics = get_json(broker, "/v1/topics");
    bool listed = false;
    for (const auto& x : topics.as_array()) listed |= x.at("name").as_string() == topic;
    EXPECT_TRUE(listed);
    auto cluster = get_json(broker, "/v1/cluster");
    EXPECT_EQ(cluster.at("mode"), "single-node");
    EXPECT_EQ(cluster.at("broker_id"), 0);
    auto brokers = get_json(broker, "/v1/brokers");
    ASSERT_EQ(brokers.as_array().size(), 1u);
    EXPECT_EQ(brokers.as_array()[0].at("endpoints").as_array()[0].at("port"), broker.port());

    EXPECT_EQ(get_json(broker, "/v1/topics/no-such-topic", 404).at("error").at("status"), 404);
    EXPECT_EQ(get_json(broker, "/v1/groups/no-such-group", 404).at("error").at("status"), 404);

    // A Metadata request for a topic that does not exist (no auto-creation):
    // UNKNOWN_TOPIC_OR_PARTITION, counted by API and error.
    {
        Consumer consumer(broker.bootstrap(), {{"allow.auto.create.topics", "false"}});
        auto info = topic_metadata(consumer.handle(), "absent-topic", 5s);
        EXPECT_EQ(info.err, RdKafka::ERR_UNKNOWN_TOPIC_OR_PART) << err_name(info.err);
    }
    text = scrape(broker);
    EXPECT_GE(metric_or_zero(text, "weir_request_errors_total{api=\"Metadata\",error=\"UNKNOWN_TOPIC_OR_PARTITION\"}"),
              1);
}

TEST(AdminHttp, BadHttpInputGets4xxWhileKafkaClientsKeepWorking) {
    BrokerProcess broker({.overrides = {{"weir.admin.faults.enable", "true"}}});
    broker.start();
    const std::string topic = "admin-bad-input";
    Admin admin(broker.bootstrap());
    ASSERT_EQ(admin.create_topic(topic, 1).err, RD_KAFKA_RESP_ERR_NO_ERROR);
    Producer producer(broker.bootstrap());
    std::size_t sent = 0;
    auto produce_some = [&] {
        for (int i = 0; i < 10; ++i) producer.send({topic, 0, std::nullopt, "m" + std::to_string(sent++), {}, 0});
        EXPECT_TRUE(producer.flush(10s));
        EXPECT_EQ(producer.ok_count(), sent);
    };
    const auto port = broker.admin_port();

    // A slow client that never finishes its request, and idle ones, held open
    // throughout (within the listener's 64 connections).
    RawConnection slow(port);
    const std::string partial = "GET /metr";
    slow.send(std::span(reinterpret_cast<const std::uint8_t*>(partial.data()), partial.size()));
    std::vector<std::unique_ptr<RawConnection>> idle;
    for (int i = 0; i < 40; ++i) idle.push_back(std::make_unique<RawConnection>(port));
    produce_some();

    // Oversized header.
    auto big_header =
        http_raw(port, "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Filler: " + std::string(64 * 1024, 'x') + "\r\n\r\n");
    EXPECT_EQ(big_header.status, 431) << big_header.raw.substr(0, 200);
    produce_some();

    // Oversized body.
    auto big_body = http_request(port, "POST", "/v1/faults", std::string(2 << 20, '{'));
    EXPECT_EQ(big_body.status, 413) << big_body.raw.substr(0, 200);
    produce_some();

    // Unknown paths and methods.
    auto unknown = http_get(port, "/no/such/thing");
    EXPECT_EQ(unknown.status, 404);
    EXPECT_EQ(json::parse(unknown.body).at("error").at("message"), "no such endpoint");
    EXPECT_EQ(http_request(port, "DELETE", "/metrics").status, 405);
    produce_some();

    // Malformed HTTP.
    EXPECT_EQ(http_raw(port, "\x16\x03\x01 this is not HTTP\r\n\r\n").status, 400);
    EXPECT_EQ(http_raw(port, "GET /metrics HTTP/1.1\r\nContent-Length: -5\r\n\r\n").status, 400);
    produce_some();

    // Malformed JSON body to an endpoint that takes JSON.
    auto malformed = http_request(port, "POST", "/v1/faults", "{\"api\": \"Produce\", ");
    EXPECT_EQ(malformed.status, 400) << malformed.raw;
    EXPECT_NE(malformed.body.find("malformed JSON"), std::string::npos) << malformed.body;
    EXPECT_EQ(http_request(port, "POST", "/v1/faults", "{\"api\": \"Produce\", \"action\": \"explode\"}").status, 400);
    produce_some();

    // Beyond 64 connections the listener closes new ones at once; Kafka does not notice.
    for (int i = 0; i < 40; ++i) idle.push_back(std::make_unique<RawConnection>(port));
    EXPECT_EQ(http_get(port, "/healthz").status, 0);
    produce_some();
    idle.clear();
    EXPECT_TRUE(wait_until([&] { return http_get(port, "/healthz").status == 200; }, 5s));

    // The slow client is disconnected once its 10 s to send a request are over.
    EXPECT_TRUE(slow.wait_closed(15s));

    // Everything produced meanwhile is there, and the admin listener still answers.
    auto consumed = consume_all(broker.bootstrap(), {{topic, 0, RdKafka::Topic::OFFSET_BEGINNING}}, sent, 20s);
    EXPECT_EQ(consumed.size(), sent);
    EXPECT_EQ(http_get(port, "/healthz").status, 200);
    auto text = scrape(broker);
    EXPECT_EQ(metric(text, "weir_messages_in_total{topic=\"" + topic + "\"}"), static_cast<double>(sent));
}

TEST(AdminHttp, InjectedFaultsReachLibrdkafkaAsKafkaErrorsWould) {
    BrokerProcess broker({.overrides = {{"weir.admin.faults.enable", "true"}}});
    broker.start();
    const auto port = broker.admin_port();
    const std::string topic = "admin-faults";
    Admin admin(broker.bootstrap());
    ASSERT_EQ(admin.create_topic(topic, 2).err, RD_KAFKA_RESP_ERR_NO_ERROR);

    // A retriable error on one partition, three times: librdkafka retries
    // and every record arrives once; the other partition never notices.
    auto added =
        http_request(port, "POST", "/v1/faults",
                     R"({"api": "Produce", "topic": ")" + topic +
                         R"(", "partition": 0, "action": "error", "error": "NOT_LEADER_OR_FOLLOWER", "count": 3})");
    ASSERT_EQ(added.status, 201) << added.raw;
    const auto id = json::parse(added.body).at("id").to_number<std::uint64_t>();
    std::vector<OutMessage> messages;
    for (int i = 0; i < 20; ++i) messages.push_back({topic, i % 2, std::nullopt, "r" + std::to_string(i), {}, 0});
    auto deliveries = produce_all(broker.bootstrap(), messages, {{"retry.backoff.ms", "50"}});
    for (const auto& d : deliveries) EXPECT_EQ(d.err, RdKafka::ERR_NO_ERROR) << err_name(d.err);
    auto listed = json::parse(http_get(port, "/v1/faults").body).as_array();
    ASSERT_EQ(listed.size(), 1u);
    EXPECT_EQ(listed[0].at("fired"), 3);
    EXPECT_EQ(listed[0].at("active"), false);
    auto consumed = consume_all(
        broker.bootstrap(),
        {{topic, 0, RdKafka::Topic::OFFSET_BEGINNING}, {topic, 1, RdKafka::Topic::OFFSET_BEGINNING}}, 20, 20s);
    EXPECT_EQ(consumed.size(), 20u);  // none lost, none stored twice
    auto text = scrape(broker);
    EXPECT_GE(metric_or_zero(text, "weir_request_errors_total{api=\"Produce\",error=\"NOT_LEADER_OR_FOLLOWER\"}"), 3);
    EXPECT_EQ(http_request(port, "DELETE", "/v1/faults/" + std::to_string(id)).status, 204);

    // A fatal error is surfaced to the application, not retried.
    ASSERT_EQ(
        http_request(port, "POST", "/v1/faults",
                     R"({"api": "Produce", "action": "error", "error": "TOPIC_AUTHORIZATION_FAILED", "count": 1})")
            .status,
        201);
    auto failed = produce_all(broker.bootstrap(), {{topic, 1, std::nullopt, "denied", {}, 0}});
    ASSERT_EQ(failed.size(), 1u);
    EXPECT_EQ(failed[0].err, RdKafka::ERR_TOPIC_AUTHORIZATION_FAILED) << err_name(failed[0].err);

    // A delayed Metadata answer still arrives; Kafka clients keep working.
    ASSERT_EQ(http_request(port, "POST", "/v1/faults",
                           R"({"api": "Metadata", "action": "delay", "delay_ms": 300, "count": 1})")
                  .status,
              201);
    auto later = produce_all(broker.bootstrap(), {{topic, 1, std::nullopt, "later", {}, 0}});
    EXPECT_EQ(later[0].err, RdKafka::ERR_NO_ERROR);
    EXPECT_EQ(http_request(port, "DELETE", "/v1/faults").status, 204);
    EXPECT_TRUE(json::parse(http_get(port, "/v1/faults").body).as_array().empty());
}

TEST(AdminHttp, FaultsAimedAtOneClientIdOrEveryApi) {
    BrokerProcess broker({.overrides = {{"weir.admin.faults.enable", "true"}}});
    broker.start();
    const auto port = broker.admin_port();
    const std::string topic = "admin-client-faults";
    Admin admin(broker.bootstrap());
    ASSERT_EQ(admin.create_topic(topic, 1).err, RD_KAFKA_RESP_ERR_NO_ERROR);

    ASSERT_EQ(http_request(port, "POST", "/v1/faults",
                           R"({"api": "Produce", "client_id": "blocked-producer", "action": "error",
                               "error": "TOPIC_AUTHORIZATION_FAILED"})")
                  .status,
              201);
    auto blocked =
        produce_all(broker.bootstrap(), {{topic, 0, std::nullopt, "no", {}, 0}}, {{"client.id", "blocked-producer"}});
    ASSERT_EQ(blocked.size(), 1u);
    EXPECT_EQ(blocked[0].err, RdKafka::ERR_TOPIC_AUTHORIZATION_FAILED) << err_name(blocked[0].err);
    auto other =
        produce_all(broker.bootstrap(), {{topic, 0, std::nullopt, "yes", {}, 0}}, {{"client.id", "another-producer"}});
    EXPECT_EQ(other[0].err, RdKafka::ERR_NO_ERROR) << err_name(other[0].err);
    EXPECT_EQ(http_request(port, "DELETE", "/v1/faults").status, 204);

    // librdkafka's mock rtt: a delay for every request of every API.
    auto added = http_request(port, "POST", "/v1/faults", R"({"action": "delay", "delay_ms": 50})");
    ASSERT_EQ(added.status, 201) << added.raw;
    EXPECT_EQ(json::parse(added.body).at("api"), nullptr);
    auto slow = produce_all(broker.bootstrap(), {{topic, 0, std::nullopt, "slow", {}, 0}});
    EXPECT_EQ(slow[0].err, RdKafka::ERR_NO_ERROR);
    // ApiVersions, Metadata and Produce at least.
    EXPECT_GE(json::parse(http_get(port, "/v1/faults").body).as_array()[0].at("fired").to_number<int>(), 3);
}

TEST(AdminHttp, BrokerDownDisconnectsAndRefusesClientsUntilItIsOver) {
    BrokerProcess broker({.overrides = {{"weir.admin.faults.enable", "true"}}});
    broker.start();
    const auto port = broker.admin_port();
    const std::string topic = "admin-broker-down";
    Admin admin(broker.bootstrap());
    ASSERT_EQ(admin.create_topic(topic, 1).err, RD_KAFKA_RESP_ERR_NO_ERROR);
    produce_to(broker, topic, 0, 5, "before-");
    Consumer consumer(broker.bootstrap(), {{"reconnect.backoff.max.ms", "500"}});
    consumer.assign({{topic, 0, RdKafka::Topic::OFFSET_BEGINNING}});
    ASSERT_EQ(consumer.consume(5, 20s).size(), 5u);

    auto added = http_request(port, "POST", "/v1/faults", R"({"action": "broker_down", "duration_ms": 3000})");
    ASSERT_EQ(added.status, 201) << added.raw;
    EXPECT_EQ(json::parse(added.body).at("duration_ms"), 3000);
    EXPECT_FALSE(port_accepts(broker.port()));          // refused, as by a broker that is gone
    EXPECT_EQ(http_get(port, "/healthz").status, 200);  // the admin listener stays up to undo it
    EXPECT_TRUE(consumer.consume(1, 1000ms).empty());

    // A producer started during the outage delivers once the broker is back;
    // the consumer connected before it reconnects and reads on.
    auto during = produce_all(broker.bootstrap(), {{topic, 0, std::nullopt, "during", {}, 0}},
                              {{"reconnect.backoff.max.ms", "500"}});
    ASSERT_EQ(during.size(), 1u);
    EXPECT_EQ(during[0].err, RdKafka::ERR_NO_ERROR) << err_name(during[0].err);
    EXPECT_TRUE(port_accepts(broker.port()));
    auto after = consumer.consume(1, 20s);
    ASSERT_EQ(after.size(), 1u);
    EXPECT_EQ(after[0].offset, 5);
    auto listed = json::parse(http_get(port, "/v1/faults").body).as_array();
    ASSERT_EQ(listed.size(), 1u);
    EXPECT_EQ(listed[0].at("action"), "broker_down");
    EXPECT_EQ(listed[0].at("active"), false);

    // Without a duration it lasts until deleted.
    auto forever = http_request(port, "POST", "/v1/faults", R"({"action": "broker_down"})");
    ASSERT_EQ(forever.status, 201);
    EXPECT_FALSE(port_accepts(broker.port()));
    const auto id = json::parse(forever.body).at("id").to_number<std::uint64_t>();
    EXPECT_EQ(http_request(port, "DELETE", "/v1/faults/" + std::to_string(id)).status, 204);
    EXPECT_TRUE(port_accepts(broker.port()));
    produce_to(broker, topic, 0, 1, "back-");
}

// Each action as kafkajs meets it (kafkajs/faults.js): retriable errors, a
// closed connection, an unanswered request and a broker outage are retried
// and the message is stored once; a fatal error reaches the application.
TEST(AdminHttp, KafkajsMeetsEachFaultAsItWouldMeetKafka) {
    ASSERT_STRNE(WEIR_NODE, "") << "node not found";
    const auto dir = std::filesystem::path(WEIR_COMPAT_SOURCE_DIR) / "kafkajs";
    ASSERT_TRUE(std::filesystem::exists(dir / "node_modules" / "kafkajs")) << "run scripts/install-deps.sh";
    BrokerProcess broker({.overrides = {{"weir.admin.faults.enable", "true"}}});
    broker.start();
    const auto r = run_process({WEIR_NODE, (dir / "faults.js").string(), broker.bootstrap(),
                                std::to_string(broker.admin_port()), "kjs-faults"},
                               120s);
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    const auto result = json::parse(r.out).as_object();
    const auto& outcomes = result.at("outcomes").as_object();
    for (const char* retried : {"retriable", "delay", "disconnect", "drop", "broker_down"})
        EXPECT_EQ(outcomes.at(retried).at("ok"), true) << retried << ": " << json::serialize(outcomes.at(retried));
    const auto& fatal = outcomes.at("fatal").as_object();
    EXPECT_EQ(fatal.at("ok"), false);
    EXPECT_EQ(fatal.at("type"), "TOPIC_AUTHORIZATION_FAILED") << json::serialize(fatal);
    // warm-up + the five retried sends, each stored once; nothing from the fatal one.
    EXPECT_EQ(result.at("high"), 6) << r.out;
}

TEST(AdminHttp, FaultInjectionIsOffByDefaultAndTheListenerCanBeTurnedOff) {
    BrokerProcess broker;
    broker.start();
    EXPECT_EQ(http_request(broker.admin_port(), "POST", "/v1/faults", R"({"api": "Produce", "action": "drop"})").status,
              404);
    BrokerProcess silent({.overrides = {{"weir.admin.listener", ""}}});
    silent.start();
    EXPECT_FALSE(port_accepts(silent.admin_port()));
}

}  // namespace
}  // namespace weir::compat
