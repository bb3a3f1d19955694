// A failed disk, as a user meets it: a broker with two log dirs loses one
// (removed from under it). That dir goes offline as Kafka takes it: `weir
// log-dirs` (DescribeLogDirs) shows KafkaStorageException for it, its
// partitions have no leader and refuse data, the metric counts it; the other
// dir's partitions keep every message and take new ones. Losing the second
// dir stops the broker with exit status 1, as Kafka halts. A group
// coordinator whose partition was in the failed dir resigns: FindCoordinator
// answers COORDINATOR_NOT_AVAILABLE, as Kafka does for a partition without a leader.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <set>

#include "broker/common/temp_dir.h"
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

constexpr int kPartitions = 4;
constexpr int kPerPartition = 10;

// Partition number -> its dir's error (null: online), from `weir log-dirs --describe`.
struct DirView {
    std::map<std::string, json::value> errors;           // dir -> error
    std::map<std::int32_t, std::string> partition_dirs;  // partition of "t" -> dir
};

DirView describe_dirs(const BrokerProcess& broker) {
    auto r = run_process(
        {weir_binary(), "log-dirs", "--describe", "--bootstrap-server", broker.bootstrap(), "--topic-list", "t"}, 30s);
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    DirView view;
    const auto last_line = r.out.substr(r.out.rfind('\n', r.out.size() - 2) + 1);
    auto doc = json::parse(last_line).as_object();
    for (const auto& dir : doc.at("brokers").as_array().at(0).at("logDirs").as_array()) {
        const std::string path(dir.at("logDir").as_string());
        view.errors[path] = dir.at("error");
        for (const auto& p : dir.at("partitions").as_array()) {
            const std::string name(p.at("partition").as_string());
            view.partition_dirs[std::stoi(name.substr(name.rfind('-') + 1))] = path;
            EXPECT_GT(p.at("size").as_int64(), 0) << name;
        }
    }
    return view;
}

// Removes a dir the broker may be writing in at that moment (a checkpoint's .tmp renamed during
// the walk fails that pass), so passes again until it is gone.
void remove_dir_in_use(const std::filesystem::path& dir) {
    EXPECT_TRUE(wait_until(
        [&] {
            std::error_code ec;
            std::filesystem::remove_all(dir, ec);
            return !std::filesystem::exists(dir, ec);
        },
        5s))
        << dir;
}

std::vector<OutMessage> messages_for(std::int32_t partition, int count, const std::string& tag) {
    std::vector<OutMessage> out;
    for (int i = 0; i < count; ++i) out.push_back({"t", partition, std::nullopt, tag + std::to_string(i)});
    return out;
}

