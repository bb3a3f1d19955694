#include "broker/metadata/embedded_metadata_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "broker/metadata/atomic_file.h"
#include "broker/metadata/open_store.h"
#include "broker/metadata/test/run_task.h"

namespace weir::metadata {
namespace {

using test::run;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

class EmbeddedStoreTest : public ::testing::Test {
protected:
    void SetUp() override {
        static std::atomic<int> counter{0};
        dir_ = fs::temp_directory_path() /
               ("weir-meta-" + std::to_string(::getpid()) + "-" + std::to_string(counter++)) / "data";
        fs::remove_all(dir_.parent_path());
    }
    void TearDown() override { fs::remove_all(dir_.parent_path()); }

    BrokerInfo local(std::int32_t id = 0) const {
        return BrokerInfo{id, {{"PLAINTEXT", "127.0.0.1", 9092}}, std::nullopt};
    }
    std::unique_ptr<EmbeddedMetadataStore> open(std::int32_t id = 0) const {
        return std::make_unique<EmbeddedMetadataStore>(EmbeddedMetadataStore::Options{dir_, local(id)});
    }
    static NewTopic topic(std::string name, std::int32_t partitions = 1, std::int16_t rf = 1,
                          config::ConfigMap configs = {}) {
        NewTopic t;
        t.name = std::move(name);
        t.num_partitions = partitions;
        t.replication_factor = rf;
        t.configs = std::move(configs);
        return t;
    }
    std::string file_contents() const {
        return read_file_if_exists(dir_ / EmbeddedMetadataStore::kFileName).value_or("");
    }

