// Positioning a consumer: assign at an offset, seek, offsetsForTimes
// (ListOffsets by timestamp), auto.offset.reset to earliest, start at latest.
#include <gtest/gtest.h>

#include <string>

#include "harness/admin.h"
#include "harness/broker_process.h"
#include "harness/kafka_client.h"

namespace weir::compat {
namespace {

using namespace std::chrono_literals;

constexpr std::int64_t kBase = 1'600'000'000'000;

class AssignSeek : public ::testing::Test {
protected:
    void SetUp() override {
        broker_.start();
        Admin admin(broker_.bootstrap());
        const auto r = admin.create_topic(topic_, 1);
        ASSERT_EQ(r.err, RD_KAFKA_RESP_ERR_NO_ERROR) << r.describe();
    }

    // Messages `first`..`first+count-1` with value "v<i>" and CreateTime kBase + i*1000.
    // With one_batch=false every message is flushed alone (one batch each).
    void produce(int first, int count, bool one_batch = true) {
        Producer p(broker_.bootstrap(), {{"linger.ms", one_batch ? "50" : "0"}});
        for (int i = first; i < first + count; ++i) {
            OutMessage m{topic_, 0, "k" + std::to_string(i), "v" + std::to_string(i), {}, kBase + i * 1000LL};
            p.send(m);
            if (!one_batch) {
                ASSERT_TRUE(p.flush(10s));
            }
        }
        ASSERT_TRUE(p.flush(10s));
        for (const auto& d : p.deliveries()) ASSERT_EQ(d.err, RdKafka::ERR_NO_ERROR) << err_name(d.err);
    }

    static void expect_offsets(const std::vector<ConsumedMessage>& got, std::int64_t first, std::size_t count) {
        ASSERT_EQ(got.size(), count);
        for (std::size_t k = 0; k < got.size(); ++k) {
            const auto want = first + static_cast<std::int64_t>(k);
            EXPECT_EQ(got[k].offset, want);
            EXPECT_EQ(got[k].value, "v" + std::to_string(want));
            EXPECT_EQ(got[k].timestamp, kBase + want * 1000);
        }
    }

    BrokerProcess broker_;
    std::string topic_ = "positions";
};

TEST_F(AssignSeek, AssignAtOffsetThenSeek) {
    ASSERT_NO_FATAL_FAILURE(produce(0, 100));
    Consumer c(broker_.bootstrap());
    c.assign({{topic_, 0, 40}});
    expect_offsets(c.consume(10, 10s), 40, 10);

    ASSERT_EQ(c.seek({topic_, 0, 10}, 5s), RdKafka::ERR_NO_ERROR);
    expect_offsets(c.consume(5, 10s), 10, 5);

    ASSERT_EQ(c.seek({topic_, 0, 95}, 5s), RdKafka::ERR_NO_ERROR);
    expect_offsets(c.consume(5, 10s), 95, 5);
    EXPECT_FALSE(c.consume_one(300ms).has_value());

    ASSERT_EQ(c.seek({topic_, 0, RdKafka::Topic::OFFSET_BEGINNING}, 5s), RdKafka::ERR_NO_ERROR);
    expect_offsets(c.consume(3, 10s), 0, 3);
    EXPECT_TRUE(c.errors().empty()) << c.errors().front();
}

TEST_F(AssignSeek, OffsetsForTimes) {
    ASSERT_NO_FATAL_FAILURE(produce(0, 50, /*one_batch=*/true));    // timestamps inside one batch
    ASSERT_NO_FATAL_FAILURE(produce(50, 50, /*one_batch=*/false));  // one batch per message
    Consumer c(broker_.bootstrap());
    struct Case {
        std::int64_t timestamp;
        std::int64_t offset;
    };
    const std::vector<Case> cases{
        {kBase - 5000, 0},                      // before everything: first offset
        {kBase, 0},                             // exact match of the first
        {kBase + 37'000, 37},                   // exact, inside the first batch
        {kBase + 37'001, 38},                   // between: first offset with timestamp >= target
        {kBase + 49'500, 50},                   // crosses the batch boundary
        {kBase + 72'000, 72},                   // exact, single-message batches
        {kBase + 99'000, 99},                   // the last one
        {kBase + 99'001, -1},                   // after everything: no offset
        {RdKafka::Topic::OFFSET_END, 100},      // -1 = latest
        {RdKafka::Topic::OFFSET_BEGINNING, 0},  // -2 = earliest
    };
    for (const auto& tc : cases) {
        RdKafka::ErrorCode err = RdKafka::ERR_NO_ERROR;
        const auto got = c.offsets_for_times({{topic_, 0, tc.timestamp}}, 5s, &err);
        ASSERT_EQ(err, RdKafka::ERR_NO_ERROR) << err_name(err);
        ASSERT_EQ(got.size(), 1u);
        EXPECT_EQ(got[0], tc.offset) << "timestamp " << tc.timestamp - kBase << " ms after base";
    }

    // Seek by timestamp: look the offset up, then start there.
    const auto at = c.offsets_for_times({{topic_, 0, kBase + 61'500}}, 5s);
    ASSERT_EQ(at.at(0), 62);
    c.assign({{topic_, 0, at[0]}});
    expect_offsets(c.consume(3, 10s), 62, 3);
    EXPECT_TRUE(c.errors().empty()) << c.errors().front();
}

TEST_F(AssignSeek, ReplayFromEarliest) {
    ASSERT_NO_FATAL_FAILURE(produce(0, 20));
    {
        Consumer c(broker_.bootstrap());
        c.assign({{topic_, 0, RdKafka::Topic::OFFSET_BEGINNING}});
        expect_offsets(c.consume(20, 10s), 0, 20);
        EXPECT_FALSE(c.consume_one(300ms).has_value());
    }
    {
        // An offset past the end: the broker answers OFFSET_OUT_OF_RANGE and the
        // client falls back to auto.offset.reset=earliest.
        Consumer c(broker_.bootstrap(), {{"auto.offset.reset", "earliest"}});
        c.assign({{topic_, 0, 1000}});
        expect_offsets(c.consume(20, 10s), 0, 20);
    }
}

TEST_F(AssignSeek, StartAtLatest) {
    ASSERT_NO_FATAL_FAILURE(produce(0, 20));
    {
        Consumer c(broker_.bootstrap());
        c.assign({{topic_, 0, RdKafka::Topic::OFFSET_END}});
        // Let the client resolve "latest" (ListOffsets) before producing more.
        EXPECT_FALSE(c.consume_one(1500ms).has_value()) << "old messages delivered at OFFSET_END";
        ASSERT_NO_FATAL_FAILURE(produce(20, 5));
        expect_offsets(c.consume(5, 10s), 20, 5);
        EXPECT_FALSE(c.consume_one(300ms).has_value());
    }
    {
        Consumer c(broker_.bootstrap(), {{"auto.offset.reset", "latest"}});
        c.assign({{topic_, 0, 1000}});  // out of range -> reset to latest (25)
        EXPECT_FALSE(c.consume_one(1500ms).has_value()) << "old messages delivered after reset to latest";
        ASSERT_NO_FATAL_FAILURE(produce(25, 3));
        expect_offsets(c.consume(3, 10s), 25, 3);
    }
}

}  // namespace
}  // namespace weir::compat
