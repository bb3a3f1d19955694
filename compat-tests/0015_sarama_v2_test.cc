// Sarama 1.22 speaking record batches: Config.Version 2.0.0 and 2.2.0 (the
// newest it knows) produce magic-2 batches with Produce v3 and read them with
// Fetch v4. Sarama never fills in a batch's maxTimestamp (the header says -1),
// so the broker takes it from the records, as Kafka's LogValidator does: every
// codec and acks setting, byte-exact reads with CreateTimes and headers,
// ListOffsets by time, LogAppendTime topics, restarts, and a ConsumerGroup
// that commits and resumes. zstd fails as it does against Kafka, since this
// Sarama sends it with Produce v3 and fetches with v4 (KIP-110 wants v7/v10).
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>

#include "harness/admin.h"
#include "harness/broker_process.h"
#include "harness/kafka_client.h"
#include "harness/sarama.h"
#include "harness/wait.h"

namespace weir::compat {
namespace {

using namespace std::chrono_literals;

constexpr std::int64_t kBaseTimestamp = 1'650'000'000'000;  // message i has CreateTime kBaseTimestamp + i
constexpr int kCount = 500;                                 // ~45 KB: many index intervals of 4 KiB
constexpr int kPad = 64;
const char* const kNewestVersion = "2.2.0";  // sarama.MaxVersion of 1.22.1

// What main.go sends as message i (with -pad kPad -headers).
std::string value_of(int i) {
    return "sarama-value-" + std::to_string(i) + "-" + std::string(i % kPad + 1, static_cast<char>('a' + i % 26));
}
std::string headers_of(int i) { return "seq=" + std::to_string(i) + ",empty="; }

std::int64_t now_ms() {
    using namespace std::chrono;
    return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

class SaramaV2 : public ::testing::Test {
protected:
    SaramaV2() : broker_(options()) {}

    static BrokerOptions options() {
        BrokerOptions o;
        o.overrides["group.initial.rebalance.delay.ms"] = "0";
        return o;
    }

    void SetUp() override {
        ASSERT_STRNE(WEIR_GO, "") << "go not found at configure time (Debian package golang-go)";
        ASSERT_EQ(build_sarama().exit_code, 0) << "offline go build of compat-tests/sarama failed:\n"
                                               << build_sarama().describe();
        broker_.start();
    }

    void create_topic(const std::map<std::string, std::string>& configs = {}) {
        Admin admin(broker_.bootstrap());
        const auto r = admin.create_topic(topic_, 1, 1, configs);
        ASSERT_EQ(r.err, RD_KAFKA_RESP_ERR_NO_ERROR) << r.describe();
    }

    static std::vector<std::string> flags(const std::string& version, const std::string& acks = "all") {
        const auto ts = std::to_string(kBaseTimestamp);
        const auto pad = std::to_string(kPad);
        return {"-version", version, "-acks", acks, "-ts", ts, "-pad", pad, "-headers"};
    }

    ProcessResult sarama(const std::string& version, std::vector<std::string> mode, const std::string& acks = "all") {
        auto args = flags(version, acks);
        args.insert(args.end(), mode.begin(), mode.end());
        return run_sarama(args, 45s);
    }

    // Sarama produces kCount messages; checks its report. With acks=0 there is
    // no response, so no offsets and no broker timestamps to check.
    std::vector<SaramaLine> produce(const std::string& version, const std::string& codec, const std::string& acks) {
        const auto r = sarama(version, {"produce", broker_.bootstrap(), topic_, std::to_string(kCount), codec}, acks);
        EXPECT_EQ(r.exit_code, 0) << r.describe();
        auto lines = parse_sarama(r.out);
        EXPECT_EQ(lines.size(), static_cast<std::size_t>(kCount)) << r.describe();
        std::set<std::string> keys;
        for (std::size_t k = 0; k < lines.size(); ++k) {
            const auto& l = lines[k];
            EXPECT_EQ(l.kind, "produced");
            EXPECT_EQ(l.partition, 0);
            const int i = std::stoi(l.key.substr(4));
            EXPECT_EQ(l.value, value_of(i));
            keys.insert(l.key);
            if (acks != "0") {
                EXPECT_EQ(l.offset, static_cast<std::int64_t>(k));
            }
        }
        EXPECT_EQ(keys.size(), static_cast<std::size_t>(kCount)) << "each message acknowledged once";
        return lines;
    }

    // Sarama consumes `count` messages from `start`: message i at offset i,
    // byte for byte, with its headers. Returns the lines for timestamp checks.
    std::vector<SaramaLine> consume(const std::string& version, std::int64_t start, int count) {
        const auto r = sarama(
            version, {"consume", broker_.bootstrap(), topic_, "0", std::to_string(start), std::to_string(count)});
        EXPECT_EQ(r.exit_code, 0) << r.describe();
        auto lines = parse_sarama(r.out);
        EXPECT_EQ(lines.size(), static_cast<std::size_t>(count)) << r.describe();
        for (std::size_t k = 0; k < lines.size(); ++k) {
            const auto& l = lines[k];
            const auto off = start + static_cast<std::int64_t>(k);
            const int i = static_cast<int>(off);
            EXPECT_EQ(l.kind, "consumed");
            EXPECT_EQ(l.offset, off);
            EXPECT_EQ(l.key, "key-" + std::to_string(i));
            EXPECT_EQ(l.value, value_of(i)) << "offset " << off;
            EXPECT_EQ(l.headers, headers_of(i)) << "offset " << off;
        }
        return lines;
    }

    std::int64_t offset_for_time(const std::string& version, std::int64_t timestamp) {
        const auto r =
            sarama(version, {"offset-for-time", broker_.bootstrap(), topic_, "0", std::to_string(timestamp)});
        EXPECT_EQ(r.exit_code, 0) << r.describe();
        std::istringstream in(r.out);
        std::string word;
        std::int64_t offset = -2;
        if (!(in >> word >> offset) || word != "offset") ADD_FAILURE() << r.describe();
        return offset;
    }

    // The CreateTimes survive: Sarama's reads, ListOffsets by time (which
    // relies on each batch's maxTimestamp), and librdkafka's newer Fetch.
    void expect_create_times(const std::string& version) {
        for (const auto& l : consume(version, 0, kCount)) EXPECT_EQ(l.timestamp, kBaseTimestamp + l.offset) << l.offset;
        EXPECT_EQ(offset_for_time(version, 0), 0);
        EXPECT_EQ(offset_for_time(version, kBaseTimestamp + 250), 250);
        EXPECT_EQ(offset_for_time(version, kBaseTimestamp + kCount - 1), kCount - 1);
        EXPECT_EQ(offset_for_time(version, kBaseTimestamp + kCount), -1);
        const auto got = consume_all(broker_.bootstrap(), {{topic_, 0, RdKafka::Topic::OFFSET_BEGINNING}}, kCount, 15s);
        ASSERT_EQ(got.size(), static_cast<std::size_t>(kCount));
        for (std::size_t i = 0; i < got.size(); ++i) {
            EXPECT_EQ(got[i].offset, static_cast<std::int64_t>(i));
            EXPECT_EQ(got[i].value, value_of(static_cast<int>(i)));
            EXPECT_EQ(got[i].timestamp, kBaseTimestamp + static_cast<std::int64_t>(i));
            EXPECT_EQ(got[i].timestamp_type, RdKafka::MessageTimestamp::MSG_TIMESTAMP_CREATE_TIME);
        }
    }

    std::int64_t high_watermark() {
        Consumer c(broker_.bootstrap());
        auto w = c.watermarks(topic_, 0, 10s);
        EXPECT_TRUE(w.has_value());
        return w ? w->second : -1;
    }

    BrokerProcess broker_;
    std::string topic_ = "sarama-v2";
};

using Case = std::tuple<std::string, std::string, std::string>;  // version, codec, acks

class SaramaV2Produce : public SaramaV2, public ::testing::WithParamInterface<Case> {};

TEST_P(SaramaV2Produce, ProduceV3ThenFetchV4ByteExactWithCreateTimes) {
    const auto& [version, codec, acks] = GetParam();
    ASSERT_NO_FATAL_FAILURE(create_topic());
    // Nothing acknowledges acks=0 produce, so wait (bounded) until it landed
    // before the next round, which comes on another connection.
    auto landed = [&](std::int64_t end) {
        if (acks == "0") wait_until([&] { return high_watermark() >= end; }, 10s);
        return high_watermark();
    };
    ASSERT_NO_FATAL_FAILURE(produce(version, codec, acks));
    ASSERT_EQ(landed(kCount), kCount);
    // A second round, earlier CreateTimes, appended to a segment already past
    // several index entries.
    const auto more = sarama(version, {"produce", broker_.bootstrap(), topic_, "10", codec}, acks);
    ASSERT_EQ(more.exit_code, 0) << more.describe();
    ASSERT_EQ(landed(kCount + 10), kCount + 10);
    expect_create_times(version);
}

// "2.0.0" -> "v200", for test names.
std::string version_name(const std::string& version) {
    std::string v = "v";
    for (char c : version)
        if (c != '.') v += c;
    return v;
}

std::string case_name(const ::testing::TestParamInfo<Case>& param) {
    const auto& [version, codec, acks] = param.param;
    return version_name(version) + "_" + codec + "_acks" + acks;
}

INSTANTIATE_TEST_SUITE_P(Codecs, SaramaV2Produce,
                         ::testing::Combine(::testing::Values("2.0.0", kNewestVersion),
                                            ::testing::Values("none", "gzip", "snappy", "lz4"),
                                            ::testing::Values("0", "1", "all")),
                         case_name);

TEST_F(SaramaV2, LogAppendTimeTopicStampsTheBrokerTime) {
    ASSERT_NO_FATAL_FAILURE(create_topic({{"message.timestamp.type", "LogAppendTime"}}));
    const auto before = now_ms();
    const auto produced = produce("2.0.0", "lz4", "all");
    const auto after = now_ms();
    for (const auto& l : produced) {
        // The produce response's LogAppendTime, which Sarama puts on the message.
        EXPECT_GE(l.timestamp, before);
        EXPECT_LE(l.timestamp, after);
    }
    for (const auto& l : consume("2.0.0", 0, kCount)) {
        EXPECT_GE(l.timestamp, before) << l.offset;
        EXPECT_LE(l.timestamp, after) << l.offset;
    }
    EXPECT_EQ(offset_for_time("2.0.0", before), 0);
    EXPECT_EQ(offset_for_time("2.0.0", after + 1), -1);
}

TEST_F(SaramaV2, CleanAndUncleanRestartKeepTimestampsAndIndexes) {
    ASSERT_NO_FATAL_FAILURE(create_topic());
    ASSERT_NO_FATAL_FAILURE(produce(kNewestVersion, "snappy", "all"));
    EXPECT_EQ(broker_.restart(), 0);
    expect_create_times(kNewestVersion);
    // SIGKILL: the active segment is rescanned and its indexes rebuilt.
    broker_.kill();
    broker_.start();
    expect_create_times(kNewestVersion);
}

TEST_F(SaramaV2, ZstdIsRefusedAtProduceV3AsKafkaDoes) {
    ASSERT_NO_FATAL_FAILURE(create_topic());
    for (const char* acks : {"1", "all"}) {
        const auto r = sarama(kNewestVersion, {"produce", broker_.bootstrap(), topic_, "10", "zstd"}, acks);
        EXPECT_NE(r.exit_code, 0) << r.describe();
        EXPECT_NE(r.err.find("does not support the compression type"), std::string::npos) << r.describe();
    }
    EXPECT_EQ(high_watermark(), 0);
}

TEST_F(SaramaV2, ZstdRecordsAreRefusedToFetchV4AsKafkaDoes) {
    ASSERT_NO_FATAL_FAILURE(create_topic());
    std::vector<OutMessage> messages;
    for (int i = 0; i < 10; ++i)
        messages.push_back({topic_, 0, "key-" + std::to_string(i), value_of(i), {}, kBaseTimestamp + i});
    for (const auto& d : produce_all(broker_.bootstrap(), messages, {{"compression.codec", "zstd"}}))
        ASSERT_EQ(d.err, RdKafka::ERR_NO_ERROR) << err_name(d.err);
    const auto r = sarama(kNewestVersion, {"consume", broker_.bootstrap(), topic_, "0", "oldest", "10"});
    EXPECT_NE(r.exit_code, 0) << r.describe();
    EXPECT_NE(r.err.find("does not support the compression type"), std::string::npos) << r.describe();
}

// Answers of 16 KiB and more are sent from the segment file: the check reads
// only the batch headers there. Half of each value is random, so the batch
// stays large once compressed (librdkafka sends a batch that zstd cannot
// shrink uncompressed).
TEST_F(SaramaV2, LargeZstdRecordsLeftInTheirFileAreRefusedToFetchV4) {
    ASSERT_NO_FATAL_FAILURE(create_topic());
    std::vector<OutMessage> messages;
    for (int i = 0; i < 20; ++i)
        messages.push_back(
            {topic_, 0, "key-" + std::to_string(i), payload(i, 3000) + std::string(3000, 'x'), {}, kBaseTimestamp + i});
    for (const auto& d : produce_all(broker_.bootstrap(), messages, {{"compression.codec", "zstd"}}))
        ASSERT_EQ(d.err, RdKafka::ERR_NO_ERROR) << err_name(d.err);
    const auto r = sarama(kNewestVersion, {"consume", broker_.bootstrap(), topic_, "0", "oldest", "20"});
    EXPECT_NE(r.exit_code, 0) << r.describe();
    EXPECT_NE(r.err.find("does not support the compression type"), std::string::npos) << r.describe();
}

class SaramaV2Group : public SaramaV2, public ::testing::WithParamInterface<std::string> {};

TEST_P(SaramaV2Group, ConsumerGroupCommitsAndResumes) {
    const std::string version = GetParam();
    const std::string group = "sarama-group";
    ASSERT_NO_FATAL_FAILURE(create_topic());
    ASSERT_NO_FATAL_FAILURE(produce(version, "lz4", "all"));

    // The first member reads 200 and commits them as its session ends ...
    auto r = sarama(version, {"group", broker_.bootstrap(), topic_, group, "200"});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    auto lines = parse_sarama(r.out);
    ASSERT_EQ(lines.size(), 200u) << r.describe();
    for (std::size_t k = 0; k < lines.size(); ++k) {
        EXPECT_EQ(lines[k].offset, static_cast<std::int64_t>(k));
        EXPECT_EQ(lines[k].value, value_of(static_cast<int>(k)));
        EXPECT_EQ(lines[k].timestamp, kBaseTimestamp + static_cast<std::int64_t>(k));
    }
    // ... and the next one resumes right after them.
    r = sarama(version, {"group", broker_.bootstrap(), topic_, group, std::to_string(kCount - 200)});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    lines = parse_sarama(r.out);
    ASSERT_EQ(lines.size(), static_cast<std::size_t>(kCount - 200)) << r.describe();
    for (std::size_t k = 0; k < lines.size(); ++k) {
        EXPECT_EQ(lines[k].offset, 200 + static_cast<std::int64_t>(k));
        EXPECT_EQ(lines[k].headers, headers_of(200 + static_cast<int>(k)));
    }

    // The commit is the group's, as any client sees it.
    Consumer c(broker_.bootstrap(), {{"group.id", group}});
    std::vector<RdKafka::TopicPartition*> parts{RdKafka::TopicPartition::create(topic_, 0)};
    const auto err = c.handle().committed(parts, 10'000);
    EXPECT_EQ(err, RdKafka::ERR_NO_ERROR) << err_name(err);
    EXPECT_EQ(parts[0]->offset(), kCount);
    RdKafka::TopicPartition::destroy(parts);
}

std::string group_case_name(const ::testing::TestParamInfo<std::string>& param) { return version_name(param.param); }

INSTANTIATE_TEST_SUITE_P(Versions, SaramaV2Group, ::testing::Values("2.0.0", kNewestVersion), group_case_name);

}  // namespace
}  // namespace weir::compat
