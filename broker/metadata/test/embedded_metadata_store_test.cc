#include "broker/metadata/embedded_metadata_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include "broker/metadata/atomic_file.h"
#include "broker/metadata/open_store.h"

namespace weir::metadata {
namespace {

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

  BrokerInfo local(int32_t id = 0) const { return BrokerInfo{id, {{"PLAINTEXT", "127.0.0.1", 9092}}, std::nullopt}; }
  std::unique_ptr<EmbeddedMetadataStore> open(int32_t id = 0) const {
    return std::make_unique<EmbeddedMetadataStore>(EmbeddedMetadataStore::Options{dir_, local(id)});
  }
  static NewTopic topic(std::string name, int32_t partitions = 1, int16_t rf = 1, config::ConfigMap configs = {}) {
    NewTopic t;
    t.name = std::move(name);
    t.num_partitions = partitions;
    t.replication_factor = rf;
    t.configs = std::move(configs);
    return t;
  }
  std::string file_contents() const { return read_file_if_exists(dir_ / EmbeddedMetadataStore::kFileName).value_or(""); }

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

  CreateTopicResult r = store->create_topic(topic("orders", 3, 1, {{"retention.ms", " 1000 "}}), false);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_FALSE(r.topic_id.is_zero());
  TopicPtr t = store->topic("orders");
  ASSERT_TRUE(t);
  EXPECT_EQ(t, store->topic_by_id(r.topic_id));
  EXPECT_EQ(t->id, r.topic_id);
  EXPECT_FALSE(t->internal);
  EXPECT_EQ(t->configs.at("retention.ms"), "1000");
  ASSERT_EQ(t->partitions.size(), 3U);
  for (int32_t p = 0; p < 3; ++p) {
    const PartitionInfo& info = t->partitions[static_cast<size_t>(p)];
    EXPECT_EQ(info.partition, p);
    EXPECT_EQ(info.leader, 0);
    EXPECT_EQ(info.leader_epoch, 0);
    EXPECT_EQ(info.replicas, std::vector<int32_t>{0});
    EXPECT_EQ(info.isr, std::vector<int32_t>{0});
    EXPECT_TRUE(info.offline_replicas.empty());
  }
  ASSERT_EQ(changes.size(), 1U);
  EXPECT_EQ(changes[0].kind, MetadataChange::Kind::TopicCreated);
  EXPECT_EQ(changes[0].topic, "orders");
  EXPECT_EQ(changes[0].after, t);
}

TEST_F(EmbeddedStoreTest, CreateTopicErrors) {
  auto store = open();
  ASSERT_TRUE(store->create_topic(topic("a.b"), false).ok());

  auto dup = store->create_topic(topic("a.b"), false);
  EXPECT_EQ(dup.error, ErrorCode::TopicAlreadyExists);
  EXPECT_EQ(dup.message, "Topic 'a.b' already exists.");

  auto collide = store->create_topic(topic("a_b"), false);
  EXPECT_EQ(collide.error, ErrorCode::InvalidTopic);
  EXPECT_THAT(collide.message, HasSubstr("collides"));

  EXPECT_EQ(store->create_topic(topic(""), false).error, ErrorCode::InvalidTopic);
  EXPECT_EQ(store->create_topic(topic(".."), false).error, ErrorCode::InvalidTopic);
  EXPECT_EQ(store->create_topic(topic("bad name"), false).error, ErrorCode::InvalidTopic);
  EXPECT_EQ(store->create_topic(topic(std::string(250, 'x')), false).error, ErrorCode::InvalidTopic);
  EXPECT_EQ(store->create_topic(topic("p0", 0), false).error, ErrorCode::InvalidPartitions);
  EXPECT_EQ(store->create_topic(topic("rf0", 1, 0), false).error, ErrorCode::InvalidReplicationFactor);
  auto rf2 = store->create_topic(topic("rf2", 1, 2), false);
  EXPECT_EQ(rf2.error, ErrorCode::InvalidReplicationFactor);
  EXPECT_EQ(rf2.message, "Replication factor: 2 larger than available brokers: 1.");
  auto cfg = store->create_topic(topic("cfg", 1, 1, {{"retention.hours", "1"}}), false);
  EXPECT_EQ(cfg.error, ErrorCode::InvalidConfig);
  EXPECT_EQ(cfg.message, "Unknown topic config name: retention.hours");
  EXPECT_EQ(store->create_topic(topic("cfg", 1, 1, {{"segment.ms", "0"}}), false).error, ErrorCode::InvalidConfig);

  EXPECT_EQ(store->topics().size(), 1U);
}

TEST_F(EmbeddedStoreTest, ValidateOnlyChangesNothing) {
  auto store = open();
  const std::string before = file_contents();
  int notified = 0;
  store->add_listener([&](const MetadataChange&) { ++notified; });
  auto r = store->create_topic(topic("dry", 2), true);
  EXPECT_TRUE(r.ok());
  EXPECT_TRUE(r.topic_id.is_zero());
  EXPECT_FALSE(store->topic("dry"));
  EXPECT_EQ(notified, 0);
  EXPECT_EQ(file_contents(), before);
  EXPECT_EQ(store->create_topic(topic("dry", 0), true).error, ErrorCode::InvalidPartitions);
}

TEST_F(EmbeddedStoreTest, ExplicitAssignments) {
  auto store = open();
  NewTopic t = topic("manual", -1, -1);
  t.assignments = {{0, {0}}, {1, {0}}};
  auto ok = store->create_topic(t, false);
  ASSERT_TRUE(ok.ok()) << ok.message;
  EXPECT_EQ(store->topic("manual")->partitions.size(), 2U);

  NewTopic unknown = topic("unknown-broker", -1, -1);
  unknown.assignments = {{0, {5}}};
  auto u = store->create_topic(unknown, false);
  EXPECT_EQ(u.error, ErrorCode::InvalidReplicaAssignment);
  EXPECT_THAT(u.message, HasSubstr("Unknown broker(s) in replica assignment: 5"));

  NewTopic gap = topic("gap", -1, -1);
  gap.assignments = {{0, {0}}, {2, {0}}};
  EXPECT_EQ(store->create_topic(gap, false).error, ErrorCode::InvalidReplicaAssignment);

  NewTopic dup = topic("dup", -1, -1);
  dup.assignments = {{0, {0, 0}}};
  EXPECT_EQ(store->create_topic(dup, false).error, ErrorCode::InvalidReplicaAssignment);

  NewTopic both = topic("both", 1, 1);
  both.assignments = {{0, {0}}};
  EXPECT_EQ(store->create_topic(both, false).error, ErrorCode::InvalidRequest);
}

TEST_F(EmbeddedStoreTest, InternalTopics) {
  auto store = open();
  auto r = store->create_topic(topic("__consumer_offsets", 50), false);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(store->topic("__consumer_offsets")->internal);
  auto del = store->delete_topic("__consumer_offsets");
  EXPECT_EQ(del.error, ErrorCode::InvalidRequest);
  EXPECT_TRUE(store->topic("__consumer_offsets"));
}

TEST_F(EmbeddedStoreTest, DeleteTopic) {
  auto store = open();
  auto r = store->create_topic(topic("gone"), false);
  ASSERT_TRUE(r.ok());
  std::vector<MetadataChange> changes;
  store->add_listener([&](const MetadataChange& c) { changes.push_back(c); });
  auto before = store->snapshot();

  EXPECT_TRUE(store->delete_topic("gone").ok());
  EXPECT_FALSE(store->topic("gone"));
  EXPECT_FALSE(store->topic_by_id(r.topic_id));
  EXPECT_TRUE(before->topic("gone"));  // snapshots are immutable
  EXPECT_GT(store->snapshot()->version, before->version);
  ASSERT_EQ(changes.size(), 1U);
  EXPECT_EQ(changes[0].kind, MetadataChange::Kind::TopicDeleted);
  EXPECT_EQ(changes[0].topic_id, r.topic_id);
  EXPECT_TRUE(changes[0].before);
  EXPECT_FALSE(changes[0].after);

  EXPECT_EQ(store->delete_topic("gone").error, ErrorCode::UnknownTopicOrPartition);
  // The name can be reused, with a new id.
  auto again = store->create_topic(topic("gone"), false);
  ASSERT_TRUE(again.ok());
  EXPECT_NE(again.topic_id, r.topic_id);
}

TEST_F(EmbeddedStoreTest, CreatePartitions) {
  auto store = open();
  ASSERT_TRUE(store->create_topic(topic("grow", 1), false).ok());
  std::vector<MetadataChange> changes;
  store->add_listener([&](const MetadataChange& c) { changes.push_back(c); });

  EXPECT_TRUE(store->create_partitions("grow", 3, {}, true).ok());
  EXPECT_EQ(store->topic("grow")->partitions.size(), 1U);
  EXPECT_TRUE(store->create_partitions("grow", 3, {}, false).ok());
  TopicPtr t = store->topic("grow");
  ASSERT_EQ(t->partitions.size(), 3U);
  EXPECT_EQ(t->partitions[2].partition, 2);
  EXPECT_EQ(t->partitions[2].leader, 0);
  EXPECT_EQ(t->partitions[2].replicas, std::vector<int32_t>{0});
  ASSERT_EQ(changes.size(), 1U);
  EXPECT_EQ(changes[0].kind, MetadataChange::Kind::PartitionsAdded);
  EXPECT_EQ(changes[0].before->partitions.size(), 1U);

  auto same = store->create_partitions("grow", 3, {}, false);
  EXPECT_EQ(same.error, ErrorCode::InvalidPartitions);
  EXPECT_EQ(same.message, "Topic already has 3 partitions.");
  auto fewer = store->create_partitions("grow", 2, {}, false);
  EXPECT_EQ(fewer.error, ErrorCode::InvalidPartitions);
  EXPECT_EQ(fewer.message, "Topic currently has 3 partitions, which is higher than the requested 2.");
  EXPECT_EQ(store->create_partitions("nope", 5, {}, false).error, ErrorCode::UnknownTopicOrPartition);
  EXPECT_EQ(store->create_partitions("grow", 5, {{0}}, false).error, ErrorCode::InvalidReplicaAssignment);
  EXPECT_EQ(store->create_partitions("grow", 4, {{1}}, false).error, ErrorCode::InvalidReplicaAssignment);
  EXPECT_TRUE(store->create_partitions("grow", 4, {{0}}, false).ok());
  EXPECT_EQ(store->topic("grow")->partitions.size(), 4U);
}

TEST_F(EmbeddedStoreTest, AlterTopicConfigs) {
  auto store = open();
  ASSERT_TRUE(store->create_topic(topic("cfg", 1, 1, {{"retention.ms", "1000"}}), false).ok());
  EXPECT_TRUE(store->alter_topic_configs("cfg", {{"cleanup.policy", "compact"}}, false).ok());
  TopicPtr t = store->topic("cfg");
  EXPECT_EQ(t->configs, (config::ConfigMap{{"cleanup.policy", "compact"}}));  // replaced, not merged

  auto bad = store->alter_topic_configs("cfg", {{"cleanup.policy", "shred"}}, false);
  EXPECT_EQ(bad.error, ErrorCode::InvalidConfig);
  EXPECT_THAT(bad.message, HasSubstr("cleanup.policy"));
  EXPECT_EQ(store->topic("cfg")->configs, t->configs);
  EXPECT_TRUE(store->alter_topic_configs("cfg", {{"retention.ms", "5"}}, true).ok());
  EXPECT_EQ(store->topic("cfg")->configs, t->configs);
  EXPECT_EQ(store->alter_topic_configs("nope", {}, false).error, ErrorCode::UnknownTopicOrPartition);
}

TEST_F(EmbeddedStoreTest, PersistsAcrossReopen) {
  std::string cluster;
  Uuid id_a, id_b;
  {
    auto store = open();
    cluster = store->cluster_id();
    id_a = store->create_topic(topic("a", 2, 1, {{"retention.ms", "77"}}), false).topic_id;
    id_b = store->create_topic(topic("b", 1), false).topic_id;
    ASSERT_TRUE(store->create_topic(topic("c"), false).ok());
    ASSERT_TRUE(store->create_partitions("b", 4, {}, false).ok());
    ASSERT_TRUE(store->delete_topic("c").ok());
    ASSERT_TRUE(store->create_topic(topic("__consumer_offsets", 5), false).ok());
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
  EXPECT_EQ(store->topic_by_id(id_b)->partitions[3].isr, std::vector<int32_t>{0});
  EXPECT_FALSE(store->topic("c"));
  EXPECT_TRUE(store->topic("__consumer_offsets")->internal);
}

TEST_F(EmbeddedStoreTest, DynamicBrokerConfigsPerBrokerAndDefault) {
  auto store = open(3);
  std::vector<MetadataChange> changes;
  store->add_listener([&](const MetadataChange& c) { changes.push_back(c); });
  ASSERT_TRUE(store->alter_broker_configs(3, {{"log.retention.ms", "1000"}}).ok());
  ASSERT_TRUE(store->alter_broker_configs(std::nullopt, {{"log.retention.ms", "2000"}, {"message.max.bytes", "5000"}}).ok());
  ASSERT_EQ(changes.size(), 2U);
  EXPECT_EQ(changes[0].kind, MetadataChange::Kind::BrokerConfigsChanged);
  EXPECT_EQ(changes[0].broker_id, 3);
  EXPECT_EQ(changes[1].broker_id, std::nullopt);

  auto dynamic = store->snapshot()->dynamic_broker_configs(3);
  EXPECT_EQ(dynamic.broker, (config::ConfigMap{{"log.retention.ms", "1000"}}));
  EXPECT_EQ(dynamic.cluster_default.at("message.max.bytes"), "5000");
  // Another broker sees the defaults only.
  EXPECT_TRUE(store->snapshot()->dynamic_broker_configs(4).broker.empty());

  // A set replaces the previous one; an empty set removes it.
  ASSERT_TRUE(store->alter_broker_configs(3, {{"log.retention.bytes", "10"}}).ok());
  EXPECT_EQ(store->snapshot()->dynamic_broker_configs(3).broker, (config::ConfigMap{{"log.retention.bytes", "10"}}));
  ASSERT_TRUE(store->alter_broker_configs(3, {}).ok());
  EXPECT_TRUE(store->snapshot()->broker_configs.empty());
}

TEST_F(EmbeddedStoreTest, DynamicBrokerConfigsPersistAcrossReopen) {
  {
    auto store = open(3);
    ASSERT_TRUE(store->alter_broker_configs(3, {{"sasl.kerberos.min.time.before.relogin", "58000"}}).ok());
    ASSERT_TRUE(store->alter_broker_configs(std::nullopt, {{"log.retention.ms", "2000"}}).ok());
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
    out << R"({"version":1,"cluster_id":")" << cluster << R"(","broker_id":0,"topics":[],"broker_configs":{"x":{}}})";
  }
  EXPECT_THROW(open(), MetadataStoreError);
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
    ASSERT_TRUE(store->create_topic(topic("kept"), false).ok());
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
  ASSERT_TRUE(store->create_topic(topic("before"), false).ok());
  const std::string contents = file_contents();
  // Make the temporary file impossible to create.
  fs::create_directory(dir_ / "weir-metadata.json.tmp");
  int notified = 0;
  store->add_listener([&](const MetadataChange&) { ++notified; });

  auto r = store->create_topic(topic("after"), false);
  EXPECT_EQ(r.error, ErrorCode::UnknownServerError);
  EXPECT_THAT(r.message, HasSubstr("Failed to write metadata"));
  EXPECT_FALSE(store->topic("after"));
  EXPECT_EQ(store->delete_topic("before").error, ErrorCode::UnknownServerError);
  EXPECT_TRUE(store->topic("before"));
  EXPECT_EQ(notified, 0);
  EXPECT_EQ(file_contents(), contents);

  fs::remove(dir_ / "weir-metadata.json.tmp");
  EXPECT_TRUE(store->create_topic(topic("after"), false).ok());
  EXPECT_FALSE(fs::exists(dir_ / "weir-metadata.json.tmp"));
  // Only the final file remains in the directory.
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir_)) {
    ++files;
    EXPECT_EQ(e.path().filename(), "weir-metadata.json");
  }
  EXPECT_EQ(files, 1);
}

