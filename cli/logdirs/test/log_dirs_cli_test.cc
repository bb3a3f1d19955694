// `weir log-dirs`: Kafka's JSON for DescribeLogDirs answers, the topic filter,
// the exception name of a failed dir, and the command line's errors.
#include "cli/logdirs/log_dirs_cli.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <sstream>

#include "protocol/errors.h"

namespace weir::cli::logdirs {
namespace {

namespace json = boost::json;

BrokerLogDirs answer() {
    BrokerLogDirs b;
    b.broker = 3;
    auto& ok = b.response.results.emplace_back();
    ok.log_dir = "/data/a";
    for (const char* name : {"t", "u"}) {
        auto& t = ok.topics.emplace_back();
        t.name = name;
        auto& p = t.partitions.emplace_back();
        p.partition_index = 2;
        p.partition_size = 1234;
        p.offset_lag = 5;
    }
    auto& failed = b.response.results.emplace_back();
    failed.log_dir = "/data/b";
    failed.error_code = to_int(ErrorCode::kafka_storage_error);
    return b;
}

TEST(LogDirsJson, KafkasDocument) {
    auto doc = json::parse(log_dirs_json({answer()}, {})).as_object();
    EXPECT_EQ(doc.at("version").as_int64(), 1);
    const auto& broker = doc.at("brokers").as_array().at(0).as_object();
    EXPECT_EQ(broker.at("broker").as_int64(), 3);
    const auto& dirs = broker.at("logDirs").as_array();
    ASSERT_EQ(dirs.size(), 2u);
    EXPECT_EQ(dirs[0].at("logDir").as_string(), "/data/a");
    EXPECT_TRUE(dirs[0].at("error").is_null());
    const auto& partitions = dirs[0].at("partitions").as_array();
    ASSERT_EQ(partitions.size(), 2u);
    EXPECT_EQ(partitions[0].at("partition").as_string(), "t-2");
    EXPECT_EQ(partitions[0].at("size").as_int64(), 1234);
    EXPECT_EQ(partitions[0].at("offsetLag").as_int64(), 5);
    EXPECT_FALSE(partitions[0].at("isFuture").as_bool());
    EXPECT_EQ(dirs[1].at("error").as_string(), "org.apache.kafka.common.errors.KafkaStorageException");
    EXPECT_TRUE(dirs[1].at("partitions").as_array().empty());
}

TEST(LogDirsJson, TheTopicListKeepsItsTopicsOnly) {
    auto doc = json::parse(log_dirs_json({answer()}, {"u"})).as_object();
    const auto& partitions =
        doc.at("brokers").as_array().at(0).at("logDirs").as_array().at(0).at("partitions").as_array();
    ASSERT_EQ(partitions.size(), 1u);
    EXPECT_EQ(partitions[0].at("partition").as_string(), "u-2");
}

TEST(LogDirsCommandLine, BadArgumentsAreUsageErrors) {
    for (const auto& args :
         std::vector<std::vector<std::string>>{{"--bootstrap-server", "h:1"},  // no --describe
                                               {"--describe"},                 // no bootstrap
                                               {"--describe", "--bootstrap-server", "h:1", "--broker-list", "x"},
                                               {"--describe", "--bootstrap-server", "h:1", "--nope"},
                                               {"--describe", "--bootstrap-server"}}) {
        std::ostringstream out, err;
        EXPECT_EQ(run_log_dirs(args, out, err), 2) << err.str();
        EXPECT_NE(err.str().find("Usage: weir log-dirs"), std::string::npos);
    }
    std::ostringstream out, err;
    EXPECT_EQ(run_log_dirs({"--help"}, out, err), 0);
    EXPECT_NE(out.str().find("--describe"), std::string::npos);
}

}  // namespace
}  // namespace weir::cli::logdirs
