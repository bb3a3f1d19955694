// IBM Sarama at its newest release (compat-tests/sarama-modern, the version
// its go.mod pins), beside Debian's 1.22 of 0008 and 0015. Each case runs at
// Sarama's DefaultVersion and at its newest KafkaVersion, where Sarama clamps
// every request to the versions ApiVersions advertises: sync and async
// producers with every codec and acks setting, the idempotent producer,
// ConsumerGroup with each balance strategy committing and resuming, the
// ClusterAdmin, and transactions read back with read_committed. librdkafka
// reads what Sarama wrote, byte for byte.
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

constexpr std::int64_t kBaseTimestamp = 1'660'000'000'000;  // message i has CreateTime kBaseTimestamp + i
constexpr int kCount = 200;
constexpr int kPad = 64;

// What main.go sends as message i with -pad kPad -headers.
std::string value_of(int i) {
    return "sarama-value-" + std::to_string(i) + "-" + std::string(i % kPad + 1, static_cast<char>('a' + i % 26));
}
std::string headers_of(int i) { return "seq=" + std::to_string(i) + ",empty="; }

std::vector<std::string> lines_starting(const std::string& out, const std::string& word) {
    std::vector<std::string> lines;
    std::istringstream in(out);
    for (std::string l; std::getline(in, l);)
        if (l.rfind(word + " ", 0) == 0) lines.push_back(l.substr(word.size() + 1));
    return lines;
}

class SaramaModern : public ::testing::Test {
protected:
    SaramaModern() : broker_(options()) {}

    static BrokerOptions options() {
        BrokerOptions o;
        o.overrides["group.initial.rebalance.delay.ms"] = "0";
        return o;
    }

    void SetUp() override {
        ASSERT_STRNE(WEIR_GO, "") << "go not found at configure time";
        ASSERT_EQ(build_sarama_modern().exit_code, 0)
            << "go build of compat-tests/sarama-modern failed (scripts/install-deps.sh fetches its modules):\n"
            << build_sarama_modern().describe();
        broker_.start();
    }

    void create_topic(int partitions) {
        Admin admin(broker_.bootstrap());
        const auto r = admin.create_topic(topic_, partitions);
        ASSERT_EQ(r.err, RD_KAFKA_RESP_ERR_NO_ERROR) << r.describe();
    }

    static ProcessResult sarama(const std::string& version, std::vector<std::string> args,
                                std::chrono::milliseconds timeout = 45s) {
        args.insert(args.begin(), {"-version", version});
        return run_sarama_modern(args, timeout);
    }

    // Every partition's records as librdkafka reads them.
    std::vector<ConsumedMessage> read_all(int partitions, std::size_t count, const ConfigMap& extra = {}) {
        std::vector<PartitionOffset> from;
        for (int p = 0; p < partitions; ++p) from.push_back({topic_, p, RdKafka::Topic::OFFSET_BEGINNING});
        return consume_all(broker_.bootstrap(), from, count, 20s, extra);
    }