TEST_F(EmbeddedStoreTest, ListenersCanBeRemovedAndMayReenter) {
  auto store = open();
  int calls = 0;
  auto id = store->add_listener([&](const MetadataChange& c) {
    ++calls;
    // Re-entrant read and write from inside a notification.
    EXPECT_TRUE(store->topic(c.topic) || c.kind == MetadataChange::Kind::TopicDeleted);
    if (c.topic == "first") store->create_topic(topic("second"), false);
  });
  ASSERT_TRUE(store->create_topic(topic("first"), false).ok());
  EXPECT_EQ(calls, 2);
  EXPECT_TRUE(store->topic("second"));
  store->remove_listener(id);
  ASSERT_TRUE(store->create_topic(topic("third"), false).ok());
  EXPECT_EQ(calls, 2);
}

TEST_F(EmbeddedStoreTest, ConcurrentCreates) {
  auto store = open();
  constexpr int kThreads = 4;
  constexpr int kPerThread = 10;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        auto r = store->create_topic(topic("t" + std::to_string(t) + "-" + std::to_string(i)), false);
        EXPECT_TRUE(r.ok()) << r.message;
        (void)store->topics();
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(store->topics().size(), static_cast<size_t>(kThreads * kPerThread));
  store.reset();
  EXPECT_EQ(open()->topics().size(), static_cast<size_t>(kThreads * kPerThread));
}

TEST_F(EmbeddedStoreTest, OpenFromBrokerConfig) {
  config::BrokerConfig cfg;
  cfg.broker_id = 2;
  cfg.rack = "r1";
  cfg.log_dirs = {dir_, dir_.parent_path() / "second"};
  auto store = open_metadata_store(cfg);
  EXPECT_EQ(store->local_broker_id(), 2);
  ASSERT_EQ(store->brokers().size(), 1U);
  EXPECT_EQ(store->brokers()[0].rack, "r1");
  ASSERT_NE(store->brokers()[0].endpoint("PLAINTEXT"), nullptr);
  EXPECT_EQ(store->brokers()[0].endpoint("PLAINTEXT")->port, 9092);
  EXPECT_TRUE(fs::exists(dir_ / "weir-metadata.json"));

  cfg.zookeeper_connect = "localhost:2181";
  EXPECT_THROW(open_metadata_store(cfg), MetadataStoreError);
}

}  // namespace
}  // namespace weir::metadata