TEST(LogDirFailure, AFailedDirGoesOfflineTheOtherServesAndLosingBothStopsTheBroker) {
    TempDir disks("weir-disks");
    const auto a = disks.path() / "a";
    const auto b = disks.path() / "b";
    BrokerProcess broker({.overrides = {{"log.dirs", a.string() + "," + b.string()},
                                        {"replica.high.watermark.checkpoint.interval.ms", "200"}}});
    broker.start();
    Admin admin(broker.bootstrap());
    ASSERT_EQ(admin.create_topic("t", kPartitions).err, RD_KAFKA_RESP_ERR_NO_ERROR);
    for (int p = 0; p < kPartitions; ++p)
        for (const auto& d :
             produce_all(broker.bootstrap(), messages_for(p, kPerPartition, "before-"), {{"acks", "all"}}))
            ASSERT_EQ(d.err, RdKafka::ERR_NO_ERROR) << err_name(d.err);

    auto before = describe_dirs(broker);
    ASSERT_EQ(before.errors.size(), 2u);
    for (const auto& [dir, error] : before.errors) EXPECT_TRUE(error.is_null()) << dir;
    ASSERT_EQ(before.partition_dirs.size(), static_cast<std::size_t>(kPartitions));
    std::set<std::int32_t> on_b, on_a;
    for (const auto& [p, dir] : before.partition_dirs) (dir == b.string() ? on_b : on_a).insert(p);
    ASSERT_FALSE(on_a.empty());
    ASSERT_FALSE(on_b.empty());

    // The disk of b goes away; the next write there (a checkpoint) fails.
    remove_dir_in_use(b);
    DirView after;
    ASSERT_TRUE(wait_until(
        [&] {
            after = describe_dirs(broker);
            return !after.errors[b.string()].is_null();
        },
        20s))
        << "dir b never went offline\n"
        << broker.log_tail();
    EXPECT_EQ(after.errors[b.string()].as_string(), "org.apache.kafka.common.errors.KafkaStorageException");
    EXPECT_TRUE(after.errors[a.string()].is_null());
    for (auto p : on_b) EXPECT_FALSE(after.partition_dirs.contains(p)) << p;
    EXPECT_TRUE(broker.running());

    // b's partitions have no leader and take nothing; a's take more and keep everything.
    Producer metadata_producer(broker.bootstrap());
    auto topic = topic_metadata(metadata_producer.handle(), "t", 10s);
    for (const auto& p : topic.partitions) {
        if (on_b.contains(p.id)) {
            EXPECT_EQ(p.leader, -1) << p.id;
            EXPECT_EQ(p.err, RdKafka::ERR_LEADER_NOT_AVAILABLE) << p.id;
        } else {
            EXPECT_EQ(p.leader, 0) << p.id;
        }
    }
    auto refused = produce_all(broker.bootstrap(), messages_for(*on_b.begin(), 1, "refused-"),
                               {{"message.timeout.ms", "3000"}}, 20s);
    ASSERT_EQ(refused.size(), 1u);
    EXPECT_NE(refused[0].err, RdKafka::ERR_NO_ERROR);
    for (auto p : on_a) {
        for (const auto& d : produce_all(broker.bootstrap(), messages_for(p, 1, "after-"), {{"acks", "all"}}))
            EXPECT_EQ(d.err, RdKafka::ERR_NO_ERROR) << err_name(d.err);
        auto consumed = consume_all(broker.bootstrap(), {{"t", p, 0}}, kPerPartition + 1, 20s);
        ASSERT_EQ(consumed.size(), static_cast<std::size_t>(kPerPartition + 1)) << p;
        for (int i = 0; i < kPerPartition; ++i) EXPECT_EQ(consumed[i].value, "before-" + std::to_string(i));
        EXPECT_EQ(consumed.back().value, "after-0");
    }
    auto metrics = http_get(broker.admin_port(), "/metrics");
    EXPECT_NE(metrics.body.find("\nweir_offline_log_dirs 1\n"), std::string::npos);

    // The last dir goes too: the broker stops, exit status 1.
    remove_dir_in_use(a);
    auto status = broker.wait_exit(20s);
    ASSERT_TRUE(status.has_value()) << "the broker kept running without a log dir\n" << broker.log_tail();
    EXPECT_EQ(*status, 1);
    EXPECT_NE(broker.log_tail().find("every log dir is offline"), std::string::npos) << broker.log_tail();
}

// FindCoordinator v0 for group `key`: the answer's error code.
std::int16_t find_coordinator_error(const BrokerProcess& broker, const std::string& key) {
    RawConnection c(broker.port());
    std::vector<std::uint8_t> body;
    append_string(body, key);
    EXPECT_TRUE(c.send(request_frame(10, 0, 7, body)));
    std::vector<std::uint8_t> frame;
    EXPECT_EQ(c.read_frame(frame, 10s), RawConnection::ReadStatus::frame);
    if (frame.size() < 6) return -1;
    EXPECT_EQ(read_be32(frame, 0), 7);
    return read_be16(frame, 4);
}

TEST(LogDirFailure, AGroupCoordinatorInAFailedDirResigns) {
    TempDir disks("weir-disks");
    const auto a = disks.path() / "a";
    const auto b = disks.path() / "b";
    BrokerProcess broker({.overrides = {{"log.dirs", a.string() + "," + b.string()},
                                        {"offsets.topic.num.partitions", "1"},
                                        {"replica.high.watermark.checkpoint.interval.ms", "200"}}});
    broker.start();
    // The first ask creates __consumer_offsets; the coordinator is ready once it is loaded.
    ASSERT_TRUE(wait_until([&] { return find_coordinator_error(broker, "g") == 0; }, 20s)) << broker.log_tail();
    const auto offsets_dir = std::filesystem::exists(a / "__consumer_offsets-0") ? a : b;
    ASSERT_TRUE(std::filesystem::exists(offsets_dir / "__consumer_offsets-0"));

    remove_dir_in_use(offsets_dir);
    std::int16_t error = 0;
    ASSERT_TRUE(wait_until(
        [&] {
            error = find_coordinator_error(broker, "g");
            return error != 0;
        },
        20s))
        << "the broker still coordinates from a failed dir\n"
        << broker.log_tail();
    EXPECT_EQ(error, 15) << "COORDINATOR_NOT_AVAILABLE";
    EXPECT_TRUE(broker.running());
    EXPECT_NE(broker.log_tail().find("offline"), std::string::npos) << broker.log_tail();
}

}  // namespace
}  // namespace weir::compat