    std::int64_t committed(const std::string& group, int partition) {
        Consumer c(broker_.bootstrap(), {{"group.id", group}});
        std::vector<RdKafka::TopicPartition*> parts{RdKafka::TopicPartition::create(topic_, partition)};
        const auto err = c.handle().committed(parts, 10'000);
        EXPECT_EQ(err, RdKafka::ERR_NO_ERROR) << err_name(err);
        const auto offset = parts[0]->offset();
        RdKafka::TopicPartition::destroy(parts);
        return offset;
    }

    std::int64_t high_watermark(int partition) {
        Consumer c(broker_.bootstrap());
        auto w = c.watermarks(topic_, partition, 10s);
        EXPECT_TRUE(w.has_value());
        return w ? w->second : -1;
    }

    BrokerProcess broker_;
    std::string topic_ = "sarama-modern";
};

TEST_F(SaramaModern, VersionsItSpeaks) {
    const auto r = run_sarama_modern({"version"});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    // Sarama 1.61.1: DefaultVersion 2.8.0, MaxVersion 4.3.1.
    EXPECT_EQ(r.out, "default 2.8.0\nnewest 4.3.1\n");
}

using ProduceCase = std::tuple<std::string, std::string, std::string, std::string>;  // version, codec, acks, producer

class SaramaModernProduce : public SaramaModern, public ::testing::WithParamInterface<ProduceCase> {};

TEST_P(SaramaModernProduce, ByteExactWithHeadersAndCreateTimes) {
    const auto& [version, codec, acks, producer] = GetParam();
    ASSERT_NO_FATAL_FAILURE(create_topic(1));
    std::vector<std::string> args{"-acks",   acks, "-ts", std::to_string(kBaseTimestamp), "-pad", std::to_string(kPad),
                                  "-headers"};
    if (producer == "sync") args.push_back("-sync");
    args.insert(args.end(), {"produce", broker_.bootstrap(), topic_, std::to_string(kCount), codec});
    const auto r = sarama(version, args);
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    const auto produced = parse_sarama(r.out);
    ASSERT_EQ(produced.size(), static_cast<std::size_t>(kCount)) << r.describe();
    std::set<std::string> keys;
    for (std::size_t k = 0; k < produced.size(); ++k) {
        keys.insert(produced[k].key);
        // No response to acks=0, so no offsets.
        if (acks != "0") {
            EXPECT_EQ(produced[k].offset, static_cast<std::int64_t>(k));
        }
    }
    EXPECT_EQ(keys.size(), static_cast<std::size_t>(kCount)) << "each message acknowledged once";
    if (acks == "0") {
        ASSERT_TRUE(wait_until([&] { return high_watermark(0) >= kCount; }, 10s));
    }
    EXPECT_EQ(high_watermark(0), kCount);

    const auto c = sarama(version, {"consume", broker_.bootstrap(), topic_, "0", "oldest", std::to_string(kCount)});
    ASSERT_EQ(c.exit_code, 0) << c.describe();
    const auto consumed = parse_sarama(c.out);
    ASSERT_EQ(consumed.size(), static_cast<std::size_t>(kCount)) << c.describe();
    // Within a partition the async producer keeps the order it was given.
    for (std::size_t k = 0; k < consumed.size(); ++k) {
        const auto i = static_cast<int>(k);
        EXPECT_EQ(consumed[k].offset, i);
        EXPECT_EQ(consumed[k].key, "key-" + std::to_string(i));
        EXPECT_EQ(consumed[k].value, value_of(i));
        EXPECT_EQ(consumed[k].timestamp, kBaseTimestamp + i);
        EXPECT_EQ(consumed[k].headers, headers_of(i));
    }

    const auto got = read_all(1, kCount);
    ASSERT_EQ(got.size(), static_cast<std::size_t>(kCount));
    for (std::size_t k = 0; k < got.size(); ++k) {
        const auto i = static_cast<int>(k);
        EXPECT_EQ(got[k].value, value_of(i));
        EXPECT_EQ(got[k].timestamp, kBaseTimestamp + i);
        EXPECT_EQ(got[k].timestamp_type, RdKafka::MessageTimestamp::MSG_TIMESTAMP_CREATE_TIME);
        EXPECT_EQ(got[k].headers, (std::vector<Header>{{"seq", std::to_string(i)}, {"empty", ""}}));
    }
}

std::string produce_case_name(const ::testing::TestParamInfo<ProduceCase>& p) {
    const auto& [version, codec, acks, producer] = p.param;
    return version + "_" + codec + "_acks" + acks + "_" + producer;
}

INSTANTIATE_TEST_SUITE_P(Codecs, SaramaModernProduce,
                         ::testing::Combine(::testing::Values("default", "newest"),
                                            ::testing::Values("none", "gzip", "snappy", "lz4", "zstd"),
                                            ::testing::Values("0", "1", "all"), ::testing::Values("async", "sync")),
                         produce_case_name);

using VersionAndMode = std::tuple<std::string, std::string>;

class SaramaModernIdempotent : public SaramaModern, public ::testing::WithParamInterface<VersionAndMode> {};

TEST_P(SaramaModernIdempotent, EveryPartitionGaplessAndOnce) {
    const auto& [version, producer] = GetParam();
    constexpr int kPartitions = 3;
    constexpr int kMessages = 600;
    ASSERT_NO_FATAL_FAILURE(create_topic(kPartitions));
    std::vector<std::string> args{"-idempotent", "-partitions", std::to_string(kPartitions)};
    if (producer == "sync") args.push_back("-sync");
    args.insert(args.end(), {"produce", broker_.bootstrap(), topic_, std::to_string(kMessages), "zstd"});
    const auto r = sarama(version, args);
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_NE(r.err.find("obtained a ProducerId"), std::string::npos) << "InitProducerId answered";
    const auto produced = parse_sarama(r.out);
    ASSERT_EQ(produced.size(), static_cast<std::size_t>(kMessages));
    std::map<int, std::int64_t> next;
    for (const auto& l : produced) {
        EXPECT_EQ(l.offset, next[l.partition]++) << "partition " << l.partition;
        EXPECT_EQ(std::stoi(l.key.substr(4)) % kPartitions, l.partition);
    }
    for (int p = 0; p < kPartitions; ++p) EXPECT_EQ(high_watermark(p), kMessages / kPartitions);
    EXPECT_EQ(read_all(kPartitions, kMessages).size(), static_cast<std::size_t>(kMessages));
}

INSTANTIATE_TEST_SUITE_P(Producers, SaramaModernIdempotent,
                         ::testing::Combine(::testing::Values("default", "newest"), ::testing::Values("async", "sync")),
                         [](const ::testing::TestParamInfo<VersionAndMode>& p) {
                             return std::get<0>(p.param) + "_" + std::get<1>(p.param);
                         });

class SaramaModernGroup : public SaramaModern, public ::testing::WithParamInterface<VersionAndMode> {
protected:
    // Two members read `count` records between them; returns the driver's output.
    std::string run_group(const std::string& version, const std::string& strategy, int count) {
        const auto r = sarama(version,
                              {"-members", "2", "-strategy", strategy, "group", broker_.bootstrap(), topic_, group_,
                               std::to_string(count)},
                              60s);
        EXPECT_EQ(r.exit_code, 0) << r.describe();
        return r.out;
    }

