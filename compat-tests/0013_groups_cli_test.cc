// The `weir groups` binary end to end against a weir broker. Covers what the unit tests
// against librdkafka's mock cannot: list, members and state in describe, the refusal to
// reset an active group, and delete.
#include <gtest/gtest.h>
#include <librdkafka/rdkafka.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <memory>

#include "cli/groups/test/groups_test_support.h"
#include "harness/broker_process.h"
#include "harness/subprocess.h"

namespace weir::cli {
namespace {

using test::CliResult;
using test::RdKafka;

const std::map<std::int32_t, int> kProduced = {{0, 10}, {1, 5}, {2, 7}};

void create_topic(const std::string& bootstrap, const std::string& topic, int partitions) {
    RdKafka rk = test::make_client(RD_KAFKA_PRODUCER, {{"bootstrap.servers", bootstrap}});
    ASSERT_TRUE(rk);
    char errstr[512];
    rd_kafka_NewTopic_t* nt = rd_kafka_NewTopic_new(topic.c_str(), partitions, 1, errstr, sizeof errstr);
    ASSERT_NE(nt, nullptr) << errstr;
    rdkafka::Queue q(rd_kafka_queue_new(rk.get()));
    rdkafka::AdminOptions o(rd_kafka_AdminOptions_new(rk.get(), RD_KAFKA_ADMIN_OP_CREATETOPICS));
    rd_kafka_AdminOptions_set_operation_timeout(o.get(), test::kWaitMs, errstr, sizeof errstr);
    rd_kafka_CreateTopics(rk.get(), &nt, 1, o.get(), q.get());
    rd_kafka_NewTopic_destroy(nt);
    rdkafka::Event ev(rd_kafka_queue_poll(q.get(), 2 * test::kWaitMs));
    ASSERT_TRUE(ev) << "CreateTopics timed out";
    ASSERT_EQ(rd_kafka_event_error(ev.get()), RD_KAFKA_RESP_ERR_NO_ERROR) << rd_kafka_event_error_string(ev.get());
    std::size_t n = 0;
    const rd_kafka_topic_result_t** results =
        rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(ev.get()), &n);
    ASSERT_EQ(n, 1U);
    ASSERT_EQ(rd_kafka_topic_result_error(results[0]), RD_KAFKA_RESP_ERR_NO_ERROR)
        << rd_kafka_topic_result_error_string(results[0]);
}

class GroupsBrokerTest : public ::testing::Test {
protected:
    void SetUp() override {
        broker_.start();
        bootstrap_ = broker_.bootstrap();
        topic_ = "groups-cli";
        group_ = "groups-cli-g";
        ASSERT_NO_FATAL_FAILURE(create_topic(bootstrap_, topic_, 3));
        ASSERT_NO_FATAL_FAILURE(test::produce(bootstrap_, topic_, kProduced));
    }

    CliResult groups(std::vector<std::string> args) {
        args.insert(args.begin(), {WEIR_BINARY, "groups", "--bootstrap-server", bootstrap_, "--timeout-ms", "10000"});
        auto p = compat::run_process(args, std::chrono::seconds(60));
        EXPECT_FALSE(p.timed_out) << p.describe();
        return {p.exit_code, p.out, p.err};
    }

    // A subscribed consumer that holds all three partitions, with offsets committed in its generation.
    RdKafka join_and_commit(const std::map<std::int32_t, std::int64_t>& offsets) {
        RdKafka c = test::make_client(RD_KAFKA_CONSUMER, {{"bootstrap.servers", bootstrap_},
                                                          {"group.id", group_},
                                                          {"client.id", "groups-cli-test"},
                                                          {"enable.auto.commit", "false"},
                                                          {"auto.offset.reset", "earliest"}});
        if (!c) return c;
        test::PartitionList sub(rd_kafka_topic_partition_list_new(1));
        rd_kafka_topic_partition_list_add(sub.get(), topic_.c_str(), RD_KAFKA_PARTITION_UA);
        EXPECT_EQ(rd_kafka_subscribe(c.get(), sub.get()), RD_KAFKA_RESP_ERR_NO_ERROR);
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        int assigned = 0;
        while (assigned < 3 && std::chrono::steady_clock::now() < deadline) {
            if (rd_kafka_message_t* m = rd_kafka_consumer_poll(c.get(), 200)) rd_kafka_message_destroy(m);
            rd_kafka_topic_partition_list_t* a = nullptr;
            if (rd_kafka_assignment(c.get(), &a) == RD_KAFKA_RESP_ERR_NO_ERROR) {
                assigned = a->cnt;
                rd_kafka_topic_partition_list_destroy(a);
            }
        }
        EXPECT_EQ(assigned, 3) << "consumer did not get its assignment";
        test::PartitionList list = test::offsets_list(topic_, offsets);
        EXPECT_EQ(rd_kafka_commit(c.get(), list.get(), 0), RD_KAFKA_RESP_ERR_NO_ERROR);
        return c;
    }

