#include "broker/handlers/test/handler_fixture.h"

namespace weir::handlers::test {
namespace {

using DeleteRecordsReq = msg::DeleteRecordsRequest;

DeleteRecordsReq delete_before(const std::string& topic,
                               std::vector<std::pair<std::int32_t, std::int64_t>> partitions) {
    DeleteRecordsReq r;
    r.timeout_ms = 30000;
    auto& t = r.topics.emplace_back();
    t.name = topic;
    for (auto [p, offset] : partitions) t.partitions.push_back({p, offset, {}});
    return r;
}

class DeleteRecordsHandlerTest : public HandlerTest {
protected:
    void SetUp() override {
        create_topic("t", 3);
        produce("t", 0, 5);
        produce("t", 1, 2);
    }
};

TEST_F(DeleteRecordsHandlerTest, MovesTheLogStartOffset) {
    auto r = call(delete_before("t", {{0, 3}}), 0);
    ASSERT_EQ(r.topics.size(), 1u);
    EXPECT_EQ(r.topics[0].name, "t");
    ASSERT_EQ(r.topics[0].partitions.size(), 1u);
    EXPECT_EQ(r.topics[0].partitions[0].partition_index, 0);
    EXPECT_EQ(r.topics[0].partitions[0].error_code, 0);
    EXPECT_EQ(r.topics[0].partitions[0].low_watermark, 3);
    EXPECT_EQ(log("t", 0)->log_start_offset(), 3);
    // An offset below the current start changes nothing.
    auto again = call(delete_before("t", {{0, 1}}), 1);
    EXPECT_EQ(again.topics[0].partitions[0].low_watermark, 3);
}

TEST_F(DeleteRecordsHandlerTest, MinusOneMeansHighWatermark) {
    auto r = call(delete_before("t", {{0, -1}, {1, -1}, {2, -1}}), 2);
    ASSERT_EQ(r.topics[0].partitions.size(), 3u);
    EXPECT_EQ(r.topics[0].partitions[0].low_watermark, 5);
    EXPECT_EQ(r.topics[0].partitions[1].low_watermark, 2);
    EXPECT_EQ(r.topics[0].partitions[2].low_watermark, 0);
    EXPECT_EQ(log("t", 1)->log_start_offset(), 2);
}

TEST_F(DeleteRecordsHandlerTest, OutOfRange) {
    auto r = call(delete_before("t", {{0, 6}, {1, -7}}), 1);
    for (const auto& p : r.topics[0].partitions) {
        EXPECT_EQ(p.error_code, to_int(ErrorCode::offset_out_of_range));
        EXPECT_EQ(p.low_watermark, -1);
    }
    EXPECT_EQ(log("t", 0)->log_start_offset(), 0);
}

TEST_F(DeleteRecordsHandlerTest, UnknownPartitionsAndGrouping) {
    auto r = delete_before("t", {{9, 0}});
    r.topics.push_back({"missing", {{0, 0, {}}}, {}});
    r.topics.push_back({"t", {{0, 2, {}}}, {}});
    auto answer = call(r, 1);
    ASSERT_EQ(answer.topics.size(), 2u);
    EXPECT_EQ(answer.topics[0].name, "t");
    ASSERT_EQ(answer.topics[0].partitions.size(), 2u);
    EXPECT_EQ(answer.topics[0].partitions[0].error_code, to_int(ErrorCode::unknown_topic_or_partition));
    EXPECT_EQ(answer.topics[0].partitions[0].low_watermark, -1);
    EXPECT_EQ(answer.topics[0].partitions[1].low_watermark, 2);
    EXPECT_EQ(answer.topics[1].partitions[0].error_code, to_int(ErrorCode::unknown_topic_or_partition));
}

TEST_F(DeleteRecordsHandlerTest, PolicyAndInternalTopics) {
    create_topic("compacted", 1, {{"cleanup.policy", "compact"}});
    EXPECT_EQ(call(delete_before("compacted", {{0, -1}}), 1).topics[0].partitions[0].error_code,
              to_int(ErrorCode::policy_violation));
    create_topic("__consumer_offsets");
    EXPECT_EQ(call(delete_before("__consumer_offsets", {{0, -1}}), 1).topics[0].partitions[0].error_code,
              to_int(ErrorCode::invalid_topic_exception));
}

}  // namespace
}  // namespace weir::handlers::test
