// Durability across restarts: a clean SIGTERM restart keeps everything; a
// SIGKILL in the middle of an acks=all produce stream keeps every message
// whose delivery was acknowledged, with contiguous offsets.
#include <gtest/gtest.h>

#include <atomic>
#include <iostream>
#include <map>
#include <set>
#include <thread>

#include "harness/admin.h"
#include "harness/broker_process.h"
#include "harness/kafka_client.h"
#include "harness/wait.h"

namespace weir::compat {
namespace {

using namespace std::chrono_literals;

OutMessage numbered(const std::string& topic, std::size_t i) {
    return {topic, RdKafka::Topic::PARTITION_UA, "k" + std::to_string(i % 97), "id-" + std::to_string(i), {}, 0};
}

std::size_t id_of(const ConsumedMessage& m) {
    if (!m.value || m.value->rfind("id-", 0) != 0) return SIZE_MAX;
    return std::stoul(m.value->substr(3));
}

// Reads partitions 0..n-1 completely (up to their high watermarks).
std::vector<ConsumedMessage> read_everything(const std::string& bootstrap, const std::string& topic, int partitions,
                                             std::int64_t* total_out) {
    Consumer c(bootstrap);
    std::int64_t total = 0;
    std::vector<PartitionOffset> assignment;
    for (int p = 0; p < partitions; ++p) {
        const auto wm = c.watermarks(topic, p, 5s);
        EXPECT_TRUE(wm.has_value()) << "watermarks of partition " << p;
        if (!wm) return {};
        EXPECT_EQ(wm->first, 0) << "log start offset of partition " << p;
        total += wm->second;
        assignment.push_back({topic, p, RdKafka::Topic::OFFSET_BEGINNING});
    }
    *total_out = total;
    c.assign(assignment);
    auto got = c.consume(static_cast<std::size_t>(total), 30s);
    EXPECT_FALSE(c.consume_one(200ms).has_value()) << "messages beyond the high watermark";
    return got;
}

void expect_contiguous(const std::vector<ConsumedMessage>& got) {
    std::map<int, std::int64_t> next;
    for (const auto& m : got) {
        ASSERT_EQ(m.offset, next[m.partition]) << "gap or reorder in partition " << m.partition;
        ++next[m.partition];
    }
}

TEST(Durability, CleanRestartKeepsEverything) {
    BrokerProcess broker;
    broker.start();
    const std::string topic = "durable";
    {
        Admin admin(broker.bootstrap());
        const auto r = admin.create_topic(topic, 2);
        ASSERT_EQ(r.err, RD_KAFKA_RESP_ERR_NO_ERROR) << r.describe();
    }
    constexpr std::size_t kCount = 2000;
    std::vector<OutMessage> first;
    for (std::size_t i = 0; i < kCount; ++i) first.push_back(numbered(topic, i));
    for (const auto& d : produce_all(broker.bootstrap(), first, {{"acks", "all"}})) {
        ASSERT_EQ(d.err, RdKafka::ERR_NO_ERROR) << err_name(d.err);
    }

    ASSERT_EQ(broker.stop(), 0) << "SIGTERM should be a clean shutdown";
    broker.start();

    std::int64_t total = 0;
    auto got = read_everything(broker.bootstrap(), topic, 2, &total);
    ASSERT_EQ(total, static_cast<std::int64_t>(kCount));
    ASSERT_EQ(got.size(), kCount);
    expect_contiguous(got);
    std::set<std::size_t> ids;
    for (const auto& m : got) ids.insert(id_of(m));
    EXPECT_EQ(ids.size(), kCount);
    EXPECT_EQ(*ids.rbegin(), kCount - 1);

    // Appends after the restart continue the offsets.
    std::vector<OutMessage> more;
    for (std::size_t i = kCount; i < kCount + 100; ++i) more.push_back(numbered(topic, i));
    for (const auto& d : produce_all(broker.bootstrap(), more, {{"acks", "all"}})) {
        ASSERT_EQ(d.err, RdKafka::ERR_NO_ERROR) << err_name(d.err);
    }
    got = read_everything(broker.bootstrap(), topic, 2, &total);
    ASSERT_EQ(got.size(), kCount + 100);
    expect_contiguous(got);
}

TEST(Durability, SigkillMidProduceKeepsAcknowledged) {
    BrokerProcess broker;
    broker.start();
    const std::string topic = "crash";
    constexpr int kPartitions = 2;
    {
        Admin admin(broker.bootstrap());
        const auto r = admin.create_topic(topic, kPartitions);
        ASSERT_EQ(r.err, RD_KAFKA_RESP_ERR_NO_ERROR) << r.describe();
    }

    Producer producer(broker.bootstrap(), {{"acks", "all"}, {"linger.ms", "2"}, {"message.timeout.ms", "30000"}});
    std::atomic<bool> stop{false};
    std::atomic<std::size_t> sent{0};
    std::thread writer([&] {
        constexpr std::size_t kMax = 500'000;
        const auto deadline = std::chrono::steady_clock::now() + 30s;
        for (std::size_t i = 0; i < kMax && !stop && std::chrono::steady_clock::now() < deadline; ++i) {
            while (!stop && producer.try_send(numbered(topic, i)) == RdKafka::ERR__QUEUE_FULL) producer.poll(5ms);
            sent = i + 1;
            producer.poll(0ms);
        }
    });

    // Let a good amount be acknowledged, then pull the plug mid-stream.
    const bool enough = wait_until([&] { return producer.ok_count() >= 5000; }, 20s);
    broker.kill();
    stop = true;
    writer.join();
    ASSERT_TRUE(enough) << "only " << producer.ok_count() << " acknowledged before the kill";
    const auto acked_before_kill = producer.deliveries();

    broker.start();
    EXPECT_TRUE(producer.flush(25s)) << "not all in-flight messages were resolved after the restart";
    const auto final_reports = producer.deliveries();

    std::int64_t total = 0;
    const auto got = read_everything(broker.bootstrap(), topic, kPartitions, &total);
    ASSERT_EQ(got.size(), static_cast<std::size_t>(total));
    expect_contiguous(got);

    std::map<std::size_t, int> copies;
    for (const auto& m : got) ++copies[id_of(m)];
    ASSERT_FALSE(copies.contains(SIZE_MAX)) << "unexpected message content";
    std::size_t acked = 0, acked_after = 0, duplicates = 0, failed = 0, ok_before_count = 0;
    for (std::size_t i = 0; i < final_reports.size(); ++i) {
        const bool ok_before = i < acked_before_kill.size() && acked_before_kill[i].done &&
                               acked_before_kill[i].err == RdKafka::ERR_NO_ERROR;
        const auto& r = final_reports[i];
        const int n = copies.contains(i) ? copies[i] : 0;
        if (r.err != RdKafka::ERR_NO_ERROR || !r.done) ++failed;
        if (r.done && r.err == RdKafka::ERR_NO_ERROR) {
            ++acked;
            if (!ok_before) ++acked_after;
            ASSERT_GE(n, 1) << "acknowledged message " << i << " lost (acked " << (ok_before ? "before" : "after")
                            << " the kill)";
        }
        if (ok_before) {
            ++ok_before_count;
            ASSERT_EQ(n, 1) << "message " << i << " acknowledged before the kill appears " << n << " times";
        }
        if (n > 1) duplicates += static_cast<std::size_t>(n - 1);
    }
    for (const auto& entry : copies) ASSERT_LT(entry.first, final_reports.size()) << "message never produced";
    std::cout << "[compat] sent " << sent << ", acked " << acked << " (" << acked_after
              << " after the restart), failed " << failed << ", stored " << got.size() << ", duplicates " << duplicates
              << "\n";
    RecordProperty("duplicates", std::to_string(duplicates));
    // Only retried (unacknowledged at kill time) messages can be duplicated.
    EXPECT_LE(duplicates, final_reports.size() - ok_before_count);
}

}  // namespace
}  // namespace weir::compat