    fs::path dir_;
};

TEST_F(EmbeddedStoreTest, FreshStoreDescribesThisBroker) {
    auto store = open(3);
    EXPECT_TRUE(fs::exists(dir_ / "weir-metadata.json"));
    const std::string id = store->cluster_id();
    EXPECT_EQ(id.size(), 22U);
    EXPECT_TRUE(Uuid::from_string(id).has_value());
    EXPECT_EQ(store->controller_id(), 3);
    EXPECT_EQ(store->local_broker_id(), 3);
    ASSERT_EQ(store->brokers().size(), 1U);
    EXPECT_EQ(store->brokers()[0], local(3));
    ASSERT_NE(store->brokers()[0].endpoint("PLAINTEXT"), nullptr);
    EXPECT_TRUE(store->topics().empty());
}

TEST_F(EmbeddedStoreTest, CreateTopic) {
    auto store = open();
    std::vector<MetadataChange> changes;
    store->add_listener([&](const MetadataChange& c) { changes.push_back(c); });

    CreateTopicResult r = run(store->create_topic(topic("orders", 3, 1, {{"retention.ms", " 1000 "}}), false));
    ASSERT_TRUE(r.ok()) << r.message;
    EXPECT_FALSE(r.topic_id.is_zero());
    TopicPtr t = store->topic("orders");
    ASSERT_TRUE(t);
    EXPECT_EQ(t, store->topic_by_id(r.topic_id));
    EXPECT_EQ(t->id, r.topic_id);
    EXPECT_FALSE(t->internal);
    EXPECT_EQ(t->configs.at("retention.ms"), "1000");
    ASSERT_EQ(t->partitions.size(), 3U);
    for (std::int32_t p = 0; p < 3; ++p) {
        const PartitionInfo& info = t->partitions[static_cast<std::size_t>(p)];
        EXPECT_EQ(info.partition, p);
        EXPECT_EQ(info.leader, 0);
        EXPECT_EQ(info.leader_epoch, 0);
        EXPECT_EQ(info.replicas, std::vector<std::int32_t>{0});
        EXPECT_EQ(info.isr, std::vector<std::int32_t>{0});
        EXPECT_TRUE(info.offline_replicas.empty());
    }
    ASSERT_EQ(changes.size(), 1U);
    EXPECT_EQ(changes[0].kind, MetadataChange::Kind::topic_created);
    EXPECT_EQ(changes[0].topic, "orders");
    EXPECT_EQ(changes[0].after, t);
}

TEST_F(EmbeddedStoreTest, CreateTopicsCommitsThemAllAtOnce) {
    auto store = open();
    std::vector<std::string> notified;
    store->add_listener([&](const MetadataChange& c) { notified.push_back(c.topic); });
    const auto before = store->snapshot()->version;

    auto checked = run(store->create_topics({topic("x", 2), topic("bad name", 1)}, true));
    ASSERT_EQ(checked.size(), 2U);
    EXPECT_TRUE(checked[0].ok());
    EXPECT_FALSE(checked[1].ok());
    EXPECT_EQ(store->snapshot()->version, before);  // validate_only changes nothing

    auto results =
        run(store->create_topics({topic("x", 2), topic("bad name", 1), topic("y", 1), topic("x", 1)}, false));
    ASSERT_EQ(results.size(), 4U);
    EXPECT_TRUE(results[0].ok());
    EXPECT_EQ(results[1].error, ErrorCode::invalid_topic_exception);
    EXPECT_TRUE(results[2].ok());
    EXPECT_EQ(results[3].error, ErrorCode::topic_already_exists);  // made by the first entry
    EXPECT_TRUE(results[3].topic_id.is_zero());
    EXPECT_NE(results[0].topic_id, results[2].topic_id);
    // One new version: the file was written once for both topics.
    EXPECT_EQ(store->snapshot()->version, before + 1);
    EXPECT_EQ(notified, (std::vector<std::string>{"x", "y"}));
    EXPECT_EQ(store->topic("x")->partitions.size(), 2U);
    EXPECT_EQ(open()->snapshot()->topics_by_name.size(), 2U);  // read back from the file
}

TEST_F(EmbeddedStoreTest, CreateTopicErrors) {
    auto store = open();
    ASSERT_TRUE(run(store->create_topic(topic("a.b"), false)).ok());

    auto dup = run(store->create_topic(topic("a.b"), false));
    EXPECT_EQ(dup.error, ErrorCode::topic_already_exists);
    EXPECT_EQ(dup.message, "Topic 'a.b' already exists.");

    auto collide = run(store->create_topic(topic("a_b"), false));
    EXPECT_EQ(collide.error, ErrorCode::invalid_topic_exception);
    EXPECT_THAT(collide.message, HasSubstr("collides"));

    EXPECT_EQ(run(store->create_topic(topic(""), false)).error, ErrorCode::invalid_topic_exception);
    EXPECT_EQ(run(store->create_topic(topic(".."), false)).error, ErrorCode::invalid_topic_exception);
    EXPECT_EQ(run(store->create_topic(topic("bad name"), false)).error, ErrorCode::invalid_topic_exception);
    EXPECT_EQ(run(store->create_topic(topic(std::string(250, 'x')), false)).error, ErrorCode::invalid_topic_exception);
    EXPECT_EQ(run(store->create_topic(topic("p0", 0), false)).error, ErrorCode::invalid_partitions);
    EXPECT_EQ(run(store->create_topic(topic("rf0", 1, 0), false)).error, ErrorCode::invalid_replication_factor);
    auto rf2 = run(store->create_topic(topic("rf2", 1, 2), false));
    EXPECT_EQ(rf2.error, ErrorCode::invalid_replication_factor);
    EXPECT_EQ(rf2.message, "Replication factor: 2 larger than available brokers: 1.");
    auto cfg = run(store->create_topic(topic("cfg", 1, 1, {{"retention.hours", "1"}}), false));
    EXPECT_EQ(cfg.error, ErrorCode::invalid_config);
    EXPECT_EQ(cfg.message, "Unknown topic config name: retention.hours");
    EXPECT_EQ(run(store->create_topic(topic("cfg", 1, 1, {{"segment.ms", "0"}}), false)).error,
              ErrorCode::invalid_config);

    EXPECT_EQ(store->topics().size(), 1U);
}

TEST_F(EmbeddedStoreTest, ValidateOnlyChangesNothing) {
    auto store = open();
    const std::string before = file_contents();
    int notified = 0;
    store->add_listener([&](const MetadataChange&) { ++notified; });
    auto r = run(store->create_topic(topic("dry", 2), true));
    EXPECT_TRUE(r.ok());
    EXPECT_TRUE(r.topic_id.is_zero());
    EXPECT_FALSE(store->topic("dry"));
    EXPECT_EQ(notified, 0);
    EXPECT_EQ(file_contents(), before);
    EXPECT_EQ(run(store->create_topic(topic("dry", 0), true)).error, ErrorCode::invalid_partitions);
}

TEST_F(EmbeddedStoreTest, ExplicitAssignments) {
    auto store = open();
    NewTopic t = topic("manual", -1, -1);
    t.assignments = {{0, {0}}, {1, {0}}};
    auto ok = run(store->create_topic(t, false));
    ASSERT_TRUE(ok.ok()) << ok.message;
    EXPECT_EQ(store->topic("manual")->partitions.size(), 2U);

    NewTopic unknown = topic("unknown-broker", -1, -1);
    unknown.assignments = {{0, {5}}};
    auto u = run(store->create_topic(unknown, false));
    EXPECT_EQ(u.error, ErrorCode::invalid_replica_assignment);
    EXPECT_THAT(u.message, HasSubstr("Unknown broker(s) in replica assignment: 5"));

    NewTopic gap = topic("gap", -1, -1);
    gap.assignments = {{0, {0}}, {2, {0}}};
    EXPECT_EQ(run(store->create_topic(gap, false)).error, ErrorCode::invalid_replica_assignment);

    NewTopic dup = topic("dup", -1, -1);
    dup.assignments = {{0, {0, 0}}};
    EXPECT_EQ(run(store->create_topic(dup, false)).error, ErrorCode::invalid_replica_assignment);

    NewTopic both = topic("both", 1, 1);
    both.assignments = {{0, {0}}};
    EXPECT_EQ(run(store->create_topic(both, false)).error, ErrorCode::invalid_request);
}

TEST_F(EmbeddedStoreTest, InternalTopics) {
    auto store = open();
    auto r = run(store->create_topic(topic("__consumer_offsets", 50), false));
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(store->topic("__consumer_offsets")->internal);
    auto del = run(store->delete_topic("__consumer_offsets"));
    EXPECT_EQ(del.error, ErrorCode::invalid_request);
    EXPECT_TRUE(store->topic("__consumer_offsets"));
}

TEST_F(EmbeddedStoreTest, DeleteTopic) {
    auto store = open();
    auto r = run(store->create_topic(topic("gone"), false));
    ASSERT_TRUE(r.ok());
    std::vector<MetadataChange> changes;
    store->add_listener([&](const MetadataChange& c) { changes.push_back(c); });
    auto before = store->snapshot();

    EXPECT_TRUE(run(store->delete_topic("gone")).ok());
    EXPECT_FALSE(store->topic("gone"));
    EXPECT_FALSE(store->topic_by_id(r.topic_id));
    EXPECT_TRUE(before->topic("gone"));  // snapshots are immutable
    EXPECT_GT(store->snapshot()->version, before->version);
    ASSERT_EQ(changes.size(), 1U);
    EXPECT_EQ(changes[0].kind, MetadataChange::Kind::topic_deleted);
    EXPECT_EQ(changes[0].topic_id, r.topic_id);
    EXPECT_TRUE(changes[0].before);
    EXPECT_FALSE(changes[0].after);

    EXPECT_EQ(run(store->delete_topic("gone")).error, ErrorCode::unknown_topic_or_partition);
    // The name can be reused, with a new id.
    auto again = run(store->create_topic(topic("gone"), false));
    ASSERT_TRUE(again.ok());
    EXPECT_NE(again.topic_id, r.topic_id);
}

TEST_F(EmbeddedStoreTest, DeleteTopicsCommitsThemAllAtOnce) {
    auto store = open();
    for (const char* name : {"a", "b", "c"}) ASSERT_TRUE(run(store->create_topic(topic(name), false)).ok());
    ASSERT_TRUE(run(store->create_topic(topic("__consumer_offsets", 1), false)).ok());
    std::vector<std::string> notified;
    store->add_listener([&](const MetadataChange& c) { notified.push_back(c.topic); });
    const auto before = store->snapshot()->version;

    auto statuses = run(store->delete_topics({"a", "unknown", "b", "__consumer_offsets", "a", "c"}));
    ASSERT_EQ(statuses.size(), 6U);
    EXPECT_TRUE(statuses[0].ok());
    EXPECT_EQ(statuses[1].error, ErrorCode::unknown_topic_or_partition);
    EXPECT_TRUE(statuses[2].ok());
    EXPECT_EQ(statuses[3].error, ErrorCode::invalid_request);
    EXPECT_EQ(statuses[4].error, ErrorCode::unknown_topic_or_partition);  // gone with the first "a"
    EXPECT_TRUE(statuses[5].ok());
    // One new version: the file was written once for the three deletions.
    EXPECT_EQ(store->snapshot()->version, before + 1);
    EXPECT_EQ(notified, (std::vector<std::string>{"a", "b", "c"}));
    EXPECT_EQ(open()->snapshot()->topics_by_name.size(), 1U);  // read back from the file

    EXPECT_EQ(run(store->delete_topics({"unknown"})).front().error, ErrorCode::unknown_topic_or_partition);
    EXPECT_EQ(store->snapshot()->version, before + 1);
}

TEST_F(EmbeddedStoreTest, CreatePartitions) {
    auto store = open();
    ASSERT_TRUE(run(store->create_topic(topic("grow", 1), false)).ok());
    std::vector<MetadataChange> changes;
    store->add_listener([&](const MetadataChange& c) { changes.push_back(c); });

    EXPECT_TRUE(run(store->create_partitions("grow", 3, {}, true)).ok());
    EXPECT_EQ(store->topic("grow")->partitions.size(), 1U);
    EXPECT_TRUE(run(store->create_partitions("grow", 3, {}, false)).ok());
    TopicPtr t = store->topic("grow");
    ASSERT_EQ(t->partitions.size(), 3U);
    EXPECT_EQ(t->partitions[2].partition, 2);
    EXPECT_EQ(t->partitions[2].leader, 0);
    EXPECT_EQ(t->partitions[2].replicas, std::vector<std::int32_t>{0});
    ASSERT_EQ(changes.size(), 1U);
    EXPECT_EQ(changes[0].kind, MetadataChange::Kind::partitions_added);
    EXPECT_EQ(changes[0].before->partitions.size(), 1U);

    auto same = run(store->create_partitions("grow", 3, {}, false));
    EXPECT_EQ(same.error, ErrorCode::invalid_partitions);
    EXPECT_EQ(same.message, "Topic already has 3 partitions.");
    auto fewer = run(store->create_partitions("grow", 2, {}, false));
    EXPECT_EQ(fewer.error, ErrorCode::invalid_partitions);
    EXPECT_EQ(fewer.message, "Topic currently has 3 partitions, which is higher than the requested 2.");
    EXPECT_EQ(run(store->create_partitions("nope", 5, {}, false)).error, ErrorCode::unknown_topic_or_partition);
    EXPECT_EQ(run(store->create_partitions("grow", 5, {{0}}, false)).error, ErrorCode::invalid_replica_assignment);
    EXPECT_EQ(run(store->create_partitions("grow", 4, {{1}}, false)).error, ErrorCode::invalid_replica_assignment);
    EXPECT_TRUE(run(store->create_partitions("grow", 4, {{0}}, false)).ok());
    EXPECT_EQ(store->topic("grow")->partitions.size(), 4U);
}

TEST_F(EmbeddedStoreTest, AlterTopicConfigs) {
    auto store = open();
    ASSERT_TRUE(run(store->create_topic(topic("cfg", 1, 1, {{"retention.ms", "1000"}}), false)).ok());
    EXPECT_TRUE(run(store->alter_topic_configs("cfg", {{"cleanup.policy", "compact"}}, false)).ok());
    TopicPtr t = store->topic("cfg");
    EXPECT_EQ(t->configs, (config::ConfigMap{{"cleanup.policy", "compact"}}));  // replaced, not merged

    auto bad = run(store->alter_topic_configs("cfg", {{"cleanup.policy", "shred"}}, false));
    EXPECT_EQ(bad.error, ErrorCode::invalid_config);
    EXPECT_THAT(bad.message, HasSubstr("cleanup.policy"));
    EXPECT_EQ(store->topic("cfg")->configs, t->configs);
    EXPECT_TRUE(run(store->alter_topic_configs("cfg", {{"retention.ms", "5"}}, true)).ok());
    EXPECT_EQ(store->topic("cfg")->configs, t->configs);
    EXPECT_EQ(run(store->alter_topic_configs("nope", {}, false)).error, ErrorCode::unknown_topic_or_partition);
}

TEST_F(EmbeddedStoreTest, PersistsAcrossReopen) {
    std::string cluster;
    Uuid id_a, id_b;
    {
        auto store = open();
        cluster = store->cluster_id();
        id_a = run(store->create_topic(topic("a", 2, 1, {{"retention.ms", "77"}}), false)).topic_id;
        id_b = run(store->create_topic(topic("b", 1), false)).topic_id;
        ASSERT_TRUE(run(store->create_topic(topic("c"), false)).ok());
        ASSERT_TRUE(run(store->create_partitions("b", 4, {}, false)).ok());
        ASSERT_TRUE(run(store->delete_topic("c")).ok());
        ASSERT_TRUE(run(store->create_topic(topic("__consumer_offsets", 5), false)).ok());
    }
    auto store = open();
    EXPECT_EQ(store->cluster_id(), cluster);
    EXPECT_EQ(store->topics().size(), 3U);
    TopicPtr a = store->topic("a");
    ASSERT_TRUE(a);
    EXPECT_EQ(a->id, id_a);
    EXPECT_EQ(a->configs.at("retention.ms"), "77");
    EXPECT_EQ(a->partitions.size(), 2U);
    EXPECT_EQ(store->topic_by_id(id_b)->partitions.size(), 4U);
    EXPECT_EQ(store->topic_by_id(id_b)->partitions[3].isr, std::vector<std::int32_t>{0});
    EXPECT_FALSE(store->topic("c"));
    EXPECT_TRUE(store->topic("__consumer_offsets")->internal);
}

TEST_F(EmbeddedStoreTest, DynamicBrokerConfigsPerBrokerAndDefault) {
    auto store = open(3);
    std::vector<MetadataChange> changes;
    store->add_listener([&](const MetadataChange& c) { changes.push_back(c); });
    ASSERT_TRUE(run(store->alter_broker_configs(3, {{"log.retention.ms", "1000"}})).ok());
    ASSERT_TRUE(
        run(store->alter_broker_configs(std::nullopt, {{"log.retention.ms", "2000"}, {"message.max.bytes", "5000"}}))
            .ok());
    ASSERT_EQ(changes.size(), 2U);
    EXPECT_EQ(changes[0].kind, MetadataChange::Kind::broker_configs_changed);
    EXPECT_EQ(changes[0].broker_id, 3);
    EXPECT_EQ(changes[1].broker_id, std::nullopt);

    auto dynamic = store->snapshot()->dynamic_broker_configs(3);
    EXPECT_EQ(dynamic.broker, (config::ConfigMap{{"log.retention.ms", "1000"}}));
    EXPECT_EQ(dynamic.cluster_default.at("message.max.bytes"), "5000");
    // Another broker sees the defaults only.
    EXPECT_TRUE(store->snapshot()->dynamic_broker_configs(4).broker.empty());

    // A set replaces the previous one; an empty set removes it.
    ASSERT_TRUE(run(store->alter_broker_configs(3, {{"log.retention.bytes", "10"}})).ok());
    EXPECT_EQ(store->snapshot()->dynamic_broker_configs(3).broker, (config::ConfigMap{{"log.retention.bytes", "10"}}));
    ASSERT_TRUE(run(store->alter_broker_configs(3, {})).ok());
    EXPECT_TRUE(store->snapshot()->broker_configs.empty());
}

TEST_F(EmbeddedStoreTest, DynamicBrokerConfigsPersistAcrossReopen) {
    {
        auto store = open(3);
        ASSERT_TRUE(run(store->alter_broker_configs(3, {{"sasl.kerberos.min.time.before.relogin", "58000"}})).ok());
        ASSERT_TRUE(run(store->alter_broker_configs(std::nullopt, {{"log.retention.ms", "2000"}})).ok());
    }
    // Named as ZooKeeper names the entities under /config/brokers.
    EXPECT_THAT(file_contents(), HasSubstr(R"("broker_configs":{"<default>":{"log.retention.ms":"2000"},"3":{)"));
    auto store = open(3);
    auto dynamic = store->snapshot()->dynamic_broker_configs(3);
    EXPECT_EQ(dynamic.broker, (config::ConfigMap{{"sasl.kerberos.min.time.before.relogin", "58000"}}));
    EXPECT_EQ(dynamic.cluster_default, (config::ConfigMap{{"log.retention.ms", "2000"}}));
}

TEST_F(EmbeddedStoreTest, FileWithoutDynamicBrokerConfigsLoads) {
    std::string cluster;
    {
        auto store = open();
        cluster = store->cluster_id();
    }
    {
        std::ofstream out(dir_ / "weir-metadata.json", std::ios::trunc);
        out << R"({"version":1,"cluster_id":")" << cluster << R"(","broker_id":0,"topics":[]})";
    }
    auto store = open();
    EXPECT_TRUE(store->snapshot()->broker_configs.empty());
    EXPECT_TRUE(store->snapshot()->default_broker_configs.empty());
    {
        std::ofstream out(dir_ / "weir-metadata.json", std::ios::trunc);
        out << R"({"version":1,"cluster_id":")" << cluster
            << R"(","broker_id":0,"topics":[],"broker_configs":{"x":{}}})";
    }
    EXPECT_THROW(open(), MetadataStoreError);
}

