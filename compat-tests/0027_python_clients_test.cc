// Today's Python clients, beside Debian's kafka-python 2.0.2 of 0009:
// kafka-python 3 (pure Python, choosing each request's version from the
// ApiVersions answer) and confluent-kafka (its wheel carries a current
// librdkafka), from the virtualenv scripts/install-deps.sh makes with pinned
// versions. compat-tests/python/modern_clients.py drives them: round trips with
// every codec and headers, a group of two members that commits and resumes,
// the admin client, and transactions read back with read_committed; librdkafka
// reads what they wrote.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "harness/admin.h"
#include "harness/broker_process.h"
#include "harness/kafka_client.h"
#include "harness/sarama.h"
#include "harness/subprocess.h"

namespace weir::compat {
namespace {

using namespace std::chrono_literals;
namespace json = boost::json;

constexpr std::int64_t kBaseTs = 1'700'000'000'000;  // BASE_TS of modern_clients.py

// value(i) of modern_clients.py.
std::string value_of(int i) {
    std::string v = "value-" + std::to_string(i) + "-";
    for (int j = 0; j < i % 97; ++j) v += static_cast<char>((i + j) % 256);
    return v;
}

std::string venv_python() { return weir_cache_dir() + "/venv-clients/bin/python"; }

std::vector<json::object> json_lines(const std::string& out) {
    std::vector<json::object> lines;
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);) {
        if (!line.empty()) lines.push_back(json::parse(line).as_object());
    }
    return lines;
}

class PythonClients : public ::testing::Test {
protected:
    PythonClients() : broker_(options()) {}

    static BrokerOptions options() {
        BrokerOptions o;
        o.overrides["group.initial.rebalance.delay.ms"] = "0";
        return o;
    }

    void SetUp() override {
        ASSERT_TRUE(std::filesystem::exists(venv_python()))
            << venv_python() << " missing: scripts/install-deps.sh makes the clients' virtualenv";
        broker_.start();
    }

    ProcessResult run(const std::string& client, std::vector<std::string> args,
                      std::chrono::milliseconds timeout = 60s) {
        const auto script = std::filesystem::path(WEIR_COMPAT_SOURCE_DIR) / "python" / "modern_clients.py";
        args.insert(args.begin(), {venv_python(), script.string(), client, broker_.bootstrap()});
        auto r = run_process(args, timeout);
        for (const auto& line : json_lines(r.out)) {
            if (line.contains("version") && line.contains("client"))
                RecordProperty(std::string(line.at("client").as_string()) + "_version",
                               std::string(line.at("version").as_string()));
        }
        return r;
    }

    void create_topic(const std::string& topic, int partitions) {
        Admin admin(broker_.bootstrap());
        const auto r = admin.create_topic(topic, partitions);
        ASSERT_EQ(r.err, RD_KAFKA_RESP_ERR_NO_ERROR) << r.describe();
    }

