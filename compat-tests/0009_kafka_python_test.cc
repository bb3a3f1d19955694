// kafka-python 2.0.2 (Debian python3-kafka): producer + assign-mode consumer,
// with its automatic version probe and with pinned older protocol versions
// (0.10.0: magic-1 messages; 0.9: magic 0).
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "harness/admin.h"
#include "harness/broker_process.h"
#include "harness/kafka_client.h"
#include "harness/subprocess.h"

namespace weir::compat {
namespace {

using namespace std::chrono_literals;
namespace json = boost::json;

constexpr std::int64_t kBaseTs = 1'690'000'000'000;
constexpr int kCount = 50;

// "2.5.0" -> {2, 5, 0}
std::vector<int> version_parts(const std::string& v) {
    std::vector<int> out;
    std::istringstream in(v);
    for (std::string part; std::getline(in, part, '.');) out.push_back(std::stoi(part));
    return out;
}

class KafkaPython : public ::testing::TestWithParam<std::string> {};

TEST_P(KafkaPython, ProduceAndConsume) {
    const std::string api = GetParam();
    ASSERT_STRNE(WEIR_DEBIAN_PYTHON, "") << "/usr/bin/python3 not found";
    {
        const auto probe = run_process({WEIR_DEBIAN_PYTHON, "-c", "import kafka; print(kafka.__version__)"}, 20s);
        ASSERT_EQ(probe.exit_code, 0) << "python3-kafka missing:\n" << probe.describe();
    }
    BrokerProcess broker;
    broker.start();
    const std::string topic = "py";
    {
        Admin admin(broker.bootstrap());
        ASSERT_EQ(admin.create_topic(topic, 1).err, RD_KAFKA_RESP_ERR_NO_ERROR);
    }

    const auto script = std::filesystem::path(WEIR_COMPAT_SOURCE_DIR) / "python" / "kafka_python_roundtrip.py";
    const auto r =
        run_process({WEIR_DEBIAN_PYTHON, script.string(), broker.bootstrap(), topic, std::to_string(kCount), api}, 45s);
    ASSERT_EQ(r.exit_code, 0) << r.describe();

    std::string resolved;
    std::vector<json::object> produced, consumed;
    std::optional<std::int64_t> end_offset;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);) {
        const auto obj = json::parse(line).as_object();
        if (obj.contains("api_version")) resolved = std::string(obj.at("api_version").as_string());
        if (obj.contains("produced")) produced.push_back(obj);
        if (obj.contains("consumed")) consumed.push_back(obj);
        if (obj.contains("end_offset") && !obj.at("end_offset").is_null())
            end_offset = obj.at("end_offset").to_number<std::int64_t>();
    }
    RecordProperty("kafka_python_api_version", resolved);
    std::cout << "[compat] kafka-python api_version=" << api << " resolved to " << resolved << "\n";
    if (api != "auto") {
        EXPECT_EQ(resolved.rfind(api.substr(0, 3), 0), 0u) << resolved;
    }
    ASSERT_FALSE(resolved.empty()) << r.out;
    const bool v2 = version_parts(resolved) >= std::vector<int>{0, 11};
    const bool has_ts = version_parts(resolved) >= std::vector<int>{0, 10};

    ASSERT_EQ(produced.size(), static_cast<std::size_t>(kCount)) << r.out;
    for (std::size_t i = 0; i < produced.size(); ++i) {
        EXPECT_EQ(produced[i].at("offset").to_number<std::int64_t>(), static_cast<std::int64_t>(i));
    }
    ASSERT_EQ(consumed.size(), static_cast<std::size_t>(kCount)) << r.out;
    for (std::size_t i = 0; i < consumed.size(); ++i) {
        const auto& c = consumed[i];
        SCOPED_TRACE("offset " + std::to_string(i));
        EXPECT_EQ(c.at("offset").to_number<std::int64_t>(), static_cast<std::int64_t>(i));
        EXPECT_EQ(c.at("key").as_string(), "key-" + std::to_string(i));
        EXPECT_EQ(c.at("value").as_string(), "py-value-" + std::to_string(i));
        if (has_ts) {
            EXPECT_EQ(c.at("timestamp").to_number<std::int64_t>(), kBaseTs + static_cast<std::int64_t>(i));
        }
        if (v2) {
            const auto& h = c.at("headers").as_array();
            ASSERT_EQ(h.size(), 2u);
            EXPECT_EQ(h[0].as_array()[1].as_string(), "hv-" + std::to_string(i));
            EXPECT_EQ(h[1].as_array()[1].as_string(), "") << "kafka-python sends no null header values";
        }
    }
    if (end_offset) {
        EXPECT_EQ(*end_offset, kCount);
    }

    // librdkafka (magic 2) reads what kafka-python wrote in whatever format it chose.
    const auto got = consume_all(broker.bootstrap(), {{topic, 0, RdKafka::Topic::OFFSET_BEGINNING}}, kCount, 15s);
    ASSERT_EQ(got.size(), static_cast<std::size_t>(kCount));
    for (std::size_t i = 0; i < got.size(); ++i) {
        EXPECT_EQ(got[i].offset, static_cast<std::int64_t>(i));
        EXPECT_EQ(got[i].key, "key-" + std::to_string(i));
        EXPECT_EQ(got[i].value, "py-value-" + std::to_string(i));
        EXPECT_EQ(got[i].timestamp, has_ts ? kBaseTs + static_cast<std::int64_t>(i) : -1);
        if (v2) {
            EXPECT_EQ(got[i].headers.size(), 2u);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(ApiVersions, KafkaPython, ::testing::Values("auto", "0.10.0", "0.9"),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                             std::string n = p.param;
                             for (auto& ch : n)
                                 if (ch == '.') ch = '_';
                             return n;
                         });

}  // namespace
}  // namespace weir::compat