TEST_F(EmbeddedStoreTest, ProducerIdBlocksFollowEachOtherAcrossReopen) {
    {
        auto store = open(3);
        auto first = run(store->allocate_producer_id_block());
        ASSERT_TRUE(first.ok()) << first.message;
        EXPECT_EQ(first.block, (ProducerIdBlock{3, 0, kProducerIdBlockSize}));
        auto second = run(store->allocate_producer_id_block());
        EXPECT_EQ(second.block, (ProducerIdBlock{3, 1000, kProducerIdBlockSize}));
    }
    // As ZooKeeper's /latest_producer_id_block holds it.
    EXPECT_THAT(file_contents(), HasSubstr(R"("latest_producer_id_block":{"version":1,"broker":3,)"
                                           R"("block_start":"1000","block_end":"1999"})"));
    auto store = open(3);
    EXPECT_EQ(run(store->allocate_producer_id_block()).block.first, 2000);
}

TEST_F(EmbeddedStoreTest, RefusesAnotherBrokersData) {
    open(0);
    try {
        open(1);
        FAIL() << "expected MetadataStoreError";
    } catch (const MetadataStoreError& e) {
        EXPECT_THAT(e.what(), HasSubstr("doesn't match stored broker.id 0"));
    }
}

TEST_F(EmbeddedStoreTest, RefusesCorruptFile) {
    open();
    {
        std::ofstream out(dir_ / "weir-metadata.json", std::ios::trunc);
        out << "{\"version\":1,\"cluster_id\":";
    }
    EXPECT_THROW(open(), MetadataStoreError);
    {
        std::ofstream out(dir_ / "weir-metadata.json", std::ios::trunc);
        out << "{\"version\":99,\"cluster_id\":\"x\",\"broker_id\":0,\"topics\":[]}";
    }
    EXPECT_THROW(open(), MetadataStoreError);
}

