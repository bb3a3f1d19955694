// A leader epoch bump on a single node as clients see it: OffsetForLeaderEpoch,
// ListOffsets and Fetch answer FENCED_LEADER_EPOCH to an older epoch and
// UNKNOWN_LEADER_EPOCH to a newer one, as Kafka does, and the epoch history
// ends epoch 0 where epoch 1 began.
#include "broker/handlers/test/handler_fixture.h"

namespace weir::handlers::test {
namespace {

class LeadershipTest : public HandlerTest {
protected:
    void SetUp() override {
        create_topic("t");
        produce("t", 0, 5);  // epoch 0: offsets 0-4
        // What the metadata will send when a controller re-elects this broker.
        ASSERT_NE(partitions_->apply({"t", 0}, {kBrokerId, 1, {kBrokerId}, {kBrokerId}}), nullptr);
        produce("t", 0, 3);  // epoch 1: offsets 5-7
    }

    msg::OffsetForLeaderEpochResponse::EpochEndOffset end_offset(std::int32_t current, std::int32_t epoch) {
        msg::OffsetForLeaderEpochRequest r;
        auto& t = r.topics.emplace_back();
        t.topic = "t";
        auto& p = t.partitions.emplace_back();
        p.partition = 0;
        p.current_leader_epoch = current;
        p.leader_epoch = epoch;
        return call(r, 3).topics.at(0).partitions.at(0);
    }

    msg::ListOffsetsResponse::ListOffsetsPartitionResponse latest(std::int32_t current) {
        msg::ListOffsetsRequest r;
        r.replica_id = -1;
        auto& t = r.topics.emplace_back();
        t.name = "t";
        auto& p = t.partitions.emplace_back();
        p.partition_index = 0;
        p.current_leader_epoch = current;
        p.timestamp = -1;
        return call(r, 4).topics.at(0).partitions.at(0);
    }

    msg::FetchResponse::PartitionData fetch(std::int32_t current) {
        msg::FetchRequest r;
        r.replica_id = -1;
        r.max_wait_ms = 0;
        r.min_bytes = 0;
        auto& t = r.topics.emplace_back();
        t.topic = "t";
        auto& p = t.partitions.emplace_back();
        p.partition = 0;
        p.current_leader_epoch = current;
        p.fetch_offset = 0;
        p.partition_max_bytes = 1 << 20;
        return call(r, 12).responses.at(0).partitions.at(0);
    }
};

TEST_F(LeadershipTest, OffsetForLeaderEpoch) {
    auto old = end_offset(1, 0);
    EXPECT_EQ(old.error_code, 0);
    EXPECT_EQ(old.leader_epoch, 0);
    EXPECT_EQ(old.end_offset, 5);
    auto current = end_offset(1, 1);
    EXPECT_EQ(current.leader_epoch, 1);
    EXPECT_EQ(current.end_offset, 8);
    EXPECT_EQ(end_offset(-1, 0).end_offset, 5);  // no epoch named: no check
    EXPECT_EQ(end_offset(0, 0).error_code, to_int(ErrorCode::fenced_leader_epoch));
    EXPECT_EQ(end_offset(2, 0).error_code, to_int(ErrorCode::unknown_leader_epoch));
}

TEST_F(LeadershipTest, ListOffsets) {
    EXPECT_EQ(latest(0).error_code, to_int(ErrorCode::fenced_leader_epoch));
    EXPECT_EQ(latest(2).error_code, to_int(ErrorCode::unknown_leader_epoch));
    auto ok = latest(1);
    EXPECT_EQ(ok.error_code, 0);
    EXPECT_EQ(ok.offset, 8);
    EXPECT_EQ(ok.leader_epoch, 1);
}

TEST_F(LeadershipTest, Fetch) {
    auto fenced = fetch(0);
    EXPECT_EQ(fenced.error_code, to_int(ErrorCode::fenced_leader_epoch));
    EXPECT_EQ(fenced.high_watermark, -1);
    EXPECT_TRUE(fenced.records->empty());
    EXPECT_EQ(fetch(2).error_code, to_int(ErrorCode::unknown_leader_epoch));
    for (std::int32_t current : {1, -1}) {
        auto ok = fetch(current);
        EXPECT_EQ(ok.error_code, 0) << current;
        EXPECT_EQ(ok.high_watermark, 8);
        ASSERT_TRUE(ok.records);
        EXPECT_FALSE(ok.records->empty());
    }
}

}  // namespace
}  // namespace weir::handlers::test
