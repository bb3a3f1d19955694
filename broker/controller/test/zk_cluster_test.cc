// Brokers' metadata stores and controllers against a real ZooKeeper: each
// node runs on its own I/O thread, as a broker process does.
#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_future.hpp>
#include <future>
#include <thread>

#include "broker/controller/zk_controller.h"
#include "broker/metadata/zookeeper/test/zookeeper_server.h"
#include "broker/metadata/zookeeper/zk_metadata_store.h"

namespace weir::controller {
namespace {

using namespace std::chrono_literals;
using metadata::MetadataSnapshot;

class Node {
public:
    // Without a controller the node only follows ZooKeeper, as a broker that
    // lost the controller election does.
    Node(std::int32_t id, const std::string& connect, bool with_controller = true) {
        thread_ = std::thread([this] { io_.run(); });
        config_.broker_id = id;
        metadata::ZkMetadataStore::Options o;
        o.zookeeper.connect = connect;
        o.zookeeper.session_timeout = 6000ms;
        o.zookeeper.connection_timeout = 20000ms;
        o.local_broker = {id, {{"PLAINTEXT", "127.0.0.1", 9000 + id}}, std::nullopt};
        o.executor = io_.get_executor();
        o.propagation_timeout = 20000ms;
        store_ = std::make_unique<metadata::ZkMetadataStore>(std::move(o));
        if (with_controller)
            on_io([this] {
                controller_ = std::make_unique<ZkController>(*store_, config_);
                controller_->start();
            });
    }
    ~Node() {
        on_io([this] {
            controller_.reset();
            store_.reset();
        });
        work_.reset();
        io_.stop();
        thread_.join();
    }

    metadata::ZkMetadataStore& store() { return *store_; }
    std::shared_ptr<const MetadataSnapshot> snapshot() { return store_->snapshot(); }

    template <typename T>
    T run(boost::asio::awaitable<T> task) {
        auto f = boost::asio::co_spawn(io_, std::move(task), boost::asio::use_future);
        if (f.wait_for(60s) != std::future_status::ready) throw std::runtime_error("task did not finish in 60 s");
        return f.get();
    }

    // Polls (bounded) until the node's snapshot satisfies `ready`.
    bool eventually(const std::function<bool(const MetadataSnapshot&)>& ready,
                    std::chrono::milliseconds timeout = 20000ms) {
        auto deadline = std::chrono::steady_clock::now() + timeout;
        while (std::chrono::steady_clock::now() < deadline) {
            if (ready(*snapshot())) return true;
            std::this_thread::sleep_for(20ms);
        }
        return ready(*snapshot());
    }

private:
    template <typename F>
    void on_io(F f) {
        std::promise<void> done;
        boost::asio::post(io_, [&] {
            f();
            done.set_value();
        });
        done.get_future().wait();
    }

    boost::asio::io_context io_;
    boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_{io_.get_executor()};
    std::thread thread_;
    config::BrokerConfig config_;
    std::unique_ptr<metadata::ZkMetadataStore> store_;
    std::unique_ptr<ZkController> controller_;
};

class ZkClusterTest : public ::testing::Test {
protected:
    static void SetUpTestSuite() { server_ = std::make_unique<testing::ZooKeeperServer>(); }
    static void TearDownTestSuite() { server_.reset(); }

    void SetUp() override { connect_ = server_->fresh_chroot_connect(); }
    std::unique_ptr<Node> node(std::int32_t id, bool with_controller = true) {
        return std::make_unique<Node>(id, connect_, with_controller);
    }
    // Reads ZooKeeper directly, as zkCli would.
    std::optional<zk::Node> znode(const std::string& path) {
        zk::ZkClient c({connect_, 6000ms, 20000ms});
        return c.run_sync([&](zk::ZkSession& s) { return s.get(path); });
    }

