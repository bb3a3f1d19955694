// Cluster mode: three weir processes coordinated through a real ZooKeeper,
// driven by librdkafka. Replication factor 3, min.insync.replicas 2; an
// idempotent producer through its leader's death.
#include <gtest/gtest.h>
#include <signal.h>

#include <boost/json/parse.hpp>
#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include "broker/metadata/zookeeper/test/zookeeper_server.h"
#include "broker/metadata/zookeeper/zk_client.h"
#include "broker/metadata/zookeeper/zk_data.h"
#include "coordinator/group/partitioner.h"
#include "harness/admin.h"
#include "harness/broker_process.h"
#include "harness/http_client.h"
#include "harness/kafka_client.h"
#include "harness/raw_connection.h"
#include "harness/wait.h"

namespace weir::compat {
namespace {

using namespace std::chrono_literals;

struct PartitionView {
    std::int32_t leader = -1;
    std::vector<std::int32_t> replicas;
    std::vector<std::int32_t> isr;
};

// Partition -> leader, replicas, ISR as one broker's Metadata answers.
std::map<std::int32_t, PartitionView> describe(const std::string& bootstrap, const std::string& topic) {
    Producer p(bootstrap);
    RdKafka::Metadata* raw = nullptr;
    std::string err;
    std::unique_ptr<RdKafka::Topic> t(RdKafka::Topic::create(&p.handle(), topic, nullptr, err));
    std::map<std::int32_t, PartitionView> out;
    if (p.handle().metadata(false, t.get(), &raw, 5000) != RdKafka::ERR_NO_ERROR) return out;
    std::unique_ptr<RdKafka::Metadata> md(raw);
    for (const auto* tm : *md->topics()) {
        if (tm->topic() != topic || tm->err() != RdKafka::ERR_NO_ERROR) continue;
        for (const auto* pm : *tm->partitions()) {
            PartitionView v;
            v.leader = pm->leader();
            v.replicas.assign(pm->replicas()->begin(), pm->replicas()->end());
            v.isr.assign(pm->isrs()->begin(), pm->isrs()->end());
            out[pm->id()] = v;
        }
    }
    return out;
}

// Metadata v4 for one topic, auto-creation not allowed.
bool send_metadata_request(RawConnection& c, const std::string& topic, std::int32_t correlation_id) {
    std::vector<std::uint8_t> body = be32(1);
    append_string(body, topic);
    body.push_back(0);  // allow_auto_topic_creation
    return c.send(request_frame(3, 4, correlation_id, body));
}

// CreatePartitions v0: one topic grown to `count`, placement left to the broker.
bool send_create_partitions_request(RawConnection& c, const std::string& topic, std::int32_t count,
                                    std::int32_t correlation_id) {
    std::vector<std::uint8_t> body = be32(1);
    append_string(body, topic);
    append_be32(body, count);
    append_be32(body, -1);     // assignments: null
    append_be32(body, 30000);  // timeout_ms
    body.push_back(0);         // validate_only
    return c.send(request_frame(37, 0, correlation_id, body));
}

// The error code of the answer's one topic; nullopt when no answer came.
std::optional<std::int16_t> read_create_partitions_answer(RawConnection& c) {
    std::vector<std::uint8_t> f;
    if (c.read_frame(f, 40s) != RawConnection::ReadStatus::frame) return std::nullopt;
    std::size_t at = 8;  // correlation id, throttle time
    if (read_be32(f, at) != 1) return std::nullopt;
    at += 4;
    at += 2 + static_cast<std::size_t>(std::max<std::int16_t>(read_be16(f, at), 0));  // name
    return read_be16(f, at);
}

// IncrementalAlterConfigs v0: one SET on one topic.
bool send_incremental_alter_request(RawConnection& c, const std::string& topic, const std::string& key,
                                    const std::string& value, std::int32_t correlation_id) {
    std::vector<std::uint8_t> body = be32(1);
    body.push_back(2);  // TOPIC
    append_string(body, topic);
    append_be32(body, 1);
    append_string(body, key);
    body.push_back(0);  // SET
    append_string(body, value);
    body.push_back(0);  // validate_only
    return c.send(request_frame(44, 0, correlation_id, body));
}

// The error code of the answer's one resource; nullopt when no answer came.
std::optional<std::int16_t> read_incremental_alter_answer(RawConnection& c) {
    std::vector<std::uint8_t> f;
    if (c.read_frame(f, 40s) != RawConnection::ReadStatus::frame) return std::nullopt;
    std::size_t at = 8;  // correlation id, throttle time
    if (read_be32(f, at) != 1) return std::nullopt;
    return read_be16(f, at + 4);
}

// The answer's one topic: its error code and partition count; nullopt when
// no answer came.
struct TopicAnswer {
    std::int16_t error = -1;
    std::int32_t partitions = 0;
    std::int32_t controller = -1;
};
std::optional<TopicAnswer> read_metadata_answer(RawConnection& c) {
    std::vector<std::uint8_t> f;
    if (c.read_frame(f, 10s) != RawConnection::ReadStatus::frame) return std::nullopt;
    std::size_t at = 8;  // correlation id, throttle time
    auto skip_string = [&] {
        const auto n = read_be16(f, at);
        at += 2 + static_cast<std::size_t>(n < 0 ? 0 : n);
    };
    const auto brokers = read_be32(f, at);
    at += 4;
    for (std::int32_t i = 0; i < brokers; ++i) {
        at += 4;  // node id
        skip_string();
        at += 4;        // port
        skip_string();  // rack
    }
    skip_string();  // cluster id
    TopicAnswer answer;
    answer.controller = read_be32(f, at);
    at += 4;
    if (read_be32(f, at) != 1) return std::nullopt;
    at += 4;
    answer.error = read_be16(f, at);
    at += 2;
    skip_string();
    at += 1;  // is_internal
    answer.partitions = read_be32(f, at);
    return answer;
}

// ListOffsets v1: the earliest offset of partitions 0..count-1 of one topic.
bool send_list_offsets_request(RawConnection& c, const std::string& topic, std::int32_t count,
                               std::int32_t correlation_id) {
    std::vector<std::uint8_t> body = be32(-1);  // replica_id: a consumer
    append_be32(body, 1);
    append_string(body, topic);
    append_be32(body, count);
    for (std::int32_t p = 0; p < count; ++p) {
        append_be32(body, p);
        append_be32(body, -1);  // timestamp -2 (earliest), high word
        append_be32(body, -2);  // low word
    }
    return c.send(request_frame(2, 1, correlation_id, body));
}

// Partition -> error code of the answer's one topic; empty when no answer came.
std::map<std::int32_t, std::int16_t> read_list_offsets_answer(RawConnection& c) {
    std::map<std::int32_t, std::int16_t> out;
    std::vector<std::uint8_t> f;
    if (c.read_frame(f, 10s) != RawConnection::ReadStatus::frame) return out;
    std::size_t at = 4;  // correlation id (v1 has no throttle time)
    if (read_be32(f, at) != 1) return out;
    at += 4;
    at += 2 + static_cast<std::size_t>(std::max<std::int16_t>(read_be16(f, at), 0));  // name
    const auto partitions = read_be32(f, at);
    at += 4;
    for (std::int32_t i = 0; i < partitions; ++i) {
        out[read_be32(f, at)] = read_be16(f, at + 4);
        at += 4 + 2 + 8 + 8;  // partition, error, timestamp, offset
    }
    return out;
}

std::size_t broker_count(const std::string& bootstrap) {
    Producer p(bootstrap);
    auto info = cluster_metadata(p.handle(), 5s);
    return info.brokers.size();
}

class ClusterTest : public ::testing::Test {
protected:
    static void SetUpTestSuite() { zookeeper_ = std::make_unique<testing::ZooKeeperServer>(); }
    static void TearDownTestSuite() { zookeeper_.reset(); }