    std::int64_t committed(const std::string& group, const std::string& topic, int partition) {
        Consumer c(broker_.bootstrap(), {{"group.id", group}});
        std::vector<RdKafka::TopicPartition*> parts{RdKafka::TopicPartition::create(topic, partition)};
        const auto err = c.handle().committed(parts, 10'000);
        EXPECT_EQ(err, RdKafka::ERR_NO_ERROR) << err_name(err);
        const auto offset = parts[0]->offset();
        RdKafka::TopicPartition::destroy(parts);
        return offset;
    }

    BrokerProcess broker_;
};

// kafka-python 3 no longer probes: it infers the broker's version from the
// ApiVersions answer and sends each API at the newest version both sides know.
TEST_F(PythonClients, KafkaPythonNegotiatesEachApi) {
    const auto r = run("kafka-python", {"versions"});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    const auto lines = json_lines(r.out);
    ASSERT_FALSE(lines.empty());
    const auto& v = lines.back();
    ASSERT_TRUE(v.contains("sent")) << r.out;
    std::cout << "[compat] kafka-python " << v.at("client_version").as_string() << " took the broker for "
              << v.at("broker_version").as_string() << " and sent " << json::serialize(v.at("sent")) << "\n";
    RecordProperty("kafka_python_sent", json::serialize(v.at("sent")));
    // ListOffsets 10 is what it looks for to call a broker 4.0.
    EXPECT_EQ(v.at("broker_version").as_string(), "4.0");
    const auto& advertised = v.at("advertised").as_object();
    for (const auto& [api, versions] : v.at("sent").as_object()) {
        ASSERT_TRUE(advertised.contains(api)) << api << " sent but not advertised";
        const auto& range = advertised.at(api).as_array();
        for (const auto& sent : versions.as_array()) {
            EXPECT_GE(sent.as_int64(), range[0].as_int64()) << api;
            EXPECT_LE(sent.as_int64(), range[1].as_int64()) << api;
        }
    }
    // Versions where both sides' newest meet: Weir's for these, kafka-python's own below them.
    const auto& sent = v.at("sent").as_object();
    auto only = [&](const char* api) {
        const auto& a = sent.at(api).as_array();
        return a.size() == 1 ? a[0].as_int64() : -1;
    };
    EXPECT_EQ(only("Metadata"), 12);
    EXPECT_EQ(only("ListOffsets"), 10);
    EXPECT_EQ(only("ApiVersions"), 4);
    EXPECT_GE(only("Produce"), 9) << "flexible Produce";
    EXPECT_GE(only("Fetch"), 12) << "flexible Fetch";
    // Idempotence is kafka-python 3's default: a producer id comes first.
    EXPECT_TRUE(sent.contains("InitProducerId"));
}

using ClientCodec = std::tuple<std::string, std::string>;

class PythonRoundTrip : public PythonClients, public ::testing::WithParamInterface<ClientCodec> {};

TEST_P(PythonRoundTrip, EveryCodecWithHeaders) {
    const auto& [client, codec] = GetParam();
    const std::string topic = "py-roundtrip";
    constexpr int kCount = 300;
    ASSERT_NO_FATAL_FAILURE(create_topic(topic, 1));
    const auto r = run(client, {"roundtrip", topic, std::to_string(kCount), codec});
    ASSERT_EQ(r.exit_code, 0) << r.describe();

    const auto got = consume_all(broker_.bootstrap(), {{topic, 0, RdKafka::Topic::OFFSET_BEGINNING}}, kCount, 15s);
    ASSERT_EQ(got.size(), static_cast<std::size_t>(kCount));
    for (std::size_t k = 0; k < got.size(); ++k) {
        const auto i = static_cast<int>(k);
        EXPECT_EQ(got[k].offset, i);
        EXPECT_EQ(got[k].key, "key-" + std::to_string(i));
        EXPECT_EQ(got[k].value, value_of(i));
        EXPECT_EQ(got[k].timestamp, kBaseTs + i);
        EXPECT_EQ(got[k].headers, (std::vector<Header>{{"seq", std::to_string(i)}, {"empty", ""}}));
    }
}

INSTANTIATE_TEST_SUITE_P(Codecs, PythonRoundTrip,
                         ::testing::Combine(::testing::Values("kafka-python", "confluent"),
                                            ::testing::Values("none", "gzip", "snappy", "lz4", "zstd")),
                         [](const ::testing::TestParamInfo<ClientCodec>& p) {
                             std::string n = std::get<0>(p.param) + "_" + std::get<1>(p.param);
                             for (auto& c : n)
                                 if (c == '-') c = '_';
                             return n;
                         });

using ClientStrategy = std::tuple<std::string, std::string>;

class PythonGroup : public PythonClients, public ::testing::WithParamInterface<ClientStrategy> {};

TEST_P(PythonGroup, TwoMembersBalanceCommitAndResume) {
    const auto& [client, strategy] = GetParam();
    const std::string topic = "py-group", group = "py-group-" + strategy;
    constexpr int kPartitions = 4;
    ASSERT_NO_FATAL_FAILURE(create_topic(topic, kPartitions));
    auto produce = [&](int from, int count) {
        std::vector<OutMessage> messages;
        for (int i = from; i < from + count; ++i)
            messages.push_back({topic, i % kPartitions, "key-" + std::to_string(i), value_of(i)});
        for (const auto& d : produce_all(broker_.bootstrap(), messages))
            ASSERT_EQ(d.err, RdKafka::ERR_NO_ERROR) << err_name(d.err);
    };
    ASSERT_NO_FATAL_FAILURE(produce(0, 400));

    auto r = run(client, {"group", topic, group, "400", strategy});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    std::vector<std::vector<std::int64_t>> assigned;
    std::set<std::pair<std::int64_t, std::int64_t>> read;
    for (const auto& line : json_lines(r.out)) {
        if (line.contains("assigned"))
            for (const auto& member : line.at("assigned").as_array())
                assigned.push_back(json::value_to<std::vector<std::int64_t>>(member));
        if (line.contains("consumed")) {
            const auto& c = line.at("consumed").as_array();
            read.insert({c[0].as_int64(), c[1].as_int64()});
        }
    }
    ASSERT_EQ(assigned.size(), 2u) << r.out;
    std::sort(assigned.begin(), assigned.end());
    if (strategy == "range") {
        EXPECT_EQ(assigned, (std::vector<std::vector<std::int64_t>>{{0, 1}, {2, 3}}));
    } else if (strategy == "roundrobin") {
        EXPECT_EQ(assigned, (std::vector<std::vector<std::int64_t>>{{0, 2}, {1, 3}}));
    } else {
        EXPECT_EQ(assigned[0].size(), 2u);
        EXPECT_EQ(assigned[1].size(), 2u);
    }
    EXPECT_EQ(read.size(), 400u);

    // The commits hold: the next two members read only the newer records.
    ASSERT_NO_FATAL_FAILURE(produce(400, 40));
    r = run(client, {"group", topic, group, "40", strategy});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    int resumed = 0;
    for (const auto& line : json_lines(r.out)) {
        if (!line.contains("consumed")) continue;
        ++resumed;
        EXPECT_GE(line.at("consumed").as_array()[1].as_int64(), 100) << json::serialize(line);
    }
    EXPECT_EQ(resumed, 40);
    for (int p = 0; p < kPartitions; ++p) EXPECT_EQ(committed(group, topic, p), 110) << "partition " << p;
}

INSTANTIATE_TEST_SUITE_P(
    Strategies, PythonGroup,
    ::testing::Values(ClientStrategy{"kafka-python", "range"}, ClientStrategy{"kafka-python", "roundrobin"},
                      ClientStrategy{"kafka-python", "sticky"}, ClientStrategy{"confluent", "range"},
                      ClientStrategy{"confluent", "roundrobin"}, ClientStrategy{"confluent", "cooperative-sticky"}),
    [](const ::testing::TestParamInfo<ClientStrategy>& p) {
        std::string n = std::get<0>(p.param) + "_" + std::get<1>(p.param);
        for (auto& c : n)
            if (c == '-') c = '_';
        return n;
    });

class PythonClient : public PythonClients, public ::testing::WithParamInterface<std::string> {};

TEST_P(PythonClient, AdminClient) {
    const auto r = run(GetParam(), {"admin", "adm"});
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    std::vector<std::string> steps;
    for (const auto& line : json_lines(r.out))
        if (line.contains("ok")) steps.emplace_back(line.at("ok").as_string());
    // The driver checks each answer; here only that it went through all of them.
    const std::vector<std::string> kafka_python{"describe-cluster",
                                                "create-topic",
                                                "create-topic-exists",
                                                "create-topic-validate-only",
                                                "describe-topics",
                                                "create-partitions",
                                                "create-partitions-fewer",
                                                "describe-configs",
                                                "incremental-alter-configs",
                                                "describe-broker-configs",
                                                "delete-records",
                                                "list-groups",
                                                "describe-groups",
                                                "list-group-offsets",
                                                "delete-group-offsets",
                                                "delete-groups",
                                                "delete-topic",
                                                "delete-topic-again"};
    const std::vector<std::string> confluent{"describe-cluster",
                                             "create-topic",
                                             "create-topic-exists",
                                             "create-topic-validate-only",
                                             "validate-only-creates-nothing",
                                             "describe-topics",
                                             "create-partitions",
                                             "create-partitions-fewer",
                                             "describe-configs",
                                             "incremental-alter-configs",
                                             "incremental-kept-others",
                                             "describe-broker-configs",
                                             "delete-records",
                                             "list-offsets",
                                             "alter-group-offsets",
                                             "list-group-offsets",
                                             "list-groups",
                                             "describe-groups",
                                             "delete-groups",
                                             "deleted-group-gone",
                                             "delete-topic",
                                             "delete-topic-again"};
    EXPECT_EQ(steps, GetParam() == "confluent" ? confluent : kafka_python);
}

TEST_P(PythonClient, TransactionsReadCommitted) {
    const std::string topic = "py-txn", group = "py-txn-group";
    ASSERT_NO_FATAL_FAILURE(create_topic(topic, 1));
    const auto r = run(GetParam(), {"txn", topic, group});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    std::vector<std::string> steps;
    for (const auto& line : json_lines(r.out))
        if (line.contains("ok")) steps.emplace_back(line.at("ok").as_string());
    EXPECT_EQ(steps, (std::vector<std::string>{"read-committed", "read-uncommitted"}));

    // c1 at 0-4 and its marker, the aborted a at 6-10 and its marker, c2 at 12-16 and its marker.
    const auto got = consume_all(broker_.bootstrap(), {{topic, 0, RdKafka::Topic::OFFSET_BEGINNING}}, 10, 15s,
                                 {{"isolation.level", "read_committed"}});
    ASSERT_EQ(got.size(), 10u);
    for (std::size_t k = 0; k < got.size(); ++k) {
        const auto i = static_cast<int>(k % 5);
        EXPECT_EQ(got[k].offset, k < 5 ? i : 12 + i);
        EXPECT_EQ(got[k].key, (k < 5 ? "c1-" : "c2-") + std::to_string(i));
    }
    EXPECT_EQ(committed(group, topic, 0), 3) << "the offset sent to the transaction";
}

INSTANTIATE_TEST_SUITE_P(Clients, PythonClient, ::testing::Values("kafka-python", "confluent"),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                             return p.param == "confluent" ? std::string("confluent") : std::string("kafka_python");
                         });

}  // namespace
}  // namespace weir::compat