    static std::unique_ptr<testing::ZooKeeperServer> server_;
    std::string connect_;
};
std::unique_ptr<testing::ZooKeeperServer> ZkClusterTest::server_;

bool all_led(const MetadataSnapshot& s, const std::string& name, std::size_t partitions) {
    auto t = s.topic(name);
    if (!t || t->partitions.size() != partitions) return false;
    for (const auto& p : t->partitions)
        if (p.leader < 0) return false;
    return true;
}

TEST_F(ZkClusterTest, BrokersRegisterAndOneIsController) {
    auto n1 = node(1);
    auto n2 = node(2);
    auto n3 = node(3);
    for (auto* n : {n1.get(), n2.get(), n3.get()}) {
        EXPECT_TRUE(
            n->eventually([](const MetadataSnapshot& s) { return s.brokers.size() == 3 && s.controller_id > 0; }));
    }
    const auto s1 = n1->snapshot();
    EXPECT_EQ(n2->snapshot()->controller_id, s1->controller_id);
    EXPECT_EQ(n3->snapshot()->cluster_id, s1->cluster_id);
    EXPECT_FALSE(s1->cluster_id.empty());
    ASSERT_NE(s1->broker(2), nullptr);
    EXPECT_EQ(s1->broker(2)->endpoint("PLAINTEXT")->port, 9002);

    // Kafka's znodes, readable by Kafka's tools.
    auto reg = znode("/brokers/ids/2");
    ASSERT_TRUE(reg);
    EXPECT_NE(reg->data.find(R"("endpoints":["PLAINTEXT://127.0.0.1:9002"])"), std::string::npos) << reg->data;
    EXPECT_NE(reg->ephemeral_owner, 0);
    auto controller = znode("/controller");
    ASSERT_TRUE(controller);
    EXPECT_EQ(zk::decode_controller(controller->data), s1->controller_id);
    EXPECT_EQ(znode("/controller_epoch")->data, "1");
    EXPECT_TRUE(znode("/cluster/id"));
}

TEST_F(ZkClusterTest, ProducerIdBlocksAreSharedThroughTheZnodeAsKafkaWritesIt) {
    auto n1 = node(1);
    auto n2 = node(2);
    auto a = n1->run(n1->store().allocate_producer_id_block());
    ASSERT_TRUE(a.ok()) << a.message;
    EXPECT_EQ(a.block, (metadata::ProducerIdBlock{1, 0, metadata::kProducerIdBlockSize}));
    auto b = n2->run(n2->store().allocate_producer_id_block());
    ASSERT_TRUE(b.ok()) << b.message;
    EXPECT_EQ(b.block, (metadata::ProducerIdBlock{2, 1000, metadata::kProducerIdBlockSize}));
    auto c = n1->run(n1->store().allocate_producer_id_block());
    EXPECT_EQ(c.block.first, 2000);
    auto latest = znode("/latest_producer_id_block");
    ASSERT_TRUE(latest);
    EXPECT_EQ(latest->data, R"({"version":1,"broker":1,"block_start":"2000","block_end":"2999"})");
}

TEST_F(ZkClusterTest, CreateTopicSpreadsReplicasAndLeaders) {
    auto n1 = node(1);
    auto n2 = node(2);
    auto n3 = node(3);
    // n2 creates the topic and checks its replication factor against the
    // brokers it sees itself.
    ASSERT_TRUE(n2->eventually([](const MetadataSnapshot& s) { return s.brokers.size() == 3; }));
    metadata::NewTopic t;
    t.name = "orders";
    t.num_partitions = 6;
    t.replication_factor = 3;
    t.configs = {{"retention.ms", "60000"}};
    auto created = n2->run(n2->store().create_topic(t, false));
    ASSERT_TRUE(created.ok()) << created.message;
    ASSERT_TRUE(created.topic);
    // The request completes once leaders are elected.
    EXPECT_TRUE(all_led(*n2->snapshot(), "orders", 6));
    std::map<std::int32_t, int> leaders;
    for (const auto& p : n2->snapshot()->topic("orders")->partitions) {
        EXPECT_EQ(p.replicas.size(), 3U);
        EXPECT_EQ(p.isr.size(), 3U);
        EXPECT_EQ(p.leader, p.replicas.front());
        ++leaders[p.leader];
    }
    EXPECT_EQ(leaders, (std::map<std::int32_t, int>{{1, 2}, {2, 2}, {3, 2}}));
    for (auto* n : {n1.get(), n3.get()}) {
        EXPECT_TRUE(n->eventually([](const MetadataSnapshot& s) {
            auto topic = s.topic("orders");
            return all_led(s, "orders", 6) && topic->configs.at("retention.ms") == "60000";
        }));
        EXPECT_EQ(n->snapshot()->topic("orders")->id, created.topic_id);
    }
    auto state = znode("/brokers/topics/orders/partitions/0/state");
    ASSERT_TRUE(state);
    EXPECT_EQ(zk::decode_partition_state(state->data).isr.size(), 3U);
    EXPECT_NE(znode("/config/topics/orders")->data.find(R"("retention.ms":"60000")"), std::string::npos);

    auto again = n3->run(n3->store().create_topic(t, false));
    EXPECT_EQ(again.error, ErrorCode::topic_already_exists);
    metadata::NewTopic too_many = t;
    too_many.name = "wide";
    too_many.replication_factor = 4;
    EXPECT_EQ(n1->run(n1->store().create_topic(too_many, false)).error, ErrorCode::invalid_replication_factor);
}

// A Kafka broker learns the partitions of a new topic, and those
// CreatePartitions adds, from one UpdateMetadata naming them all; a client
// that looks while the controller writes their states one by one must not
// cache some of them (librdkafka then fails messages for the others with
// "Unknown partition").
TEST_F(ZkClusterTest, PartitionsAppearOnceAllHaveAState) {
    auto n1 = node(1, false);
    ASSERT_TRUE(n1->eventually([](const MetadataSnapshot& s) { return s.brokers.size() == 1; }));
    zk::ZkClient c({connect_, 6000ms, 20000ms});
    auto write_topic = [&](const std::string& name, const zk::TopicAssignment& a, bool exists) {
        c.run_sync([&](zk::ZkSession& s) {
            return exists ? s.set(zk::paths::topic(name), zk::encode_topic_assignment(a))
                          : s.create(zk::paths::topic(name), zk::encode_topic_assignment(a));
        });
    };
    auto write_state = [&](const std::string& name, std::int32_t p) {
        c.run_sync([&](zk::ZkSession& s) {
            s.ensure_path(zk::paths::topic_partitions(name) + "/" + std::to_string(p));
            return s.create(zk::paths::partition_state(name, p), zk::encode_partition_state({1, 0, {1}, 1}));
        });
    };
    auto assignment = [](std::int32_t partitions) {
        zk::TopicAssignment a;
        for (std::int32_t p = 0; p < partitions; ++p) a.partitions[p] = {1};
        return a;
    };
    // ZooKeeper orders the changes: once a topic written afterwards shows,
    // the node has read the states written before it.
    int barriers = 0;
    auto barrier = [&] {
        const auto name = "barrier-" + std::to_string(++barriers);
        auto a = assignment(1);
        a.topic_id = Uuid::random();
        write_topic(name, a, false);
        write_state(name, 0);
        return n1->eventually([&](const MetadataSnapshot& s) { return all_led(s, name, 1); });
    };

    auto grow = assignment(4);
    grow.topic_id = Uuid::random();
    write_topic("grow", grow, false);
    for (std::int32_t p = 0; p < 3; ++p) write_state("grow", p);
    ASSERT_TRUE(barrier());
    EXPECT_FALSE(n1->snapshot()->topic("grow")) << "shown with 3 of its 4 partitions";
    write_state("grow", 3);
    EXPECT_TRUE(n1->eventually([](const MetadataSnapshot& s) { return all_led(s, "grow", 4); }));

    // Two partitions added: the four stay, the new ones come together.
    auto grown = assignment(6);
    grown.topic_id = grow.topic_id;
    write_topic("grow", grown, true);
    write_state("grow", 4);
    ASSERT_TRUE(barrier());
    EXPECT_TRUE(all_led(*n1->snapshot(), "grow", 4));
    write_state("grow", 5);
    EXPECT_TRUE(n1->eventually([](const MetadataSnapshot& s) { return all_led(s, "grow", 6); }));
}

TEST_F(ZkClusterTest, ANewTopicCostsZooKeeperItsOwnPartitionsNotTheWholeCluster) {
    auto n1 = node(1);
    ASSERT_TRUE(n1->eventually([](const MetadataSnapshot& s) { return s.controller_id == 1; }));
    auto requests = [&] { return n1->store().zookeeper().run_sync([](zk::ZkSession& s) { return s.requests(); }); };
    auto create = [&](const std::string& name) {
        metadata::NewTopic t;
        t.name = name;
        t.num_partitions = 4;
        t.replication_factor = 1;
        auto created = n1->run(n1->store().create_topic(t, false));
        ASSERT_TRUE(created.ok()) << created.message;
        ASSERT_TRUE(all_led(*n1->snapshot(), name, 4));
    };
    // Every pass the creation causes has run once the count stops moving.
    auto settled = [&] {
        auto last = requests();
        for (int i = 0; i < 100; ++i) {
            std::this_thread::sleep_for(100ms);
            auto now = requests();
            if (now == last) return now;
            last = now;
        }
        return last;
    };
    for (int i = 0; i < 60; ++i) create("existing-" + std::to_string(i));
    const auto before = settled();
    create("one-more");
    const auto cost = settled() - before;
    // Reading all 61 topics and 244 partition states once would be 305
    // requests; a creation costs its own topic's reads and writes.
    EXPECT_LT(cost, 80U) << cost << " ZooKeeper requests for one topic of 4 partitions";
}

TEST_F(ZkClusterTest, LeadershipMovesToInSyncReplicaWhenBrokerLeaves) {
    auto n1 = node(1);
    auto n2 = node(2);
    auto n3 = node(3);
    ASSERT_TRUE(n1->eventually([](const MetadataSnapshot& s) { return s.brokers.size() == 3; }));
    metadata::NewTopic t;
    t.name = "t";
    t.assignments = {{0, {2, 1, 3}}, {1, {1, 2, 3}}};
    t.num_partitions = -1;
    t.replication_factor = -1;
    ASSERT_TRUE(n1->run(n1->store().create_topic(t, false)).ok());
    ASSERT_EQ(n1->snapshot()->topic("t")->partitions[0].leader, 2);

    n2.reset();  // its session ends: /brokers/ids/2 goes
    EXPECT_TRUE(n1->eventually([](const MetadataSnapshot& s) {
        auto topic = s.topic("t");
        const auto& p0 = topic->partitions[0];
        const auto& p1 = topic->partitions[1];
        return s.brokers.size() == 2 && p0.leader == 1 && p0.isr == std::vector<std::int32_t>{1, 3} &&
               p0.leader_epoch == 1 && p0.offline_replicas == std::vector<std::int32_t>{2} && p1.leader == 1 &&
               p1.isr == std::vector<std::int32_t>{1, 3};
    }));
}

// More partitions than one controller pass looks at, and a new controller:
// the passes that follow its first finish the work ("b", whose leader is
// gone, and then "y", which only loses a follower).
TEST_F(ZkClusterTest, ANewControllerReachesEveryPartitionOverSeveralPasses) {
    auto n1 = node(1);
    ASSERT_TRUE(n1->eventually([](const MetadataSnapshot& s) { return s.controller_id == 1; }));
    auto n2 = node(2);
    auto n3 = node(3);
    ASSERT_TRUE(n1->eventually([](const MetadataSnapshot& s) { return s.brokers.size() == 3; }));
    constexpr std::int32_t kPartitions = 200;  // each topic more than a pass
    for (const auto& [name, replicas] :
         std::vector<std::pair<std::string, std::vector<std::int32_t>>>{{"b", {1, 2, 3}}, {"y", {2, 3, 1}}}) {
        metadata::NewTopic t;
        t.name = name;
        t.num_partitions = -1;
        t.replication_factor = -1;
        for (std::int32_t p = 0; p < kPartitions; ++p) t.assignments[p] = replicas;
        auto created = n1->run(n1->store().create_topic(t, false));
        ASSERT_TRUE(created.ok()) << created.message;
    }
    n1.reset();  // the controller
    auto settled = [](const MetadataSnapshot& s) {
        for (const auto* name : {"b", "y"}) {
            auto topic = s.topic(name);
            if (!topic || topic->partitions.size() != kPartitions) return false;
            for (const auto& p : topic->partitions)
                if (p.leader != 2 || p.isr != std::vector<std::int32_t>{2, 3}) return false;
        }
        return true;
    };
    EXPECT_TRUE(n2->eventually(settled, 60000ms));
    EXPECT_TRUE(n3->eventually(settled, 20000ms));
}

TEST_F(ZkClusterTest, NewControllerTakesOverAndFailsOver) {
    auto n1 = node(1);
    ASSERT_TRUE(n1->eventually([](const MetadataSnapshot& s) { return s.controller_id == 1; }));
    auto n2 = node(2);
    auto n3 = node(3);
    ASSERT_TRUE(n2->eventually([](const MetadataSnapshot& s) { return s.brokers.size() == 3; }));
    metadata::NewTopic t;
    t.name = "t";
    t.assignments = {{0, {1, 2}}};
    t.num_partitions = -1;
    t.replication_factor = -1;
    ASSERT_TRUE(n2->run(n2->store().create_topic(t, false)).ok());

    n1.reset();  // the controller and the leader of t-0
    EXPECT_TRUE(n2->eventually([](const MetadataSnapshot& s) {
        auto topic = s.topic("t");
        return (s.controller_id == 2 || s.controller_id == 3) && topic->partitions[0].leader == 2;
    }));
    EXPECT_EQ(znode("/controller_epoch")->data, "2");
    // The new controller elects leaders for new topics too.
    metadata::NewTopic u;
    u.name = "u";
    u.num_partitions = 2;
    u.replication_factor = 2;
    auto created = n3->run(n3->store().create_topic(u, false));
    ASSERT_TRUE(created.ok()) << created.message;
    EXPECT_TRUE(all_led(*n3->snapshot(), "u", 2));
}

TEST_F(ZkClusterTest, DeletePartitionsAndConfigsReachEveryBroker) {
    auto n1 = node(1);
    auto n2 = node(2);
    ASSERT_TRUE(n1->eventually([](const MetadataSnapshot& s) { return s.brokers.size() == 2; }));
    metadata::NewTopic t;
    t.name = "t";
    t.num_partitions = 1;
    t.replication_factor = 2;
    ASSERT_TRUE(n1->run(n1->store().create_topic(t, false)).ok());

    auto grown = n2->run(n2->store().create_partitions("t", 3, {}, false));
    ASSERT_TRUE(grown.ok()) << grown.message;
    EXPECT_TRUE(all_led(*n2->snapshot(), "t", 3));
    EXPECT_TRUE(n1->eventually([](const MetadataSnapshot& s) { return all_led(s, "t", 3); }));

    auto altered = n1->run(n1->store().alter_topic_configs("t", {{"cleanup.policy", "compact"}}, false));
    ASSERT_TRUE(altered.ok()) << altered.message;
    EXPECT_TRUE(n2->eventually([](const MetadataSnapshot& s) {
        auto topic = s.topic("t");
        return topic && topic->configs == config::ConfigMap{{"cleanup.policy", "compact"}};
    }));
    auto broker_cfg = n1->run(n1->store().alter_broker_configs(2, {{"log.retention.ms", "1000"}}));
    ASSERT_TRUE(broker_cfg.ok());
    EXPECT_TRUE(n2->eventually([](const MetadataSnapshot& s) {
        return s.dynamic_broker_configs(2).broker == config::ConfigMap{{"log.retention.ms", "1000"}};
    }));

    auto deleted = n2->run(n2->store().delete_topic("t"));
    ASSERT_TRUE(deleted.ok()) << deleted.message;
    EXPECT_FALSE(n2->snapshot()->topic("t"));
    EXPECT_TRUE(n1->eventually([](const MetadataSnapshot& s) { return !s.topic("t"); }));
    EXPECT_FALSE(znode("/brokers/topics/t"));
    EXPECT_FALSE(znode("/config/topics/t"));
    EXPECT_FALSE(znode("/admin/delete_topics/t"));
    EXPECT_EQ(n1->run(n1->store().delete_topic("t")).error, ErrorCode::unknown_topic_or_partition);
}

// A client that created a topic through one broker may name it to another
// at once; Kafka's controller reads ZooKeeper and finds it.
TEST_F(ZkClusterTest, ChangesFindATopicCreatedAMomentAgoThroughAnotherBroker) {
    auto n1 = node(1);
    ASSERT_TRUE(n1->eventually([](const MetadataSnapshot& s) { return s.controller_id == 1; }));
    zk::ZkClient c({connect_, 6000ms, 20000ms});
    // Written without partition states, as another broker's store writes a
    // topic: this one shows it only after its controller elected leaders.
    auto write = [&](const std::string& name) {
        zk::TopicAssignment a;
        a.partitions = {{0, {1}}};
        a.topic_id = Uuid::random();
        c.run_sync(
            [&](zk::ZkSession& s) { return s.create("/brokers/topics/" + name, zk::encode_topic_assignment(a)); });
    };

    write("grown");
    auto grown = n1->run(n1->store().create_partitions("grown", 2, {}, false));
    EXPECT_TRUE(grown.ok()) << grown.message;
    EXPECT_TRUE(all_led(*n1->snapshot(), "grown", 2));

    write("altered");
    auto altered = n1->run(n1->store().alter_topic_configs("altered", {{"cleanup.policy", "compact"}}, false));
    EXPECT_TRUE(altered.ok()) << altered.message;
    auto configs = znode("/config/topics/altered");
    ASSERT_TRUE(configs);
    EXPECT_NE(configs->data.find("compact"), std::string::npos);

    write("deleted");
    auto deleted = n1->run(n1->store().delete_topic("deleted"));
    EXPECT_TRUE(deleted.ok()) << deleted.message;
    EXPECT_FALSE(znode("/brokers/topics/deleted"));

    // A name no broker wrote stays unknown, after one look at ZooKeeper.
    EXPECT_EQ(n1->run(n1->store().create_partitions("never", 2, {}, false)).error,
              ErrorCode::unknown_topic_or_partition);
}

TEST_F(ZkClusterTest, TopicWrittenWithoutIdGetsOne) {
    auto n1 = node(1);
    ASSERT_TRUE(n1->eventually([](const MetadataSnapshot& s) { return s.controller_id == 1; }));
    // As an older Kafka tool writes it: version 1, no topic id.
    zk::ZkClient c({connect_, 6000ms, 20000ms});
    c.run_sync(
        [](zk::ZkSession& s) { return s.create("/brokers/topics/legacy", R"({"version":1,"partitions":{"0":[1]}})"); });
    EXPECT_TRUE(n1->eventually([](const MetadataSnapshot& s) { return all_led(s, "legacy", 1); }));
    EXPECT_FALSE(n1->snapshot()->topic("legacy")->id.is_zero());
}

}  // namespace
}  // namespace weir::controller
