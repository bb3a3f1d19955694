// 10,000 keyed messages with headers over 4 partitions, for every compression
// codec and acks setting, consumed back and compared byte for byte.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>

#include "harness/admin.h"
#include "harness/broker_process.h"
#include "harness/kafka_client.h"

namespace weir::compat {
namespace {

using namespace std::chrono_literals;

constexpr int kMessages = 10'000;
constexpr int kPartitions = 4;
constexpr std::int64_t kBaseTimestamp = 1'700'000'000'000;

OutMessage make_message(const std::string& topic, int i) {
    OutMessage m;
    m.topic = topic;
    m.key = "key-" + std::to_string(i);
    if (i % 1000 == 0) {
        m.value = std::nullopt;  // tombstone
    } else if (i % 1000 == 1) {
        m.value = std::string();
    } else {
        m.value = "value-" + std::to_string(i) + "-" +
                  payload(static_cast<std::uint64_t>(i), static_cast<std::size_t>(i % 200));
    }
    m.headers.push_back({"seq", std::to_string(i)});
    m.headers.push_back({"bin", payload(static_cast<std::uint64_t>(i) + 7, static_cast<std::size_t>(i % 16))});
    if (i % 10 == 0) m.headers.push_back({"null", std::nullopt});
    if (i % 100 == 0) m.headers.push_back({"seq", "duplicate-key"});
    m.timestamp = kBaseTimestamp + i;
    return m;
}

int index_of(const ConsumedMessage& c) {
    if (!c.key || c.key->rfind("key-", 0) != 0) return -1;
    return std::stoi(c.key->substr(4));
}

using Param = std::tuple<std::string, std::string>;  // codec, acks

class ProduceConsume : public ::testing::TestWithParam<Param> {};

TEST_P(ProduceConsume, RoundTripByteExact) {
    const auto& [codec, acks] = GetParam();
    BrokerProcess broker;
    broker.start();
    const std::string topic = "pc-" + codec;
    {
        Admin admin(broker.bootstrap());
        const auto r = admin.create_topic(topic, kPartitions);
        ASSERT_EQ(r.err, RD_KAFKA_RESP_ERR_NO_ERROR) << r.describe();
    }

    std::vector<OutMessage> produced;
    for (int i = 0; i < kMessages; ++i) produced.push_back(make_message(topic, i));
    const auto deliveries = produce_all(broker.bootstrap(), produced,
                                        {{"compression.codec", codec}, {"acks", acks}, {"linger.ms", "10"}}, 45s);
    ASSERT_EQ(deliveries.size(), produced.size());
    std::map<int, int> per_partition_produced;
    for (int i = 0; i < kMessages; ++i) {
        const auto& d = deliveries[static_cast<std::size_t>(i)];
        ASSERT_TRUE(d.done) << "no delivery report for message " << i;
        ASSERT_EQ(d.err, RdKafka::ERR_NO_ERROR) << "message " << i << ": " << err_name(d.err);
        ASSERT_GE(d.partition, 0);
        ASSERT_LT(d.partition, kPartitions);
        if (acks != "0") {
            ASSERT_GE(d.offset, 0) << "message " << i;
        }
        ++per_partition_produced[d.partition];
    }
    EXPECT_EQ(per_partition_produced.size(), static_cast<std::size_t>(kPartitions)) << "keys should spread";

    std::vector<PartitionOffset> assignment;
    for (int p = 0; p < kPartitions; ++p) assignment.push_back({topic, p, RdKafka::Topic::OFFSET_BEGINNING});
    Consumer consumer(broker.bootstrap(), {{"check.crcs", "true"}});
    consumer.assign(assignment);
    auto consumed = consumer.consume(kMessages, 45s);
    ASSERT_EQ(consumed.size(), static_cast<std::size_t>(kMessages)) << "consumer errors: " << consumer.errors().size();
    EXPECT_FALSE(consumer.consume_one(300ms).has_value()) << "more messages than produced";
    EXPECT_TRUE(consumer.errors().empty()) << consumer.errors().front();

    std::vector<int> seen(kMessages, 0);
    std::map<int, std::vector<std::pair<std::int64_t, int>>> by_partition;  // partition -> (offset, index)
    int mismatches = 0;
    for (const auto& c : consumed) {
        const int i = index_of(c);
        ASSERT_GE(i, 0) << "unexpected key in partition " << c.partition << " offset " << c.offset;
        ASSERT_LT(i, kMessages);
        ++seen[static_cast<std::size_t>(i)];
        const auto& want = produced[static_cast<std::size_t>(i)];
        const auto& d = deliveries[static_cast<std::size_t>(i)];
        by_partition[c.partition].emplace_back(c.offset, i);
        if (mismatches > 10) continue;  // keep the failure output readable
        const bool same = c.topic == topic && c.key == want.key && c.value == want.value && c.headers == want.headers &&
                          c.partition == d.partition && c.timestamp == want.timestamp &&
                          c.timestamp_type == RdKafka::MessageTimestamp::MSG_TIMESTAMP_CREATE_TIME &&
                          (acks == "0" || c.offset == d.offset);
        if (!same) {
            ++mismatches;
            ADD_FAILURE() << "message " << i << " differs: partition " << c.partition << " (produced to " << d.partition
                          << "), offset " << c.offset << " (reported " << d.offset << "), value "
                          << (c.value == want.value ? "same" : "DIFFERENT") << ", headers "
                          << (c.headers == want.headers ? "same" : "DIFFERENT") << " (" << c.headers.size() << " vs "
                          << want.headers.size() << "), timestamp " << c.timestamp << " type " << c.timestamp_type
                          << " (want " << want.timestamp << " CreateTime)";
        }
    }
    for (int i = 0; i < kMessages; ++i) {
        ASSERT_EQ(seen[static_cast<std::size_t>(i)], 1)
            << "message " << i << " seen " << seen[static_cast<std::size_t>(i)] << " times";
    }
    for (auto& [partition, entries] : by_partition) {
        // Consumed in offset order, offsets 0..n-1 without gaps.
        for (std::size_t k = 0; k < entries.size(); ++k) {
            ASSERT_EQ(entries[k].first, static_cast<std::int64_t>(k)) << "partition " << partition << " position " << k;
            // Per-partition production order is preserved (acks=0 is compared by content only).
            if (acks != "0" && k > 0) {
                ASSERT_LT(entries[k - 1].second, entries[k].second) << "partition " << partition << " offset " << k;
            }
        }
        EXPECT_EQ(entries.size(), static_cast<std::size_t>(per_partition_produced[partition]));
        const auto wm = consumer.watermarks(topic, partition, 5s);
        ASSERT_TRUE(wm.has_value());
        EXPECT_EQ(wm->first, 0);
        EXPECT_EQ(wm->second, static_cast<std::int64_t>(entries.size())) << "high watermark of partition " << partition;
    }
}

INSTANTIATE_TEST_SUITE_P(Codecs, ProduceConsume,
                         ::testing::Combine(::testing::Values("none", "gzip", "snappy", "lz4", "zstd"),
                                            ::testing::Values("0", "1", "all")),
                         [](const ::testing::TestParamInfo<Param>& p) {
                             return std::get<0>(p.param) + "_acks_" + std::get<1>(p.param);
                         });

}  // namespace
}  // namespace weir::compat
