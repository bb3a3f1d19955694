// Hostile and broken clients against memory and connection bounds: frame
// headers declaring huge sizes, clients that stop mid-frame, pipelined fetches
// that are never read, the file-descriptor limit, and max.connections(.per.ip).
// Every case also checks that a well-behaved client is still served.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "harness/broker_process.h"
#include "harness/kafka_client.h"
#include "harness/raw_connection.h"
#include "harness/wait.h"

namespace weir::compat {
namespace {

using namespace std::chrono_literals;
using Bytes = std::vector<std::uint8_t>;

constexpr std::int16_t kApiVersions = 18;
constexpr std::int16_t kFetch = 1;

std::int64_t rss_bytes(pid_t pid) {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmRSS:", 0) == 0) return std::stoll(line.substr(6)) * 1024;
    return -1;
}

std::size_t count_in_log(const BrokerProcess& broker, const std::string& needle) {
    std::ifstream log(broker.log_path());
    std::string line;
    std::size_t n = 0;
    while (std::getline(log, line)) n += line.find(needle) != std::string::npos;
    return n;
}

// ApiVersions v0 answered on this connection within `timeout`.
bool answers(RawConnection& c, std::int32_t correlation_id, std::chrono::milliseconds timeout) {
    if (!c.send(request_frame(kApiVersions, 0, correlation_id, {}))) return false;
    Bytes frame;
    return c.read_frame(frame, timeout) == RawConnection::ReadStatus::frame && frame.size() >= 4 &&
           read_be32(frame, 0) == correlation_id;
}

// A well-behaved client still produces and reads back.
void expect_served(const BrokerProcess& broker, const std::string& topic) {
    Producer p(broker.bootstrap(), {{"linger.ms", "0"}, {"message.timeout.ms", "15000"}});
    for (int i = 0; i < 10; ++i) p.send({topic, 0, "k", "v" + std::to_string(i), {}, 0});
    ASSERT_TRUE(p.flush(20s));
    for (const auto& d : p.deliveries()) ASSERT_EQ(d.err, RdKafka::ERR_NO_ERROR) << err_name(d.err);
    auto got = consume_all(broker.bootstrap(), {{topic, 0, 0}}, 10, 20s);
    EXPECT_EQ(got.size(), 10u);
}

void append_be64(Bytes& b, std::int64_t v) {
    for (int s = 56; s >= 0; s -= 8) b.push_back(static_cast<std::uint8_t>(v >> s));
}

// Fetch v4 of one partition from offset 0.
Bytes fetch_v4(const std::string& topic, std::int32_t max_bytes) {
    Bytes b;
    append_be32(b, -1);         // replica_id
    append_be32(b, 0);          // max_wait_ms
    append_be32(b, 0);          // min_bytes
    append_be32(b, max_bytes);  // max_bytes
    b.push_back(0);             // isolation_level
    append_be32(b, 1);
    append_string(b, topic);
    append_be32(b, 1);
    append_be32(b, 0);  // partition
    append_be64(b, 0);  // fetch_offset
    append_be32(b, max_bytes);
    return b;
}

TEST(HostileClients, HugeDeclaredFramesCostOnlyWhatArrives) {
    BrokerProcess broker;
    broker.start();
    const auto before = rss_bytes(broker.pid());
    // Each declares 100 MB (socket.request.max.bytes allows it) and sends 1 KB.
    std::vector<std::unique_ptr<RawConnection>> hostile;
    for (int i = 0; i < 20; ++i) {
        hostile.push_back(std::make_unique<RawConnection>(broker.port()));
        Bytes partial = be32(100'000'000);
        partial.resize(partial.size() + 1000, 0x41);
        ASSERT_TRUE(hostile.back()->send(partial));
    }
    expect_served(broker, "calm");
    const auto during = rss_bytes(broker.pid());
    // Allocating the declared sizes would be 2 GB.
    EXPECT_LT(during - before, 200ll << 20) << "RSS before " << before << ", with 20 huge frames pending " << during;
    EXPECT_TRUE(broker.running());
}

TEST(HostileClients, AClientStallingMidFrameIsClosed) {
    BrokerProcess broker({.overrides = {{"weir.connection.stall.timeout.ms", "500"}}});
    broker.start();
    RawConnection c(broker.port());
    Bytes partial = be32(1000);
    partial.resize(partial.size() + 10, 0);
    ASSERT_TRUE(c.send(partial));
    EXPECT_TRUE(c.wait_closed(10s)) << "a frame stalled mid-way kept its connection";
    EXPECT_GE(count_in_log(broker, "request frame not complete"), 1u);
    // A connection between requests is not affected by the stall timeout.
    RawConnection idle(broker.port());
    ASSERT_TRUE(answers(idle, 1, 5s));
    std::this_thread::sleep_for(1500ms);
    EXPECT_TRUE(answers(idle, 2, 5s));
}

TEST(HostileClients, FetchersThatNeverReadAreMutedByTheBudget) {
    BrokerProcess broker({.overrides = {{"queued.max.request.bytes", std::to_string(16 << 20)},
                                        {"weir.connection.stall.timeout.ms", "120000"}}});
    broker.start();
    {
        Producer p(broker.bootstrap(), {{"linger.ms", "5"}});
        for (int i = 0; i < 40; ++i) p.send({"big", 0, "k", payload(i, 100'000), {}, 0});
        ASSERT_TRUE(p.flush(30s));
    }
    const auto before = rss_bytes(broker.pid());
    // 40 connections pipeline 40 fetches of 1 MB each and never read: about
    // 1.6 GB of responses without a broker-wide budget (64 MB per connection).
    std::vector<std::unique_ptr<RawConnection>> hostile;
    const auto request = fetch_v4("big", 1 << 20);
    for (int i = 0; i < 40; ++i) {
        hostile.push_back(std::make_unique<RawConnection>(broker.port()));
        for (int r = 0; r < 40; ++r) hostile.back()->send(request_frame(kFetch, 4, r, request));
    }
    std::this_thread::sleep_for(2s);
    RawConnection calm(broker.port());
    EXPECT_TRUE(answers(calm, 1, 5s)) << "a new connection was not served";
    EXPECT_TRUE(answers(calm, 2, 5s)) << "a second request was not served";
    expect_served(broker, "calm");
    const auto during = rss_bytes(broker.pid());
    EXPECT_LT(during - before, 400ll << 20) << "RSS before " << before << ", with never-reading fetchers " << during;
}

TEST(HostileClients, AcceptBacksOffAtTheFileDescriptorLimit) {
    BrokerProcess broker({.max_open_files = 64});
    broker.start();
    std::vector<std::unique_ptr<RawConnection>> many;
    for (int i = 0; i < 100; ++i) many.push_back(std::make_unique<RawConnection>(broker.port()));
    std::this_thread::sleep_for(3s);
    const auto warnings = count_in_log(broker, "accept failed");
    EXPECT_GE(warnings, 1u) << "the limit was never reached";
    EXPECT_LE(warnings, 3u) << "accept failures are logged without a rate limit";
    many.clear();
    // Descriptors come back as the broker sees the connections close.
    bool served = wait_until(
        [&] {
            try {
                RawConnection c(broker.port());
                return answers(c, 7, 2s);
            } catch (const std::exception&) {
                return false;
            }
        },
        20s, 200ms);
    EXPECT_TRUE(served) << "the acceptor did not recover";
    EXPECT_TRUE(broker.running());
}

TEST(HostileClients, MaxConnectionsPerIpClosesTheOneTooMany) {
    BrokerProcess broker({.overrides = {{"max.connections.per.ip", "3"}}});
    broker.start();
    std::vector<std::unique_ptr<RawConnection>> open;
    // The readiness check's own connections may still be closing.
    ASSERT_TRUE(wait_until(
        [&] {
            open.clear();
            for (int i = 0; i < 3; ++i) {
                open.push_back(std::make_unique<RawConnection>(broker.port()));
                if (!answers(*open.back(), i, 2s)) return false;
            }
            return true;
        },
        20s, 200ms));
    RawConnection extra(broker.port());
    EXPECT_TRUE(extra.wait_closed(5s)) << "a fourth connection from 127.0.0.1 was kept";
    open.pop_back();
    EXPECT_TRUE(wait_until(
        [&] {
            RawConnection again(broker.port());
            return answers(again, 9, 2s);
        },
        10s, 200ms));
    EXPECT_GE(count_in_log(broker, "max.connections.per.ip"), 1u);
}

TEST(HostileClients, MaxConnectionsLeavesTheNextInTheBacklog) {
    BrokerProcess broker({.overrides = {{"max.connections", "2"}}});
    broker.start();
    auto a = std::make_unique<RawConnection>(broker.port());
    auto b = std::make_unique<RawConnection>(broker.port());
    ASSERT_TRUE(wait_until([&] { return answers(*a, 1, 2s); }, 10s));
    ASSERT_TRUE(answers(*b, 2, 5s));
    RawConnection waiting(broker.port());
    ASSERT_TRUE(waiting.send(request_frame(kApiVersions, 0, 3, {})));
    Bytes frame;
    EXPECT_EQ(waiting.read_frame(frame, 1500ms), RawConnection::ReadStatus::timeout);
    a.reset();
    ASSERT_EQ(waiting.read_frame(frame, 10s), RawConnection::ReadStatus::frame) << "not accepted after one closed";
    EXPECT_EQ(read_be32(frame, 0), 3);
}

}  // namespace
}  // namespace weir::compat
