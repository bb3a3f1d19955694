// Error paths: oversized messages, unknown topics without auto-creation, and
// malformed frames on raw sockets that must not take the broker down.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness/broker_process.h"
#include "harness/kafka_client.h"
#include "harness/raw_connection.h"

namespace weir::compat {
namespace {

using namespace std::chrono_literals;
using Bytes = std::vector<std::uint8_t>;

constexpr std::int16_t kApiVersions = 18;
constexpr std::int16_t kMetadata = 3;
constexpr std::int16_t kProduce = 0;

TEST(Errors, MessageLargerThanMessageMaxBytes) {
    BrokerProcess broker({.overrides = {{"message.max.bytes", "10000"}}});
    broker.start();
    Producer p(broker.bootstrap(), {{"compression.codec", "none"}, {"linger.ms", "0"}});
    p.send({"big", 0, "k", std::string(20'000, 'x'), {}, 0});
    ASSERT_TRUE(p.flush(15s));
    EXPECT_EQ(p.deliveries().at(0).err, RdKafka::ERR_MSG_SIZE_TOO_LARGE) << err_name(p.deliveries().at(0).err);

    // The rejected batch took no offset; a small one still works.
    p.send({"big", 0, "k", std::string(100, 'y'), {}, 0});
    ASSERT_TRUE(p.flush(15s));
    EXPECT_EQ(p.deliveries().at(1).err, RdKafka::ERR_NO_ERROR) << err_name(p.deliveries().at(1).err);
    EXPECT_EQ(p.deliveries().at(1).offset, 0);
}

TEST(Errors, UnknownTopicWithoutAutoCreate) {
    BrokerProcess broker({.overrides = {{"auto.create.topics.enable", "false"}}});
    broker.start();
    Producer p(broker.bootstrap(), {{"topic.metadata.propagation.max.ms", "1000"}, {"message.timeout.ms", "5000"}});
    // librdkafka producers ask for auto-creation; the broker must refuse with the topic-level error.
    const auto md = topic_metadata(p.handle(), "missing", 5s);
    EXPECT_EQ(md.err, RdKafka::ERR_UNKNOWN_TOPIC_OR_PART) << err_name(md.err);
    EXPECT_TRUE(md.partitions.empty());

    p.send({"missing", RdKafka::Topic::PARTITION_UA, "k", "v", {}, 0});
    ASSERT_TRUE(p.flush(15s));
    const auto err = p.deliveries().at(0).err;
    EXPECT_TRUE(err == RdKafka::ERR__UNKNOWN_TOPIC || err == RdKafka::ERR_UNKNOWN_TOPIC_OR_PART) << err_name(err);
    EXPECT_FALSE(cluster_metadata(p.handle(), 5s).topics.contains("missing")) << "topic was created anyway";
}

// A valid ApiVersions v0 exchange on a fresh connection; proves the broker is alive and sane.
void expect_api_versions_ok(std::uint16_t port, std::int32_t correlation_id) {
    RawConnection c(port);
    ASSERT_TRUE(c.send(request_frame(kApiVersions, 0, correlation_id, {})));
    Bytes frame;
    ASSERT_EQ(c.read_frame(frame, 5s), RawConnection::ReadStatus::frame);
    ASSERT_GE(frame.size(), 6u);
    EXPECT_EQ(read_be32(frame, 0), correlation_id);
    EXPECT_EQ(read_be16(frame, 4), 0) << "ApiVersions v0 error_code";
}

struct Malformed {
    std::string name;
    Bytes bytes;
};

std::vector<Malformed> malformed_frames() {
    std::vector<Malformed> out;
    {
        Bytes garbage = be32(32);
        const std::string noise = payload(42, 32);
        garbage.insert(garbage.end(), noise.begin(), noise.end());
        out.push_back({"garbage", garbage});
    }
    {
        Bytes neg = be32(-5);
        neg.insert(neg.end(), {1, 2, 3, 4, 5});
        out.push_back({"negative size", neg});
    }
    {
        // Above socket.request.max.bytes (100 MiB default): must be refused
        // from the size alone, without waiting for (or allocating) the body.
        Bytes huge = be32(0x7fff'fff0);
        huge.insert(huge.end(), {0, 18, 0, 0, 0, 0, 0, 1});
        out.push_back({"huge size", huge});
    }
    out.push_back({"truncated header", {0, 0, 0, 3, 0, 18, 0}});
    out.push_back({"unknown api key", request_frame(999, 0, 7, {})});
    {
        // Metadata v1 whose topics array claims 2^31-1 entries and ends.
        const Bytes body{0x7f, 0xff, 0xff, 0xff, 0, 1, 'a'};
        out.push_back({"metadata garbage body", request_frame(kMetadata, 1, 8, body)});
    }
    {
        // Produce v3 cut off inside the body.
        const Bytes body{0xff, 0xff, 0, 1, 0, 0};
        out.push_back({"produce truncated body", request_frame(kProduce, 3, 9, body)});
    }
    {
        // HTTP on the Kafka port: "GET " read as a ~1.1 GB size.
        const std::string http = "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n";
        out.push_back({"http request", Bytes(http.begin(), http.end())});
    }
    return out;
}

TEST(Errors, MalformedFramesCloseTheConnectionOnly) {
    BrokerProcess broker;
    broker.start();
    ASSERT_NO_FATAL_FAILURE(expect_api_versions_ok(broker.port(), 1));

    for (const auto& m : malformed_frames()) {
        SCOPED_TRACE(m.name);
        RawConnection c(broker.port());
        c.send(m.bytes);
        EXPECT_TRUE(c.wait_closed(5s)) << m.name << ": broker kept the connection open";
        ASSERT_TRUE(broker.running()) << m.name << " crashed the broker";
    }
    {
        // A frame cut short by the client closing: nothing to answer, nothing to break.
        RawConnection c(broker.port());
        Bytes partial = be32(100);
        partial.insert(partial.end(), {0, 18, 0, 0});
        c.send(partial);
        c.shutdown_write();
        EXPECT_TRUE(c.wait_closed(5s));
    }
    ASSERT_TRUE(broker.running());
    ASSERT_NO_FATAL_FAILURE(expect_api_versions_ok(broker.port(), 2));

    // Real clients are unaffected.
    const auto d = produce_all(broker.bootstrap(), {{"after-garbage", 0, "k", "still-works", {}, 0}});
    ASSERT_EQ(d.at(0).err, RdKafka::ERR_NO_ERROR) << err_name(d.at(0).err);
    const auto got = consume_all(broker.bootstrap(), {{"after-garbage", 0, RdKafka::Topic::OFFSET_BEGINNING}}, 1, 10s);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].value, "still-works");
}

TEST(Errors, ApiVersionsWithUnsupportedVersion) {
    // KIP-511: the broker answers an ApiVersions version it does not know with
    // UNSUPPORTED_VERSION in v0 layout (so the client can retry lower), and keeps the connection.
    BrokerProcess broker;
    broker.start();
    RawConnection c(broker.port());
    // As a newer client sends it: header v2; the body of an unknown version is ignored.
    ASSERT_TRUE(c.send(request_frame_flexible(kApiVersions, 99, 42, {})));
    Bytes frame;
    ASSERT_EQ(c.read_frame(frame, 5s), RawConnection::ReadStatus::frame);
    ASSERT_GE(frame.size(), 6u);
    EXPECT_EQ(read_be32(frame, 0), 42);
    EXPECT_EQ(read_be16(frame, 4), 35) << "UNSUPPORTED_VERSION";
    // Same connection, supported version.
    ASSERT_TRUE(c.send(request_frame(kApiVersions, 0, 43, {})));
    ASSERT_EQ(c.read_frame(frame, 5s), RawConnection::ReadStatus::frame);
    EXPECT_EQ(read_be32(frame, 0), 43);
    EXPECT_EQ(read_be16(frame, 4), 0);
}

}  // namespace
}  // namespace weir::compat
