// Idempotent producers (librdkafka, enable.idempotence=true): while the
// broker is frozen past the producer's request timeout and SIGKILLed and
// restarted several times, every message is stored
// exactly once, in the order it was sent, with no gap; a clean restart
// keeps deduplicating from the producer-state snapshot.
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <boost/json.hpp>
#include <filesystem>
#include <iostream>
#include <map>
#include <thread>

#include "harness/admin.h"
#include "harness/broker_process.h"
#include "harness/kafka_client.h"
#include "harness/subprocess.h"
#include "harness/wait.h"

namespace weir::compat {
namespace {

using namespace std::chrono_literals;

constexpr int kPartitions = 2;

OutMessage numbered(const std::string& topic, std::size_t i) {
    return {topic, static_cast<std::int32_t>(i % kPartitions), "k" + std::to_string(i), "id-" + std::to_string(i), {},
            0};
}

std::size_t id_of(const ConsumedMessage& m) {
    if (!m.value || m.value->rfind("id-", 0) != 0) return SIZE_MAX;
    return std::stoul(m.value->substr(3));
}

// Everything up to the high watermarks, per partition in offset order.
std::map<int, std::vector<std::size_t>> read_everything(const std::string& bootstrap, const std::string& topic) {
    Consumer c(bootstrap);
    std::int64_t total = 0;
    std::vector<PartitionOffset> assignment;
    for (int p = 0; p < kPartitions; ++p) {
        const auto wm = c.watermarks(topic, p, 5s);
        EXPECT_TRUE(wm.has_value()) << "watermarks of partition " << p;
        if (!wm) return {};
        total += wm->second - wm->first;
        assignment.push_back({topic, p, RdKafka::Topic::OFFSET_BEGINNING});
    }
    c.assign(assignment);
    auto got = c.consume(static_cast<std::size_t>(total), 60s);
    EXPECT_EQ(got.size(), static_cast<std::size_t>(total));
    std::map<int, std::vector<std::size_t>> ids;
    std::map<int, std::int64_t> next_offset;
    for (const auto& m : got) {
        EXPECT_EQ(m.offset, next_offset[m.partition]) << "offset gap in partition " << m.partition;
        next_offset[m.partition] = m.offset + 1;
        ids[m.partition].push_back(id_of(m));
    }
    return ids;
}

// Every id in [0, sent) exactly once, on its partition, in sending order.
void expect_exactly_once_in_order(const std::map<int, std::vector<std::size_t>>& ids, std::size_t sent) {
    std::size_t stored = 0;
    for (int p = 0; p < kPartitions; ++p) {
        const auto it = ids.find(p);
        const std::vector<std::size_t> none;
        const auto& got = it == ids.end() ? none : it->second;
        stored += got.size();
        std::size_t expected = static_cast<std::size_t>(p);
        for (std::size_t i = 0; i < got.size(); ++i, expected += kPartitions) {
            ASSERT_EQ(got[i], expected) << "partition " << p << " position " << i
                                        << (got[i] < expected ? ": duplicate or reorder" : ": gap");
        }
        ASSERT_GE(expected, sent) << "partition " << p << " ends before id " << expected;
    }
    EXPECT_EQ(stored, sent);
}

TEST(Idempotence, SigkillsAndRestartsLoseNothingAndDuplicateNothing) {
    // Small segments: rolls (and their producer snapshots) happen between kills.
    BrokerProcess broker(BrokerOptions{{{"log.segment.bytes", "262144"}}});
    broker.start();
    const std::string topic = "idempotent";
    {
        Admin admin(broker.bootstrap());
        const auto r = admin.create_topic(topic, kPartitions);
        ASSERT_EQ(r.err, RD_KAFKA_RESP_ERR_NO_ERROR) << r.describe();
    }

    Producer producer(broker.bootstrap(), {{"enable.idempotence", "true"},
                                           {"linger.ms", "2"},
                                           {"batch.num.messages", "200"},
                                           {"message.timeout.ms", "120000"},
                                           {"retry.backoff.ms", "50"},
                                           {"socket.timeout.ms", "1000"}});
    std::atomic<bool> stop{false};
    std::atomic<std::size_t> sent{0};
    std::atomic<bool> local_error{false};
    std::thread writer([&] {
        constexpr std::size_t kMax = 400'000;
        const auto deadline = std::chrono::steady_clock::now() + 90s;
        for (std::size_t i = 0; i < kMax && !stop && std::chrono::steady_clock::now() < deadline; ++i) {
            auto err = producer.try_send(numbered(topic, i));
            while (!stop && err == RdKafka::ERR__QUEUE_FULL) {
                producer.poll(5ms);
                err = producer.try_send(numbered(topic, i));
            }
            if (err != RdKafka::ERR_NO_ERROR) {
                if (err != RdKafka::ERR__QUEUE_FULL) local_error = true;
                break;
            }
            sent = i + 1;
            producer.poll(0ms);
        }
    });

    // Each round first freezes the broker for longer than the producer's
    // socket.timeout.ms: the client gives up on requests the broker then
    // appends once it runs again, and sends them again (the duplicates a
    // producer without idempotence stores). Then the broker is SIGKILLed and
    // restarted, and the producer state must come back from disk.
    constexpr int kKills = 4;
    auto progress = [&](int round) {
        const auto target = producer.ok_count() + 3000;
        const bool progressed = wait_until([&] { return producer.ok_count() >= target || local_error; }, 30s);
        if (progressed && !local_error) return true;
        stop = true;
        writer.join();
        ADD_FAILURE() << "no progress in round " << round << ": " << producer.ok_count()
                      << " acknowledged, local error " << local_error.load();
        return false;
    };
    for (int round = 0; round < kKills; ++round) {
        if (!progress(round)) return;
        ASSERT_EQ(::kill(broker.pid(), SIGSTOP), 0);
        std::this_thread::sleep_for(3s);
        ASSERT_EQ(::kill(broker.pid(), SIGCONT), 0);
        if (!progress(round)) return;
        broker.kill();
        std::this_thread::sleep_for(200ms);  // in-flight requests fail, the producer retries
        broker.start();
    }
    const auto target = producer.ok_count() + 3000;
    EXPECT_TRUE(wait_until([&] { return producer.ok_count() >= target; }, 30s)) << "no progress after the last restart";
    stop = true;
    writer.join();
    ASSERT_FALSE(local_error) << "the producer refused a message (fatal idempotence error?)";
    ASSERT_TRUE(producer.flush(60s)) << "not every message was resolved";

    const auto reports = producer.deliveries();
    ASSERT_EQ(reports.size(), sent.load());
    for (std::size_t i = 0; i < reports.size(); ++i)
        ASSERT_EQ(reports[i].err, RdKafka::ERR_NO_ERROR) << "message " << i << ": " << err_name(reports[i].err);

    const auto ids = read_everything(broker.bootstrap(), topic);
    std::cout << "[compat] sent " << sent << " through " << kKills << " freezes and SIGKILLs, stored "
              << (ids.count(0) ? ids.at(0).size() : 0) + (ids.count(1) ? ids.at(1).size() : 0) << "\n";
    expect_exactly_once_in_order(ids, sent);
}

TEST(Idempotence, AProducerGoesOnAcrossACleanRestart) {
    BrokerProcess broker;
    broker.start();
    const std::string topic = "idempotent-clean";
    {
        Admin admin(broker.bootstrap());
        const auto r = admin.create_topic(topic, kPartitions);
        ASSERT_EQ(r.err, RD_KAFKA_RESP_ERR_NO_ERROR) << r.describe();
    }
    Producer producer(broker.bootstrap(), {{"enable.idempotence", "true"}, {"message.timeout.ms", "60000"}});
    constexpr std::size_t kFirst = 2000;
    for (std::size_t i = 0; i < kFirst; ++i) producer.send(numbered(topic, i));
    ASSERT_TRUE(producer.flush(30s));
    ASSERT_EQ(broker.restart(), 0) << "SIGTERM should be a clean shutdown";
    const auto snapshots = [&] {
        std::size_t n = 0;
        for (const auto& entry : std::filesystem::recursive_directory_iterator(broker.data_dir()))
            if (entry.path().extension() == ".snapshot") ++n;
        return n;
    }();
    EXPECT_GE(snapshots, static_cast<std::size_t>(kPartitions)) << "no producer snapshot written at clean shutdown";
    // The same producer goes on with its sequences after the restart.
    for (std::size_t i = kFirst; i < 2 * kFirst; ++i) producer.send(numbered(topic, i));
    ASSERT_TRUE(producer.flush(30s));
    for (const auto& d : producer.deliveries()) ASSERT_EQ(d.err, RdKafka::ERR_NO_ERROR) << err_name(d.err);
    expect_exactly_once_in_order(read_everything(broker.bootstrap(), topic), 2 * kFirst);
}

// kafkajs's idempotent producer: its InitProducerId and sequences accepted,
// every message stored once, in order (kafkajs/idempotent.js).
TEST(Idempotence, KafkajsIdempotentProducer) {
    ASSERT_STRNE(WEIR_NODE, "") << "node not found";
    const auto dir = std::filesystem::path(WEIR_COMPAT_SOURCE_DIR) / "kafkajs";
    ASSERT_TRUE(std::filesystem::exists(dir / "node_modules" / "kafkajs")) << "run scripts/install-deps.sh";
    BrokerOptions options;
    options.overrides["group.initial.rebalance.delay.ms"] = "0";
    BrokerProcess broker(options);
    broker.start();
    const auto r = run_process({WEIR_NODE, (dir / "idempotent.js").string(), broker.bootstrap(), "kjs-idem"}, 90s);
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    const auto result = boost::json::parse(r.out).as_object();
    for (const auto& o : result.at("offsets").as_array()) EXPECT_EQ(o.at("high").as_int64(), 1000);
    std::map<int, std::vector<std::size_t>> ids;
    for (const auto& [partition, values] : result.at("got").as_object())
        for (const auto& v : values.as_array())
            ids[std::stoi(std::string(partition))].push_back(static_cast<std::size_t>(v.as_int64()));
    expect_exactly_once_in_order(ids, 2000);
}

}  // namespace
}  // namespace weir::compat
