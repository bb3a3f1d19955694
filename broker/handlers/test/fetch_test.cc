// The Fetch handler's answer on a failed read: Kafka answers a consumer no
// offsets (-1); Weir's followers learn the leader's log start from it.
#include "messages/fetch.h"

#include "broker/handlers/test/handler_fixture.h"

namespace weir::handlers::test {
namespace {

msg::FetchRequest fetch_at(std::int64_t offset, std::int32_t replica_id) {
    msg::FetchRequest r;
    r.replica_id = replica_id;
    r.replica_state.replica_id = replica_id;
    r.max_wait_ms = 0;
    r.min_bytes = 1;
    r.max_bytes = 1 << 20;
    r.session_epoch = -1;
    auto& t = r.topics.emplace_back();
    t.topic = "t";
    auto& p = t.partitions.emplace_back();
    p.fetch_offset = offset;
    p.partition_max_bytes = 1 << 20;
    return r;
}

class FetchHandlerTest : public HandlerTest {
protected:
    void SetUp() override {
        create_topic("t");
        produce("t", 0, 4);
    }
};

TEST_F(FetchHandlerTest, AConsumerPastTheEndGetsNoOffsets) {
    const auto r = call(fetch_at(9, -1), 12);
    const auto& p = r.responses.at(0).partitions.at(0);
    EXPECT_EQ(p.error_code, to_int(ErrorCode::offset_out_of_range));
    EXPECT_EQ(p.high_watermark, -1);
    EXPECT_EQ(p.last_stable_offset, -1);
    EXPECT_EQ(p.log_start_offset, -1);
}

TEST_F(FetchHandlerTest, AFollowerPastTheEndGetsTheLeadersOffsets) {
    const auto r = call(fetch_at(9, 3), 12);
    const auto& p = r.responses.at(0).partitions.at(0);
    EXPECT_EQ(p.error_code, to_int(ErrorCode::offset_out_of_range));
    EXPECT_EQ(p.high_watermark, 4);
    EXPECT_EQ(p.log_start_offset, 0);
}

TEST_F(FetchHandlerTest, AConsumerInRangeGetsTheOffsets) {
    const auto r = call(fetch_at(1, -1), 12);
    const auto& p = r.responses.at(0).partitions.at(0);
    EXPECT_EQ(p.error_code, 0);
    EXPECT_EQ(p.high_watermark, 4);
    EXPECT_EQ(p.last_stable_offset, 4);
    EXPECT_EQ(p.log_start_offset, 0);
}

}  // namespace
}  // namespace weir::handlers::test