TEST_F(EmbeddedStoreTest, LeftoverTemporaryFileIsIgnored) {
    std::string cluster;
    {
        auto store = open();
        cluster = store->cluster_id();
        ASSERT_TRUE(run(store->create_topic(topic("kept"), false)).ok());
    }
    // A crash mid-write leaves a partial temporary file next to the real one.
    {
        std::ofstream out(dir_ / "weir-metadata.json.tmp");
        out << "{\"version\":1,\"clus";
    }
    auto store = open();
    EXPECT_EQ(store->cluster_id(), cluster);
    EXPECT_TRUE(store->topic("kept"));
    EXPECT_FALSE(fs::exists(dir_ / "weir-metadata.json.tmp"));
}

TEST_F(EmbeddedStoreTest, FailedWriteLeavesStateAndFileUnchanged) {
    auto store = open();
    ASSERT_TRUE(run(store->create_topic(topic("before"), false)).ok());
    const std::string contents = file_contents();
    // Make the temporary file impossible to create.
    fs::create_directory(dir_ / "weir-metadata.json.tmp");
    int notified = 0;
    store->add_listener([&](const MetadataChange&) { ++notified; });

    auto r = run(store->create_topic(topic("after"), false));
    EXPECT_EQ(r.error, ErrorCode::unknown_server_error);
    EXPECT_THAT(r.message, HasSubstr("Failed to write metadata"));
    EXPECT_FALSE(store->topic("after"));
    EXPECT_EQ(run(store->delete_topic("before")).error, ErrorCode::unknown_server_error);
    EXPECT_TRUE(store->topic("before"));
    EXPECT_EQ(notified, 0);
    EXPECT_EQ(file_contents(), contents);

    fs::remove(dir_ / "weir-metadata.json.tmp");
    EXPECT_TRUE(run(store->create_topic(topic("after"), false)).ok());
    EXPECT_FALSE(fs::exists(dir_ / "weir-metadata.json.tmp"));
    // Only the final file remains in the directory, with the space held back
    // for deleting topics on a full disk.
    std::set<std::string> files;
    for (const auto& e : fs::directory_iterator(dir_)) files.insert(e.path().filename().string());
    EXPECT_EQ(files, (std::set<std::string>{"weir-metadata.json", "weir-metadata.json.reserve"}));
    EXPECT_GE(fs::file_size(dir_ / "weir-metadata.json.reserve"), 1u << 20);
}