    void SetUp() override {
        connect_ = zookeeper_->fresh_chroot_connect();
        const auto& connect = connect_;
        for (int id = 1; id <= 3; ++id) {
            BrokerOptions o;
            o.overrides = {{"broker.id", std::to_string(id)},         {"zookeeper.connect", connect},
                           {"zookeeper.session.timeout.ms", "4000"},  {"default.replication.factor", "3"},
                           {"offsets.topic.replication.factor", "3"}, {"min.insync.replicas", "2"},
                           {"replica.lag.time.max.ms", "4000"},       {"num.partitions", "3"},
                           {"weir.admin.faults.enable", "true"},      {"transaction.state.log.num.partitions", "3"}};
            o.ready_timeout = 30s;
            brokers_.push_back(std::make_unique<BrokerProcess>(o));
        }
        for (auto& b : brokers_) b->start();
        ASSERT_TRUE(wait_until([&] { return broker_count(brokers_[0]->bootstrap()) == 3; }, 30s));
    }

    std::string bootstrap_all() const {
        std::string out;
        for (const auto& b : brokers_) out += (out.empty() ? "" : ",") + b->bootstrap();
        return out;
    }
    BrokerProcess& broker(std::int32_t id) { return *brokers_[static_cast<std::size_t>(id - 1)]; }
    BrokerProcess& any_but(std::int32_t id) { return broker(id == 1 ? 2 : 1); }

    bool full_isr(const std::string& bootstrap, const std::string& topic, std::size_t partitions) {
        auto view = describe(bootstrap, topic);
        if (view.size() != partitions) return false;
        for (const auto& [p, v] : view)
            if (v.leader < 0 || v.isr.size() != 3) return false;
        return true;
    }

