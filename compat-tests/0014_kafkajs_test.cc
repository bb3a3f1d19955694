// kafkajs 2.2.4 (npm; pure JavaScript: its own protocol code, group membership
// and assignor): admin, produce with acks=all (plain and gzip), a two-member
// group splitting the partitions, committed offsets, resume after the commit,
// list/describe/delete groups and topics. The scenario is kafkajs/scenario.js.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "harness/broker_process.h"
#include "harness/subprocess.h"

namespace weir::compat {
namespace {

using namespace std::chrono_literals;
namespace json = boost::json;

TEST(Kafkajs, ProduceGroupConsumeAndAdmin) {
    ASSERT_STRNE(WEIR_NODE, "") << "node not found";
    const auto dir = std::filesystem::path(WEIR_COMPAT_SOURCE_DIR) / "kafkajs";
    ASSERT_TRUE(std::filesystem::exists(dir / "node_modules" / "kafkajs")) << "run scripts/install-deps.sh";
    BrokerOptions options;
    options.overrides["group.initial.rebalance.delay.ms"] = "0";
    BrokerProcess broker(options);
    broker.start();

    const auto r = run_process({WEIR_NODE, (dir / "scenario.js").string(), broker.bootstrap(), "kjs"}, 120s);
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    std::map<std::string, json::object> steps;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);) {
        auto v = json::parse(line).as_object();
        steps[std::string(v.at("step").as_string())] = v;
    }

    EXPECT_TRUE(steps.at("create").at("created").as_bool());
    EXPECT_EQ(steps.at("metadata").at("partitions").as_int64(), 3);
    for (const auto& o : steps.at("produced").at("offsets").as_array()) {
        EXPECT_EQ(o.at("low").as_int64(), 0);
        EXPECT_EQ(o.at("high").as_int64(), 1000);
    }
    const auto& consumed = steps.at("consumed");
    EXPECT_TRUE(consumed.at("ordered").as_bool()) << "offsets in order and each message once per partition";
    EXPECT_TRUE(consumed.at("intact").as_bool()) << "keys, values and headers as produced";
    std::set<std::int64_t> members;
    for (const auto& [partition, count] : consumed.at("perPartition").as_object()) {
        EXPECT_EQ(count.as_int64(), 1000) << "partition " << partition;
        const auto& owners = consumed.at("owners").at(partition).as_array();
        EXPECT_EQ(owners.size(), 1u) << "partition " << partition << " went to one member";
        for (const auto& m : owners) members.insert(m.as_int64());
    }
    EXPECT_EQ(members.size(), 2u) << "both members got partitions";
    for (const auto& o : steps.at("committed").at("offsets").as_array()) EXPECT_EQ(o.at("offset").as_int64(), 1000);
    EXPECT_EQ(steps.at("described").at("state").as_string(), "Empty");
    EXPECT_EQ(steps.at("described").at("protocolType").as_string(), "consumer");
    EXPECT_EQ(json::serialize(steps.at("resumed").at("got")), R"(["late"])") << "nothing committed is re-read";
    EXPECT_EQ(json::serialize(steps.at("listed").at("groups")), R"(["kjs-group"])");
    EXPECT_TRUE(steps.at("deleted").at("topicGone").as_bool());
}

}  // namespace
}  // namespace weir::compat