TEST_F(EmbeddedStoreTest, ListenersCanBeRemovedAndMayReenter) {
    auto store = open();
    boost::asio::io_context io;
    int calls = 0;
    std::optional<Status> second;
    auto id = store->add_listener([&](const MetadataChange& c) {
        ++calls;
        // Re-entrant read from inside a notification, and a mutation started there.
        EXPECT_TRUE(store->topic(c.topic) || c.kind == MetadataChange::Kind::topic_deleted);
        if (c.topic == "first") {
            boost::asio::co_spawn(
                io, [&]() -> Task<void> { second = co_await store->create_topic(topic("second"), false); },
                boost::asio::detached);
        }
    });
    std::optional<Status> first;
    boost::asio::co_spawn(
        io, [&]() -> Task<void> { first = co_await store->create_topic(topic("first"), false); },
        boost::asio::detached);
    io.run();
    ASSERT_TRUE(first && first->ok());
    ASSERT_TRUE(second && second->ok());
    EXPECT_EQ(calls, 2);
    EXPECT_TRUE(store->topic("second"));
    store->remove_listener(id);
    ASSERT_TRUE(run(store->create_topic(topic("third"), false)).ok());
    EXPECT_EQ(calls, 2);
}

// Why pipelined requests see each other's changes in order: the embedded
// store's mutations never suspend, so nothing else runs on the I/O thread
// between the start of a mutation and the co_await that returns its result,
// and by then the change is durable, published and notified.
TEST_F(EmbeddedStoreTest, AwaitedMutationsCompleteWithoutSuspending) {
    auto store = open();
    boost::asio::io_context io;
    std::vector<std::string> events;
    store->add_listener([&](const MetadataChange& c) { events.push_back("notified " + c.topic); });
    boost::asio::co_spawn(
        io,
        [&]() -> Task<void> {
            // Named arguments: g++ 12 cannot build a temporary from a braced
            // list inside a co_await ("array used as initializer").
            const std::string name = "awaited";
            const config::ConfigMap topic_configs{{"retention.ms", "5"}};
            const config::ConfigMap broker_configs{{"log.retention.ms", "7"}};
            // Runs only if a mutation below suspends.
            boost::asio::post(io, [&] { events.push_back("other work"); });
            auto created = co_await store->create_topic(topic(name, 2), false);
            EXPECT_TRUE(created.ok()) << created.message;
            EXPECT_TRUE(store->topic("awaited"));
            events.push_back("created");
            auto grown = co_await store->create_partitions(name, 3, {}, false);
            EXPECT_TRUE(grown.ok()) << grown.message;
            EXPECT_EQ(store->topic("awaited")->partitions.size(), 3U);
            auto altered = co_await store->alter_topic_configs(name, topic_configs, false);
            EXPECT_TRUE(altered.ok()) << altered.message;
            auto broker = co_await store->alter_broker_configs(0, broker_configs);
            EXPECT_TRUE(broker.ok()) << broker.message;
            auto deleted = co_await store->delete_topic(name);
            EXPECT_TRUE(deleted.ok()) << deleted.message;
            EXPECT_FALSE(store->topic("awaited"));
            events.push_back("deleted");
        },
        boost::asio::detached);
    io.run();
    EXPECT_EQ(events, (std::vector<std::string>{"notified awaited", "created", "notified awaited", "notified awaited",
                                                "notified ", "notified awaited", "deleted", "other work"}));
}

