// Debian's kcat against the broker: metadata listing, produce from stdin,
// consume to end of partition, relative and timestamp offsets.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "harness/admin.h"
#include "harness/broker_process.h"
#include "harness/subprocess.h"

namespace weir::compat {
namespace {

using namespace std::chrono_literals;

class Kcat : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_STRNE(WEIR_KCAT, "") << "kcat not found at configure time (Debian package kcat)";
        broker_.start();
    }

    ProcessResult kcat(std::vector<std::string> args, const std::string& stdin_data = {}) {
        std::vector<std::string> argv{WEIR_KCAT, "-b", broker_.bootstrap()};
        argv.insert(argv.end(), args.begin(), args.end());
        return run_process(argv, 20s, {.stdin_data = stdin_data});
    }

    BrokerProcess broker_;
};

std::string lines(int first, int count, const std::string& fmt_key_prefix, const std::string& sep) {
    std::ostringstream out;
    for (int i = first; i < first + count; ++i) out << fmt_key_prefix << i << sep << "value-" << i << "\n";
    return out.str();
}

TEST_F(Kcat, MetadataListing) {
    {
        Admin admin(broker_.bootstrap());
        ASSERT_EQ(admin.create_topic("listed", 2).err, RD_KAFKA_RESP_ERR_NO_ERROR);
    }
    const auto r = kcat({"-L"});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_NE(r.out.find("1 brokers:"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("broker 0 at 127.0.0.1:" + std::to_string(broker_.port())), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("topic \"listed\" with 2 partitions:"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("partition 1, leader 0, replicas: 0, isrs: 0"), std::string::npos) << r.out;
}

TEST_F(Kcat, ProduceAndConsume) {
    // -K: splits key and value; the topic is auto-created.
    const auto p = kcat({"-P", "-t", "kc", "-p", "0", "-K", ":"}, lines(0, 20, "key-", ":"));
    ASSERT_EQ(p.exit_code, 0) << p.describe();

    auto c = kcat({"-C", "-t", "kc", "-p", "0", "-o", "beginning", "-e", "-f", "%k=%s@%o\n"});
    ASSERT_EQ(c.exit_code, 0) << c.describe();
    std::ostringstream want;
    for (int i = 0; i < 20; ++i) want << "key-" << i << "=value-" << i << "@" << i << "\n";
    EXPECT_EQ(c.out, want.str());

    // Last 3 (relative to the end) and a count limit.
    c = kcat({"-C", "-t", "kc", "-p", "0", "-o", "-3", "-e", "-f", "%o %s\n"});
    ASSERT_EQ(c.exit_code, 0) << c.describe();
    EXPECT_EQ(c.out, "17 value-17\n18 value-18\n19 value-19\n");
    c = kcat({"-C", "-t", "kc", "-p", "0", "-o", "5", "-c", "2", "-f", "%o %k\n"});
    ASSERT_EQ(c.exit_code, 0) << c.describe();
    EXPECT_EQ(c.out, "5 key-5\n6 key-6\n");

    // Metadata now shows the auto-created topic.
    const auto l = kcat({"-L", "-t", "kc"});
    ASSERT_EQ(l.exit_code, 0) << l.describe();
    EXPECT_NE(l.out.find("topic \"kc\" with 1 partitions:"), std::string::npos) << l.out;
}

TEST_F(Kcat, TimestampsAndOffsetQuery) {
    // kcat -P cannot set timestamps: read back the CreateTimes it stamped (%T)
    // and query offsets for those times (-Q, ListOffsets by timestamp).
    const auto p = kcat({"-P", "-t", "ts", "-p", "0"}, "a\nb\nc\n");
    ASSERT_EQ(p.exit_code, 0) << p.describe();
    const auto c = kcat({"-C", "-t", "ts", "-p", "0", "-o", "beginning", "-e", "-f", "%T\n"});
    ASSERT_EQ(c.exit_code, 0) << c.describe();
    std::istringstream in(c.out);
    std::vector<long long> ts;
    for (std::string line; std::getline(in, line);) ts.push_back(std::stoll(line));
    ASSERT_EQ(ts.size(), 3u) << c.out;
    EXPECT_GT(ts[0], 1'600'000'000'000LL) << "CreateTime set by the client should come back";

    const auto q = kcat({"-Q", "-t", "ts:0:" + std::to_string(ts[0])});
    ASSERT_EQ(q.exit_code, 0) << q.describe();
    EXPECT_NE(q.out.find("ts [0] offset 0"), std::string::npos) << q.out;
    const auto q_end = kcat({"-Q", "-t", "ts:0:" + std::to_string(ts[2] + 60'000)});
    ASSERT_EQ(q_end.exit_code, 0) << q_end.describe();
    EXPECT_NE(q_end.out.find("ts [0] offset -1"), std::string::npos) << q_end.out;
}

}  // namespace
}  // namespace weir::compat