    compat::BrokerProcess broker_;
    std::string bootstrap_;
    std::string topic_;
    std::string group_;
};

TEST_F(GroupsBrokerTest, FullLifecycle) {
    const std::map<std::int32_t, std::int64_t> first = {{0, 4}, {1, 5}, {2, 0}};
    RdKafka consumer = join_and_commit(first);
    ASSERT_TRUE(consumer);

    auto r = groups({"list"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find(group_ + "\n"), std::string::npos) << r.out;
    r = groups({"list", "--state"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find(group_ + " Stable"), std::string::npos) << r.out;

    // Active: describe shows the member on every row; reset and delete are refused.
    r = groups({"describe", group_});
    ASSERT_EQ(r.code, 0) << r.err;
    auto state = test::table_rows(r.out, "GROUP COORDINATOR");
    ASSERT_EQ(state.size(), 1U) << r.out;
    EXPECT_EQ(state[0].at(state[0].size() - 2), "Stable");
    EXPECT_EQ(state[0].back(), "1");
    auto rows = test::table_rows(r.out, "GROUP TOPIC");
    ASSERT_EQ(rows.size(), 3U) << r.out;
    for (const auto& [partition, offset] : first) {
        const auto& row = rows.at(static_cast<std::size_t>(partition));
        ASSERT_EQ(row.size(), 9U) << r.out;
        EXPECT_EQ(row[1], topic_);
        EXPECT_EQ(row[3], std::to_string(offset));
        EXPECT_EQ(row[4], std::to_string(kProduced.at(partition)));
        EXPECT_EQ(row[5], std::to_string(kProduced.at(partition) - offset));
        EXPECT_NE(row[6], "-");
        EXPECT_EQ(row[8], "groups-cli-test");
    }

    r = groups({"reset-offsets", group_, "--topic", topic_, "--to-earliest", "--execute"});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("Assignments can only be reset if the group '" + group_ +
                         "' is inactive, but the current state is Stable."),
              std::string::npos)
        << r.err;
    r = groups({"delete", group_});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("Deletion of consumer group"), std::string::npos) << r.err;
    EXPECT_EQ(test::committed(bootstrap_, group_, topic_, 3), first);

    ASSERT_EQ(rd_kafka_consumer_close(consumer.get()), RD_KAFKA_RESP_ERR_NO_ERROR);
    consumer.reset();

    // Inactive: no owners, same figures.
    r = groups({"describe", group_});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("has no active members"), std::string::npos) << r.out;
    rows = test::table_rows(r.out, "GROUP TOPIC");
    ASSERT_EQ(rows.size(), 3U) << r.out;
    EXPECT_EQ(rows[0][5], "6");
    EXPECT_EQ(rows[0][6], "-");

    r = groups({"reset-offsets", group_, "--topic", topic_, "--to-latest"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(test::committed(bootstrap_, group_, topic_, 3), first);
    r = groups({"reset-offsets", group_, "--topic", topic_, "--to-latest", "--execute"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(test::committed(bootstrap_, group_, topic_, 3),
              (std::map<std::int32_t, std::int64_t>{{0, 10}, {1, 5}, {2, 7}}));
    r = groups({"reset-offsets", group_, "--topic", topic_ + ":1", "--to-offset", "2", "--execute"});
    ASSERT_EQ(r.code, 0) << r.err;
    r = groups({"reset-offsets", group_, "--all-topics", "--to-datetime", "2000-01-01T00:00:00Z", "--execute"});
    ASSERT_EQ(r.code, 0) << r.err;  // every record is newer: the start of each log
    EXPECT_EQ(test::committed(bootstrap_, group_, topic_, 3),
              (std::map<std::int32_t, std::int64_t>{{0, 0}, {1, 0}, {2, 0}}));

    r = groups({"delete", group_});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("was successful"), std::string::npos);
    r = groups({"describe", group_});
    EXPECT_EQ(r.code, 1) << r.out;
    EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;
    EXPECT_TRUE(test::committed(bootstrap_, group_, topic_, 3).empty());
    r = groups({"list"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out.find(group_ + "\n"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace weir::cli