// The arguments are the coroutine's own: a mutation started with temporaries
// and awaited later still sees them.
TEST_F(EmbeddedStoreTest, MutationsOwnTheirArguments) {
    auto store = open();
    Task<CreateTopicResult> pending = [&] {
        std::string name = "owned";
        config::ConfigMap configs{{"retention.ms", "1000"}};
        return store->create_topic(topic(name, 2, 1, configs), false);
    }();
    auto created = run(std::move(pending));
    ASSERT_TRUE(created.ok()) << created.message;
    EXPECT_EQ(store->topic("owned")->configs.at("retention.ms"), "1000");
    Task<Status> deletion = store->delete_topic(std::string("owned"));
    EXPECT_TRUE(store->topic("owned")) << "nothing happens before the task runs";
    EXPECT_TRUE(run(std::move(deletion)).ok());
    EXPECT_FALSE(store->topic("owned"));
}

TEST_F(EmbeddedStoreTest, ConcurrentCreates) {
    auto store = open();
    constexpr int kThreads = 4;
    constexpr int kPerThread = 10;
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < kPerThread; ++i) {
                auto r = run(store->create_topic(topic("t" + std::to_string(t) + "-" + std::to_string(i)), false));
                EXPECT_TRUE(r.ok()) << r.message;
                (void)store->topics();
            }
        });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(store->topics().size(), static_cast<std::size_t>(kThreads * kPerThread));
    store.reset();
    EXPECT_EQ(open()->topics().size(), static_cast<std::size_t>(kThreads * kPerThread));
}

TEST_F(EmbeddedStoreTest, OpenFromBrokerConfig) {
    config::BrokerConfig cfg;
    cfg.broker_id = 2;
    cfg.rack = "r1";
    cfg.log_dirs = {dir_, dir_.parent_path() / "second"};
    boost::asio::io_context io;
    auto store = open_metadata_store(cfg, io.get_executor());
    EXPECT_EQ(store->local_broker_id(), 2);
    ASSERT_EQ(store->brokers().size(), 1U);
    EXPECT_EQ(store->brokers()[0].rack, "r1");
    ASSERT_NE(store->brokers()[0].endpoint("PLAINTEXT"), nullptr);
    EXPECT_EQ(store->brokers()[0].endpoint("PLAINTEXT")->port, 9092);
    EXPECT_TRUE(fs::exists(dir_ / "weir-metadata.json"));

    // ZooKeeper mode with nothing listening: a clear error once the
    // connection timeout passes.
    cfg.zookeeper_connect = "127.0.0.1:1";
    cfg.zookeeper_connection_timeout_ms = 300;
    EXPECT_THROW(open_metadata_store(cfg, io.get_executor()), MetadataStoreError);
}

}  // namespace
}  // namespace weir::metadata