    std::string group_ = "sarama-modern-group";
};

TEST_P(SaramaModernGroup, TwoMembersBalanceCommitAndResume) {
    const auto& [version, strategy] = GetParam();
    constexpr int kPartitions = 4;
    ASSERT_NO_FATAL_FAILURE(create_topic(kPartitions));
    auto produce = [&](int count) {
        const auto r = sarama(version, {"-partitions", std::to_string(kPartitions), "produce", broker_.bootstrap(),
                                        topic_, std::to_string(count), "lz4"});
        ASSERT_EQ(r.exit_code, 0) << r.describe();
    };
    ASSERT_NO_FATAL_FAILURE(produce(400));

    const auto first = run_group(version, strategy, 400);
    const auto assigned = lines_starting(first, "assigned");
    ASSERT_EQ(assigned.size(), 2u) << first;
    if (strategy == "range") {
        EXPECT_EQ(assigned, (std::vector<std::string>{"0 0,1", "1 2,3"}));
    } else if (strategy == "roundrobin") {
        EXPECT_EQ(assigned, (std::vector<std::string>{"0 0,2", "1 1,3"}));
    } else {
        // Sticky strategies balance too, but which member gets which half is theirs to choose.
        std::set<std::string> parts;
        for (const auto& a : assigned) {
            std::istringstream in(a.substr(2));
            int n = 0;
            for (std::string p; std::getline(in, p, ',');) parts.insert(p), ++n;
            EXPECT_EQ(n, 2) << a;
        }
        EXPECT_EQ(parts.size(), 4u);
    }
    std::set<std::pair<int, std::int64_t>> read;
    for (const auto& l : parse_sarama(first))
        if (l.kind == "consumed") read.insert({l.partition, l.offset});
    EXPECT_EQ(read.size(), 400u) << "each record read once";

    // Closing the members committed what they read: the next pair reads only what came after.
    ASSERT_NO_FATAL_FAILURE(produce(40));
    const auto second = run_group(version, strategy, 40);
    int resumed = 0;
    for (const auto& l : parse_sarama(second)) {
        if (l.kind != "consumed") continue;
        ++resumed;
        EXPECT_GE(l.offset, 100) << "partition " << l.partition << " read again from before the commit";
    }
    EXPECT_EQ(resumed, 40);
    for (int p = 0; p < kPartitions; ++p) EXPECT_EQ(committed(group_, p), 110) << "partition " << p;
}

INSTANTIATE_TEST_SUITE_P(Strategies, SaramaModernGroup,
                         ::testing::Combine(::testing::Values("default", "newest"),
                                            ::testing::Values("range", "roundrobin", "sticky", "cooperative-sticky")),
                         [](const ::testing::TestParamInfo<VersionAndMode>& p) {
                             std::string s = std::get<0>(p.param) + "_" + std::get<1>(p.param);
                             for (auto& c : s)
                                 if (c == '-') c = '_';
                             return s;
                         });

class SaramaModernVersion : public SaramaModern, public ::testing::WithParamInterface<std::string> {};

TEST_P(SaramaModernVersion, ClusterAdmin) {
    const auto r = sarama(GetParam(), {"admin", broker_.bootstrap(), "adm"});
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    // Each step the driver checks, in order; a missing one means it stopped there.
    const std::vector<std::string> steps{"describe-cluster",
                                         "create-topic",
                                         "create-topic-exists",
                                         "create-topic-validate-only",
                                         "create-topic-rf-too-large",
                                         "list-topics",
                                         "describe-topics",
                                         "create-partitions",
                                         "create-partitions-fewer",
                                         "describe-topic-configs",
                                         "alter-configs",
                                         "incremental-alter-configs",
                                         "alter-configs-unknown-key",
                                         "describe-broker-configs",
                                         "delete-records",
                                         "delete-records-past-end",
                                         "list-offsets-latest",
                                         "alter-group-offsets",
                                         "list-group-offsets",
                                         "list-groups",
                                         "describe-group",
                                         "delete-group-offset",
                                         "delete-group",
                                         "delete-group-again",
                                         "describe-log-dirs",
                                         "delete-topic",
                                         "deleted-topic-gone",
                                         "delete-topic-again"};
    EXPECT_EQ(lines_starting(r.out, "ok"), steps);
}

TEST_P(SaramaModernVersion, TransactionsReadCommitted) {
    const std::string version = GetParam();
    const std::string group = "sarama-txn-group";
    ASSERT_NO_FATAL_FAILURE(create_topic(1));
    const auto r = sarama(version, {"txn", broker_.bootstrap(), topic_, group});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_EQ(r.out, "committed c1\naborted a\ncommitted c2\n");

    // c1 at 0-4, its commit marker at 5, the aborted a at 6-10, its marker at 11, c2 at 12-16, a marker at 17.
    EXPECT_EQ(high_watermark(0), 18);
    auto keys = [](const std::vector<SaramaLine>& lines) {
        std::vector<std::string> out;
        for (const auto& l : lines) out.push_back(std::to_string(l.offset) + ":" + l.key);
        return out;
    };
    std::vector<std::string> committed_keys, all_keys;
    for (int i = 0; i < 5; ++i) committed_keys.push_back(std::to_string(i) + ":c1-" + std::to_string(i));
    all_keys = committed_keys;
    for (int i = 0; i < 5; ++i) all_keys.push_back(std::to_string(6 + i) + ":a-" + std::to_string(i));
    for (int i = 0; i < 5; ++i) {
        committed_keys.push_back(std::to_string(12 + i) + ":c2-" + std::to_string(i));
        all_keys.push_back(std::to_string(12 + i) + ":c2-" + std::to_string(i));
    }
    // The driver's consume fails if more records than asked for arrive.
    const auto rc =
        sarama(version, {"-isolation", "read_committed", "consume", broker_.bootstrap(), topic_, "0", "oldest", "10"});
    ASSERT_EQ(rc.exit_code, 0) << rc.describe();
    EXPECT_EQ(keys(parse_sarama(rc.out)), committed_keys);
    const auto ru = sarama(version, {"consume", broker_.bootstrap(), topic_, "0", "oldest", "15"});
    ASSERT_EQ(ru.exit_code, 0) << ru.describe();
    EXPECT_EQ(keys(parse_sarama(ru.out)), all_keys);

    const auto got = read_all(1, 10, {{"isolation.level", "read_committed"}});
    ASSERT_EQ(got.size(), 10u);
    EXPECT_EQ(got.back().offset, 16);
    // AddOffsetsToTxn + TxnOffsetCommit: the group's offset came with the commit.
    EXPECT_EQ(committed(group, 0), 3);
}

INSTANTIATE_TEST_SUITE_P(Versions, SaramaModernVersion, ::testing::Values("default", "newest"));

}  // namespace
}  // namespace weir::compat
