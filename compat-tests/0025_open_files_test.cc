// Open files follow weir.log.max.open.files, not the partition count: a
// broker allowed 128 descriptors hosts 300 partitions, takes a message in
// each, serves every one back, and restarts cleanly with all of them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "harness/admin.h"
#include "harness/broker_process.h"
#include "harness/kafka_client.h"

namespace weir::compat {
namespace {

using namespace std::chrono_literals;

std::size_t count_entries(const std::filesystem::path& dir) {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++n;
    return n;
}

std::size_t count_lines(const std::filesystem::path& file) {
    std::ifstream in(file);
    std::size_t n = 0;
    for (std::string line; std::getline(in, line);) ++n;
    return n;
}

void expect_each_partition_once(const std::string& bootstrap, const std::string& topic, int partitions) {
    Consumer c(bootstrap);
    std::vector<PartitionOffset> assignment;
    for (int p = 0; p < partitions; ++p) assignment.push_back({topic, p, RdKafka::Topic::OFFSET_BEGINNING});
    c.assign(assignment);
    const auto got = c.consume(static_cast<std::size_t>(partitions), 60s);
    ASSERT_EQ(got.size(), static_cast<std::size_t>(partitions));
    std::map<int, std::string> by_partition;
    for (const auto& m : got) {
        EXPECT_EQ(m.offset, 0) << "partition " << m.partition;
        by_partition[m.partition] = m.value.value_or("");
    }
    ASSERT_EQ(by_partition.size(), static_cast<std::size_t>(partitions));
    for (const auto& [p, value] : by_partition) EXPECT_EQ(value, "v" + std::to_string(p));
}

TEST(OpenFiles, ThreeHundredPartitionsWithinAHundredAndTwentyEightDescriptors) {
    constexpr int kPartitions = 300;
    BrokerOptions options;
    options.max_open_files = 128;
    options.overrides["weir.log.max.open.files"] = "32";
    BrokerProcess broker(options);
    broker.start();
    const std::string topic = "wide";
    {
        Admin admin(broker.bootstrap());
        const auto r = admin.create_topic(topic, kPartitions);
        ASSERT_EQ(r.err, RD_KAFKA_RESP_ERR_NO_ERROR) << r.describe();
    }
    std::vector<OutMessage> messages;
    for (int p = 0; p < kPartitions; ++p) messages.push_back({topic, p, "k", "v" + std::to_string(p), {}, 0});
    for (const auto& d : produce_all(broker.bootstrap(), messages, {{"acks", "all"}}, 60s))
        ASSERT_EQ(d.err, RdKafka::ERR_NO_ERROR) << "partition " << d.partition << ": " << err_name(d.err);
    expect_each_partition_once(broker.bootstrap(), topic, kPartitions);

    const auto proc = std::filesystem::path("/proc") / std::to_string(broker.pid());
    // The budget's 32, the listeners, the event loop and a few connections.
    EXPECT_LT(count_entries(proc / "fd"), 80u);
    // Every index of 300 partitions mapped would be 600 mappings.
    EXPECT_LT(count_lines(proc / "maps"), 400u);

    ASSERT_EQ(broker.stop(), 0) << "SIGTERM should be a clean shutdown\n" << broker.log_tail();
    broker.start();
    expect_each_partition_once(broker.bootstrap(), topic, kPartitions);
}

}  // namespace
}  // namespace weir::compat