    // The broker /controller names, read from ZooKeeper as zkCli would.
    std::int32_t controller_id() {
        zk::ZkClient c({connect_, std::chrono::milliseconds(6000), std::chrono::milliseconds(20000)});
        auto node = c.run_sync([](zk::ZkSession& s) { return s.get("/controller"); });
        return node ? zk::decode_controller(node->data) : -1;
    }

    static std::unique_ptr<testing::ZooKeeperServer> zookeeper_;
    std::string connect_;
    std::vector<std::unique_ptr<BrokerProcess>> brokers_;
};
std::unique_ptr<testing::ZooKeeperServer> ClusterTest::zookeeper_;

TEST_F(ClusterTest, EveryBrokerDescribesTheSameReplicatedTopic) {
    Admin admin(bootstrap_all());
    auto created = admin.create_topic("orders", 6, 3);
    ASSERT_EQ(created.err, RdKafka::ERR_NO_ERROR) << created.describe();
    std::set<std::int32_t> leaders;
    for (int id = 1; id <= 3; ++id) {
        ASSERT_TRUE(wait_until([&] { return full_isr(broker(id).bootstrap(), "orders", 6); }, 20s)) << "broker " << id;
        for (const auto& [p, v] : describe(broker(id).bootstrap(), "orders")) {
            EXPECT_EQ(v.replicas.size(), 3U);
            leaders.insert(v.leader);
        }
    }
    // Leadership is spread over the brokers.
    EXPECT_EQ(leaders.size(), 3U);
}

// Kafka's controller tells every broker of a new topic at once; a Weir
// broker learns it through its own ZooKeeper watches, possibly after the
// controller answered CreateTopics. A client that asks any broker right after
// CreateTopics returns must find the topic, not UNKNOWN_TOPIC_OR_PARTITION.
// One broker is held back (SIGSTOP, well inside its ZooKeeper session) while
// the topic is created, and resumed with the client's request already
// waiting, so it meets the request before it has read the new topic.
TEST_F(ClusterTest, EveryBrokerKnowsANewTopicOnceCreateTopicsReturns) {
    const auto controller = controller_id();
    ASSERT_GE(controller, 1);
    const std::int32_t late = controller == 3 ? 2 : 3;
    std::string others;
    for (int id = 1; id <= 3; ++id)
        if (id != late) others += (others.empty() ? "" : ",") + broker(id).bootstrap();
    Admin admin(others);
    RawConnection c(broker(late).port());
    std::int32_t correlation = 0;
    for (int round = 0; round < 3; ++round) {
        const std::string topic = "fresh-" + std::to_string(round);
        ASSERT_EQ(::kill(broker(late).pid(), SIGSTOP), 0);
        const auto created = admin.create_topic(topic, 40, 3);
        const bool sent = send_metadata_request(c, topic, ++correlation);
        ::kill(broker(late).pid(), SIGCONT);
        ASSERT_EQ(created.err, RdKafka::ERR_NO_ERROR) << created.describe();
        ASSERT_TRUE(sent);
        auto answer = read_metadata_answer(c);
        ASSERT_TRUE(answer);
        EXPECT_EQ(answer->error, 0) << topic << " on broker " << late;
        EXPECT_EQ(answer->partitions, 40) << topic << " on broker " << late;
    }
    // Growing a topic through the late broker, as the client's next request
    // may, finds it too (Kafka's controller reads ZooKeeper).
    ASSERT_EQ(::kill(broker(late).pid(), SIGSTOP), 0);
    const auto grown = admin.create_topic("grown", 2, 3);
    const bool sent = send_create_partitions_request(c, "grown", 4, ++correlation);
    ::kill(broker(late).pid(), SIGCONT);
    ASSERT_EQ(grown.err, RdKafka::ERR_NO_ERROR) << grown.describe();
    ASSERT_TRUE(sent);
    EXPECT_EQ(read_create_partitions_answer(c), std::optional<std::int16_t>(0));
    EXPECT_TRUE(wait_until([&] { return describe(broker(late).bootstrap(), "grown").size() == 4; }, 20s));
    // An incremental config change applies to the overrides the topic was
    // created with, not to an empty set read before the topic was learned.
    ASSERT_EQ(::kill(broker(late).pid(), SIGSTOP), 0);
    const auto configured = admin.create_topic("configured", 1, 3, {{"retention.ms", "123456"}});
    const bool altered = send_incremental_alter_request(c, "configured", "cleanup.policy", "compact", ++correlation);
    ::kill(broker(late).pid(), SIGCONT);
    ASSERT_EQ(configured.err, RdKafka::ERR_NO_ERROR) << configured.describe();
    ASSERT_TRUE(altered);
    EXPECT_EQ(read_incremental_alter_answer(c), std::optional<std::int16_t>(0));
    zk::ZkClient zk({connect_, 6000ms, 20000ms});
    auto stored = zk.run_sync([](zk::ZkSession& s) { return s.get("/config/topics/configured"); });
    ASSERT_TRUE(stored);
    EXPECT_NE(stored->data.find(R"("retention.ms":"123456")"), std::string::npos) << stored->data;
    EXPECT_NE(stored->data.find(R"("cleanup.policy":"compact")"), std::string::npos) << stored->data;
    // The client's next request may go to the late broker as a leader of the
    // topic: librdkafka takes UNKNOWN_TOPIC_OR_PARTITION from ListOffsets as
    // final (a consumer starting at the earliest offset fails). The partitions
    // it leads answer, the others send the client to their leaders.
    ASSERT_EQ(::kill(broker(late).pid(), SIGSTOP), 0);
    const auto listed = admin.create_topic("listed", 6, 3);
    const bool asked = send_list_offsets_request(c, "listed", 6, ++correlation);
    ::kill(broker(late).pid(), SIGCONT);
    ASSERT_EQ(listed.err, RdKafka::ERR_NO_ERROR) << listed.describe();
    ASSERT_TRUE(asked);
    const auto errors = read_list_offsets_answer(c);
    ASSERT_EQ(errors.size(), 6U);
    int led = 0;
    for (const auto& [p, error] : errors) {
        EXPECT_TRUE(error == 0 || error == 6) << "listed-" << p << ": error " << error;  // NOT_LEADER_OR_FOLLOWER
        led += error == 0 ? 1 : 0;
    }
    EXPECT_GE(led, 1);
    // A topic nobody created is still unknown.
    ASSERT_TRUE(send_metadata_request(c, "never-created", ++correlation));
    auto missing = read_metadata_answer(c);
    ASSERT_TRUE(missing);
    EXPECT_EQ(missing->error, 3);  // UNKNOWN_TOPIC_OR_PARTITION
}

TEST_F(ClusterTest, ReplicatesAndConsumersSeeCommittedMessages) {
    Admin admin(bootstrap_all());
    ASSERT_EQ(admin.create_topic("r", 1, 3).err, RdKafka::ERR_NO_ERROR);
    ASSERT_TRUE(wait_until([&] { return full_isr(broker(1).bootstrap(), "r", 1); }, 20s));
    std::vector<OutMessage> messages;
    for (int i = 0; i < 200; ++i) messages.push_back({"r", 0, std::nullopt, "m" + std::to_string(i)});
    auto deliveries = produce_all(bootstrap_all(), messages, {{"acks", "all"}});
    for (const auto& d : deliveries) ASSERT_EQ(d.err, RdKafka::ERR_NO_ERROR) << err_name(d.err);
    auto consumed = consume_all(bootstrap_all(), {{"r", 0}}, 200, 20s);
    ASSERT_EQ(consumed.size(), 200U);
    for (int i = 0; i < 200; ++i) EXPECT_EQ(consumed[static_cast<std::size_t>(i)].value, "m" + std::to_string(i));
    // Acknowledged with acks=all means every in-sync follower has it: kill
    // the leader and read it all from the one that takes over.
    const auto leader = describe(broker(1).bootstrap(), "r").at(0).leader;
    ASSERT_GE(leader, 1);
    broker(leader).kill();
    auto after = consume_all(any_but(leader).bootstrap(), {{"r", 0}}, 200, 30s);
    EXPECT_EQ(after.size(), 200U);
}

TEST_F(ClusterTest, LeaderChangeFaultMovesLeadershipWhileAProducerKeepsWriting) {
    Admin admin(bootstrap_all());
    ASSERT_EQ(admin.create_topic("lc", 1, 3).err, RdKafka::ERR_NO_ERROR);
    ASSERT_TRUE(wait_until([&] { return full_isr(broker(1).bootstrap(), "lc", 1); }, 20s));
    const auto first = describe(broker(1).bootstrap(), "lc").at(0).leader;
    ASSERT_GE(first, 1);

    Producer producer(bootstrap_all(), {{"acks", "all"}, {"retry.backoff.ms", "50"}});
    for (int i = 0; i < 100; ++i) producer.send({"lc", 0, std::nullopt, std::to_string(i)});
    ASSERT_TRUE(producer.flush(30s));

    // librdkafka's mock rd_kafka_mock_partition_set_leader, over HTTP to any broker.
    auto moved = http_request(any_but(first).admin_port(), "POST", "/v1/faults",
                              R"({"action": "leader_change", "topic": "lc", "partition": 0})");
    ASSERT_EQ(moved.status, 201) << moved.raw;
    const auto second = boost::json::parse(moved.body).at("leader").to_number<std::int32_t>();
    EXPECT_NE(second, first);
    for (int id = 1; id <= 3; ++id)
        EXPECT_TRUE(wait_until([&] { return describe(broker(id).bootstrap(), "lc").at(0).leader == second; }, 10s))
            << "broker " << id << " does not see the new leader";

    // The producer that knew the old leader is told NOT_LEADER_OR_FOLLOWER,
    // follows, and stores everything once and in order.
    for (int i = 100; i < 200; ++i) producer.send({"lc", 0, std::nullopt, std::to_string(i)});
    ASSERT_TRUE(producer.flush(30s));
    for (const auto& d : producer.deliveries()) EXPECT_EQ(d.err, RdKafka::ERR_NO_ERROR) << err_name(d.err);
    auto consumed = consume_all(bootstrap_all(), {{"lc", 0}}, 200, 30s);
    ASSERT_EQ(consumed.size(), 200U);
    for (int i = 0; i < 200; ++i) EXPECT_EQ(consumed[static_cast<std::size_t>(i)].value, std::to_string(i));

    // Back to a named broker; a broker that is no in-sync replica is refused.
    auto back = http_request(
        broker(second).admin_port(), "POST", "/v1/faults",
        R"({"action": "leader_change", "topic": "lc", "partition": 0, "leader": )" + std::to_string(first) + "}");
    ASSERT_EQ(back.status, 201) << back.raw;
    EXPECT_TRUE(wait_until([&] { return describe(broker(1).bootstrap(), "lc").at(0).leader == first; }, 10s));
    auto refused = http_request(broker(1).admin_port(), "POST", "/v1/faults",
                                R"({"action": "leader_change", "topic": "lc", "partition": 0, "leader": 7})");
    EXPECT_EQ(refused.status, 409) << refused.raw;
    EXPECT_EQ(http_request(broker(1).admin_port(), "POST", "/v1/faults",
                           R"({"action": "leader_change", "topic": "nope", "partition": 0})")
                  .status,
              404);
}

// Transactions across brokers: the coordinator sends WriteTxnMarkers to each
// partition's leader on other brokers, and a transaction still commits after
// a data partition's leader dies.
TEST_F(ClusterTest, TransactionsCommitAcrossBrokersAndSurviveALeadersDeath) {
    Admin admin(bootstrap_all());
    ASSERT_EQ(admin.create_topic("tx", 3, 3).err, RdKafka::ERR_NO_ERROR);
    ASSERT_TRUE(wait_until([&] { return full_isr(broker(1).bootstrap(), "tx", 3); }, 20s));
    Producer p(bootstrap_all(), {{"transactional.id", "cluster-txn"}});
    auto ok = [](RdKafka::Error* e, const char* what) {
        EXPECT_EQ(e, nullptr) << what << ": " << (e ? e->str() : "");
        delete e;
    };
    ok(p.handle().init_transactions(30000), "init_transactions");
    auto transaction = [&](int t, bool commit) {
        ok(p.handle().begin_transaction(), "begin_transaction");
        for (int i = 0; i < 9; ++i)
            p.send({"tx", i % 3, std::nullopt, "t" + std::to_string(t) + "-" + std::to_string(i)});
        EXPECT_TRUE(p.flush(30s));
        ok(commit ? p.handle().commit_transaction(30000) : p.handle().abort_transaction(30000), "end_transaction");
    };
    transaction(0, true);
    transaction(1, false);
    const auto leader = describe(broker(1).bootstrap(), "tx").at(0).leader;
    ASSERT_GE(leader, 1);
    broker(leader).kill();
    transaction(2, true);
    auto consumed = consume_all(any_but(leader).bootstrap(), {{"tx", 0}, {"tx", 1}, {"tx", 2}}, 18, 30s,
                                {{"isolation.level", "read_committed"}});
    std::multiset<std::string> values;
    for (const auto& m : consumed) values.insert(m.value.value_or(""));
    std::multiset<std::string> expected;
    for (int t : {0, 2})
        for (int i = 0; i < 9; ++i) expected.insert("t" + std::to_string(t) + "-" + std::to_string(i));
    EXPECT_EQ(values, expected);
}

TEST_F(ClusterTest, AcknowledgedMessagesSurviveTheLeadersKill) {
    Admin admin(bootstrap_all());
    ASSERT_EQ(admin.create_topic("k", 1, 3).err, RdKafka::ERR_NO_ERROR);
    ASSERT_TRUE(wait_until([&] { return full_isr(broker(1).bootstrap(), "k", 1); }, 20s));
    const auto leader = describe(broker(1).bootstrap(), "k").at(0).leader;
    ASSERT_GE(leader, 1);

    Producer producer(
        bootstrap_all(),
        {{"acks", "all"}, {"linger.ms", "5"}, {"message.timeout.ms", "60000"}, {"retry.backoff.ms", "50"}});
    const int total = 3000;
    std::chrono::steady_clock::time_point killed_at;
    std::chrono::steady_clock::duration failover{};
    for (int i = 0; i < total; ++i) {
        producer.send({"k", 0, std::nullopt, std::to_string(i)});
        producer.poll(0ms);
        if (i == total / 3) {
            ASSERT_TRUE(producer.flush(30s));
            broker(leader).kill();
            killed_at = std::chrono::steady_clock::now();
            // The time until a produce succeeds again: bounded by the ZooKeeper
            // session timeout (the dead leader's registration must expire),
            // then the controller's election and the client's metadata refresh.
            auto probe = producer.send({"k", 0, std::nullopt, std::to_string(++i)});
            ASSERT_TRUE(producer.flush(60s));
            ASSERT_EQ(producer.deliveries()[probe].err, RdKafka::ERR_NO_ERROR);
            failover = std::chrono::steady_clock::now() - killed_at;
        }
        if (i % 100 == 0) std::this_thread::sleep_for(5ms);
    }
    ASSERT_TRUE(producer.flush(90s));
    std::set<std::string> acknowledged;
    std::size_t failed = 0;
    auto deliveries = producer.deliveries();
    for (std::size_t i = 0; i < deliveries.size(); ++i) {
        if (deliveries[i].err == RdKafka::ERR_NO_ERROR)
            acknowledged.insert(std::to_string(i));
        else
            ++failed;
    }
    EXPECT_EQ(failed, 0U);
    auto new_leader = describe(any_but(leader).bootstrap(), "k").at(0).leader;
    EXPECT_NE(new_leader, leader);
    std::cout << "[ info ] leader " << leader << " killed; broker " << new_leader << " leads; " << acknowledged.size()
              << " of " << total << " acknowledged; SIGKILL to the first acknowledged produce: "
              << std::chrono::duration_cast<std::chrono::milliseconds>(failover).count()
              << " ms (zookeeper.session.timeout.ms=4000)\n";

    auto consumed = consume_all(any_but(leader).bootstrap(), {{"k", 0}}, acknowledged.size() + 100, 30s);
    std::map<std::string, int> seen;
    for (const auto& m : consumed) ++seen[m.value.value_or("")];
    std::size_t lost = 0;
    for (const auto& v : acknowledged)
        if (!seen.contains(v)) ++lost;
    EXPECT_EQ(lost, 0U) << "acknowledged messages missing after the leader's kill";
    std::size_t twice = 0;
    for (const auto& [v, n] : seen)
        if (n > 1) ++twice;
    // Without an idempotent producer a retried batch whose acknowledgement was
    // lost with the leader is stored again, as in Kafka.
    std::cout << "[ info ] " << twice << " messages stored twice (retries without idempotence)\n";

    // The old leader returns, truncates what it alone had, and rejoins the ISR.
    broker(leader).start();
    EXPECT_TRUE(wait_until([&] { return full_isr(broker(new_leader).bootstrap(), "k", 1); }, 30s));
}

TEST_F(ClusterTest, AnIdempotentProducerStoresEachMessageOnceAcrossItsLeadersDeath) {
    Admin admin(bootstrap_all());
    ASSERT_EQ(admin.create_topic("i", 1, 3).err, RdKafka::ERR_NO_ERROR);
    ASSERT_TRUE(wait_until([&] { return full_isr(broker(1).bootstrap(), "i", 1); }, 20s));
    const auto leader = describe(broker(1).bootstrap(), "i").at(0).leader;
    ASSERT_GE(leader, 1);

    Producer producer(bootstrap_all(), {{"enable.idempotence", "true"},
                                        {"linger.ms", "5"},
                                        {"message.timeout.ms", "90000"},
                                        {"retry.backoff.ms", "50"},
                                        {"socket.timeout.ms", "1000"}});
    constexpr int kTotal = 6000;
    int next = 0;
    auto send_up_to = [&](int n) {
        for (; next < n; ++next) {
            producer.send({"i", 0, std::nullopt, std::to_string(next)});
            producer.poll(0ms);
        }
    };
    send_up_to(2000);
    ASSERT_TRUE(wait_until(
        [&] {
            producer.poll(10ms);
            return producer.ok_count() >= 1000;
        },
        30s));
    // Frozen past socket.timeout.ms (not past the ZooKeeper session), the
    // leader gets the requests the client gave up on twice (a producer
    // without idempotence stores those twice), then dies; the rest goes to
    // the new leader, which knows the producer from what it replicated.
    // (Whether a retry of a batch only the followers hold reaches the new
    // leader is a matter of timing here; partitions/test covers it exactly.)
    ASSERT_EQ(::kill(broker(leader).pid(), SIGSTOP), 0);
    send_up_to(3000);
    std::this_thread::sleep_for(2s);
    ASSERT_EQ(::kill(broker(leader).pid(), SIGCONT), 0);
    std::this_thread::sleep_for(300ms);
    broker(leader).kill();
    send_up_to(kTotal);
    ASSERT_TRUE(producer.flush(90s));
    const auto deliveries = producer.deliveries();
    for (std::size_t j = 0; j < deliveries.size(); ++j)
        ASSERT_EQ(deliveries[j].err, RdKafka::ERR_NO_ERROR) << "message " << j << ": " << err_name(deliveries[j].err);

    auto consumed = consume_all(any_but(leader).bootstrap(), {{"i", 0}}, kTotal + 100, 30s);
    ASSERT_EQ(consumed.size(), static_cast<std::size_t>(kTotal)) << "messages lost or stored twice";
    for (std::size_t j = 0; j < consumed.size(); ++j)
        ASSERT_EQ(consumed[j].value.value_or(""), std::to_string(j)) << "at offset " << consumed[j].offset;
}

TEST_F(ClusterTest, AcksAllNeedsMinInsyncReplicas) {
    Admin admin(bootstrap_all());
    ASSERT_EQ(admin.create_topic("m", 1, 3).err, RdKafka::ERR_NO_ERROR);
    ASSERT_TRUE(wait_until([&] { return full_isr(broker(1).bootstrap(), "m", 1); }, 20s));
    const auto leader = describe(broker(1).bootstrap(), "m").at(0).leader;
    std::vector<std::int32_t> others;
    for (int id = 1; id <= 3; ++id)
        if (id != leader) others.push_back(id);
    broker(others[0]).kill();
    broker(others[1]).kill();
    // The leader's ISR shrinks to itself after replica.lag.time.max.ms (or
    // the controller removes the dead brokers at once).
    ASSERT_TRUE(wait_until(
        [&] {
            auto v = describe(broker(leader).bootstrap(), "m");
            return v.contains(0) && v.at(0).isr.size() == 1;
        },
        30s));
    auto refused = produce_all(broker(leader).bootstrap(), {{"m", 0, std::nullopt, "x"}},
                               {{"acks", "all"}, {"retries", "0"}}, 20s);
    ASSERT_EQ(refused.size(), 1U);
    EXPECT_EQ(refused[0].err, RdKafka::ERR_NOT_ENOUGH_REPLICAS) << err_name(refused[0].err);
    auto one = produce_all(broker(leader).bootstrap(), {{"m", 0, std::nullopt, "y"}}, {{"acks", "1"}}, 20s);
    EXPECT_EQ(one[0].err, RdKafka::ERR_NO_ERROR) << err_name(one[0].err);

    broker(others[0]).start();
    ASSERT_TRUE(wait_until(
        [&] {
            auto v = describe(broker(leader).bootstrap(), "m");
            return v.contains(0) && v.at(0).isr.size() == 2;
        },
        30s));
    auto accepted = produce_all(broker(leader).bootstrap(), {{"m", 0, std::nullopt, "z"}}, {{"acks", "all"}}, 20s);
    EXPECT_EQ(accepted[0].err, RdKafka::ERR_NO_ERROR) << err_name(accepted[0].err);
}

TEST_F(ClusterTest, KillingTheControllerElectsAnother) {
    std::int32_t first = -1;
    ASSERT_TRUE(wait_until([&] { return (first = controller_id()) > 0; }, 20s));
    broker(first).kill();
    std::int32_t second = -1;
    // The dead controller's session must expire first (4 s here).
    ASSERT_TRUE(wait_until(
        [&] {
            second = controller_id();
            return second > 0 && second != first;
        },
        30s));
    // The broker the admin client asks learns it through its own watch,
    // a moment after ZooKeeper shows it; until then it names the dead one,
    // and librdkafka's admin client waits for that one without asking again.
    ASSERT_TRUE(wait_until(
        [&] {
            RawConnection c(any_but(first).port());
            if (!send_metadata_request(c, "after", 1)) return false;
            auto answer = read_metadata_answer(c);
            return answer && answer->controller == second;
        },
        10s));
    // The new controller elects the leaders of a new topic.
    Admin admin(any_but(first).bootstrap());
    auto created = admin.create_topic("after", 2, 2);
    ASSERT_EQ(created.err, RdKafka::ERR_NO_ERROR) << created.describe();
    EXPECT_TRUE(wait_until(
        [&] {
            auto v = describe(any_but(first).bootstrap(), "after");
            return v.size() == 2 && v.at(0).leader > 0 && v.at(1).leader > 0;
        },
        20s));
}

// One consumer of `group` reads `count` messages of t-0..2 and commits them;
// returns their values.
std::vector<std::string> consume_and_commit(const std::string& bootstrap, const std::string& group, std::size_t count) {
    auto conf = make_conf(bootstrap, {{"group.id", group},
                                      {"auto.offset.reset", "earliest"},
                                      {"enable.auto.commit", "false"},
                                      {"session.timeout.ms", "6000"},
                                      {"heartbeat.interval.ms", "500"}});
    std::string err;
    std::unique_ptr<RdKafka::KafkaConsumer> c(RdKafka::KafkaConsumer::create(conf.get(), err));
    EXPECT_TRUE(c) << err;
    if (!c) return {};
    c->subscribe({"g"});
    std::vector<std::string> values;
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    while (values.size() < count && std::chrono::steady_clock::now() < deadline) {
        std::unique_ptr<RdKafka::Message> m(c->consume(200));
        if (m->err() != RdKafka::ERR_NO_ERROR) continue;
        values.emplace_back(static_cast<const char*>(m->payload()), m->len());
        if (values.size() == count) {
            // Commit exactly what was read, partition by partition.
            EXPECT_EQ(c->commitSync(m.get()), RdKafka::ERR_NO_ERROR);
        }
    }
    // Commits of the other partitions' positions.
    std::vector<RdKafka::TopicPartition*> positions;
    c->assignment(positions);
    c->position(positions);
    c->commitSync(positions);
    RdKafka::TopicPartition::destroy(positions);
    c->close();
    return values;
}

TEST_F(ClusterTest, GroupsKeepTheirOffsetsWhenTheCoordinatorDies) {
    Admin admin(bootstrap_all());
    ASSERT_EQ(admin.create_topic("g", 1, 3).err, RdKafka::ERR_NO_ERROR);
    ASSERT_TRUE(wait_until([&] { return full_isr(broker(1).bootstrap(), "g", 1); }, 20s));
    std::vector<OutMessage> messages;
    for (int i = 0; i < 300; ++i) messages.push_back({"g", 0, std::nullopt, std::to_string(i)});
    for (const auto& d : produce_all(bootstrap_all(), messages, {{"acks", "all"}}))
        ASSERT_EQ(d.err, RdKafka::ERR_NO_ERROR);

    const std::string group = "survivors";
    auto first = consume_and_commit(bootstrap_all(), group, 100);
    ASSERT_EQ(first.size(), 100U);
    // The coordinator leads the group's __consumer_offsets partition.
    const auto partition = coordinator::store::partition_for(group, 50);
    std::int32_t coordinator = -1;
    ASSERT_TRUE(wait_until(
        [&] {
            auto v = describe(broker(1).bootstrap(), "__consumer_offsets");
            if (!v.contains(partition) || v.at(partition).isr.size() != 3) return false;
            coordinator = v.at(partition).leader;
            return coordinator > 0;
        },
        20s));
    broker(coordinator).kill();
    // A new member of the group resumes where the first one committed.
    auto rest = consume_and_commit(any_but(coordinator).bootstrap(), group, 200);
    ASSERT_EQ(rest.size(), 200U);
    EXPECT_EQ(rest.front(), "100");
    EXPECT_EQ(rest.back(), "299");
}

TEST_F(ClusterTest, APausedLeaderCannotAcknowledgeAndRejoinsWhenResumed) {
    Admin admin(bootstrap_all());
    ASSERT_EQ(admin.create_topic("p", 1, 3).err, RdKafka::ERR_NO_ERROR);
    ASSERT_TRUE(wait_until([&] { return full_isr(broker(1).bootstrap(), "p", 1); }, 20s));
    const auto leader = describe(broker(1).bootstrap(), "p").at(0).leader;
    ASSERT_GE(leader, 1);
    ::kill(broker(leader).pid(), SIGSTOP);
    // Past the session timeout the others elect a new leader; the paused one
    // can acknowledge nothing meanwhile (acks=all needs its followers).
    std::int32_t new_leader = -1;
    ASSERT_TRUE(wait_until(
        [&] {
            auto v = describe(any_but(leader).bootstrap(), "p");
            new_leader = v.contains(0) ? v.at(0).leader : -1;
            return new_leader > 0 && new_leader != leader;
        },
        30s));
    std::vector<OutMessage> messages;
    for (int i = 0; i < 100; ++i) messages.push_back({"p", 0, std::nullopt, std::to_string(i)});
    auto deliveries = produce_all(any_but(leader).bootstrap(), messages, {{"acks", "all"}}, 60s);
    for (const auto& d : deliveries) ASSERT_EQ(d.err, RdKafka::ERR_NO_ERROR) << err_name(d.err);

    ::kill(broker(leader).pid(), SIGCONT);
    // Its session expired: it registers again, follows, and rejoins the ISR.
    EXPECT_TRUE(wait_until([&] { return full_isr(broker(new_leader).bootstrap(), "p", 1); }, 60s));
    auto v = describe(broker(leader).bootstrap(), "p");
    ASSERT_TRUE(v.contains(0));
    EXPECT_EQ(v.at(0).leader, new_leader);
    auto consumed = consume_all(bootstrap_all(), {{"p", 0}}, 100, 30s);
    EXPECT_EQ(consumed.size(), 100U);
}

}  // namespace
}  // namespace weir::compat
