// Sarama 1.22 at its default Config.Version (0.8.2): Produce v0 with magic-0
// message sets (plain and compressed), Fetch v0, ListOffsets v0, Metadata v0;
// and librdkafka (magic 2) reading/writing the same partition.
#include <gtest/gtest.h>

#include <map>

#include "harness/admin.h"
#include "harness/broker_process.h"
#include "harness/kafka_client.h"
#include "harness/sarama.h"

namespace weir::compat {
namespace {

using namespace std::chrono_literals;

class Sarama : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_STRNE(WEIR_GO, "") << "go not found at configure time (Debian package golang-go)";
        ASSERT_EQ(build_sarama().exit_code, 0) << "offline go build of compat-tests/sarama failed:\n"
                                               << build_sarama().describe();
        broker_.start();
        Admin admin(broker_.bootstrap());
        const auto r = admin.create_topic(topic_, 1);
        ASSERT_EQ(r.err, RD_KAFKA_RESP_ERR_NO_ERROR) << r.describe();
    }

    static ProcessResult sarama(std::vector<std::string> args) { return run_sarama(std::move(args)); }

    // Sarama produces `count` messages key-i / sarama-value-i; checks its report.
    void sarama_produce(int count, const std::string& codec) {
        const auto r = sarama({"produce", broker_.bootstrap(), topic_, std::to_string(count), codec});
        ASSERT_EQ(r.exit_code, 0) << r.describe();
        const auto lines = parse_sarama(r.out);
        ASSERT_EQ(lines.size(), static_cast<std::size_t>(count)) << r.out;
        for (int i = 0; i < count; ++i) {
            const auto& l = lines[static_cast<std::size_t>(i)];
            EXPECT_EQ(l.kind, "produced");
            EXPECT_EQ(l.partition, 0);
            EXPECT_EQ(l.offset, i);
            // Sarama may reorder within a flush; the offset identifies the message.
            EXPECT_EQ(l.value, "sarama-value-" + l.key.substr(4));
        }
    }

    BrokerProcess broker_;
    std::string topic_ = "legacy";
};

TEST_F(Sarama, DefaultVersionIsOldest) {
    const auto r = sarama({"version"});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_EQ(r.out, "0.8.2.0\n");
}

class SaramaCodec : public Sarama, public ::testing::WithParamInterface<std::string> {};

TEST_P(SaramaCodec, ProduceV0ThenFetchV0AndLibrdkafka) {
    ASSERT_NO_FATAL_FAILURE(sarama_produce(100, GetParam()));
    // Sarama reads back (Fetch v0: the broker serves magic-0 message sets).
    const auto r = sarama({"consume", broker_.bootstrap(), topic_, "0", "oldest", "100"});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    const auto lines = parse_sarama(r.out);
    ASSERT_EQ(lines.size(), 100u) << r.out;
    std::map<std::int64_t, std::string> key_at;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        EXPECT_EQ(lines[i].kind, "consumed");
        EXPECT_EQ(lines[i].offset, static_cast<std::int64_t>(i));
        EXPECT_EQ(lines[i].value, "sarama-value-" + lines[i].key.substr(4));
        EXPECT_EQ(lines[i].timestamp, 0) << "magic 0 carries no timestamp";
        key_at[lines[i].offset] = lines[i].key;
    }

    // librdkafka (Fetch v4+, magic 2) sees the same records at the same offsets,
    // with no timestamp invented for them.
    const auto got = consume_all(broker_.bootstrap(), {{topic_, 0, RdKafka::Topic::OFFSET_BEGINNING}}, 100, 15s);
    ASSERT_EQ(got.size(), 100u);
    for (std::size_t i = 0; i < got.size(); ++i) {
        EXPECT_EQ(got[i].offset, static_cast<std::int64_t>(i));
        EXPECT_EQ(got[i].key, key_at[got[i].offset]);
        ASSERT_TRUE(got[i].key.has_value());
        EXPECT_EQ(got[i].value, "sarama-value-" + got[i].key->substr(4));
        EXPECT_EQ(got[i].timestamp, -1) << "offset " << i << " type " << got[i].timestamp_type;
        EXPECT_TRUE(got[i].headers.empty());
    }
}

INSTANTIATE_TEST_SUITE_P(Codecs, SaramaCodec, ::testing::Values("none", "gzip", "snappy"));

TEST_F(Sarama, ReadsLibrdkafkaRecordsDownConverted) {
    ASSERT_NO_FATAL_FAILURE(sarama_produce(10, "none"));
    // librdkafka appends magic-2 batches with explicit CreateTimes after Sarama's v0 messages.
    constexpr std::int64_t kBase = 1'650'000'000'000;
    std::vector<OutMessage> v2;
    for (int i = 10; i < 60; ++i) {
        v2.push_back(
            {topic_, 0, "key-" + std::to_string(i), "rdk-value-" + std::to_string(i), {{"h", "x"}}, kBase + i});
    }
    // gzip: an 0.8 client cannot read lz4 in magic 0, since Kafka (and Weir) write
    // its LZ4 frames with the broken header checksum of KAFKA-1493 there.
    for (const auto& d : produce_all(broker_.bootstrap(), v2, {{"compression.codec", "gzip"}})) {
        ASSERT_EQ(d.err, RdKafka::ERR_NO_ERROR) << err_name(d.err);
    }

    // Sarama (Fetch v0) from the middle: offsets and payloads survive the v2 -> v0 conversion.
    const auto r = sarama({"consume", broker_.bootstrap(), topic_, "0", "5", "55"});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    const auto lines = parse_sarama(r.out);
    ASSERT_EQ(lines.size(), 55u) << r.out;
    for (std::size_t k = 0; k < lines.size(); ++k) {
        const std::int64_t off = 5 + static_cast<std::int64_t>(k);
        EXPECT_EQ(lines[k].offset, off);
        if (off >= 10) {
            EXPECT_EQ(lines[k].key, "key-" + std::to_string(off));
            EXPECT_EQ(lines[k].value, "rdk-value-" + std::to_string(off));
        }
    }

    // The stored magic-2 records are unchanged for a v2 reader.
    const auto got = consume_all(broker_.bootstrap(), {{topic_, 0, 10}}, 50, 15s);
    ASSERT_EQ(got.size(), 50u);
    for (std::size_t k = 0; k < got.size(); ++k) {
        EXPECT_EQ(got[k].offset, 10 + static_cast<std::int64_t>(k));
        EXPECT_EQ(got[k].timestamp, kBase + got[k].offset);
        EXPECT_EQ(got[k].headers, (std::vector<Header>{{"h", "x"}}));
    }
}

}  // namespace
}  // namespace weir::compat
