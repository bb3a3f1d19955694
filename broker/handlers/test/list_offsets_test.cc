#include "broker/handlers/test/handler_fixture.h"

namespace weir::handlers::test {
namespace {

using ListOffsetsReq = msg::ListOffsetsRequest;
using PartitionAnswer = msg::ListOffsetsResponse::ListOffsetsPartitionResponse;

ListOffsetsReq request_for(const std::string& topic, std::vector<std::pair<std::int32_t, std::int64_t>> partitions,
                           std::int32_t max_num_offsets = 1) {
    ListOffsetsReq r;
    r.replica_id = -1;
    auto& t = r.topics.emplace_back();
    t.name = topic;
    for (auto [p, ts] : partitions) {
        auto& in = t.partitions.emplace_back();
        in.partition_index = p;
        in.timestamp = ts;
        in.max_num_offsets = max_num_offsets;
    }
    return r;
}

class ListOffsetsHandlerTest : public HandlerTest {
protected:
    void SetUp() override {
        create_topic("t", 2);
        produce("t", 0, 3, 1000);  // offsets 0-2, timestamps 1000-1002
        produce("t", 0, 2, 2000);  // offsets 3-4, timestamps 2000-2001
    }

    PartitionAnswer one(std::int64_t timestamp, std::int16_t version, std::int32_t partition = 0) {
        auto r = call(request_for("t", {{partition, timestamp}}), version);
        EXPECT_EQ(r.topics.size(), 1u);
        EXPECT_EQ(r.topics[0].name, "t");
        EXPECT_EQ(r.topics[0].partitions.size(), 1u);
        return r.topics[0].partitions[0];
    }
};

TEST_F(ListOffsetsHandlerTest, LatestAndEarliest) {
    for (std::int16_t v : {1, 4, 10}) {
        auto latest = one(-1, v);
        EXPECT_EQ(latest.error_code, 0);
        EXPECT_EQ(latest.offset, 5) << v;
        EXPECT_EQ(latest.timestamp, -1);
        auto earliest = one(-2, v);
        EXPECT_EQ(earliest.offset, 0) << v;
        EXPECT_EQ(earliest.timestamp, -1);
    }
    // An empty partition.
    EXPECT_EQ(one(-1, 5, 1).offset, 0);
    EXPECT_EQ(one(-2, 5, 1).offset, 0);
}

TEST_F(ListOffsetsHandlerTest, LeaderEpochFromV4) {
    EXPECT_EQ(one(-1, 3).leader_epoch, -1);  // absent before v4
    EXPECT_EQ(one(-1, 4).leader_epoch, 0);
    EXPECT_EQ(one(-2, 4).leader_epoch, 0);
    EXPECT_EQ(one(1001, 4).leader_epoch, 0);
}

TEST_F(ListOffsetsHandlerTest, ByTimestamp) {
    auto exact = one(1001, 2);
    EXPECT_EQ(exact.offset, 1);
    EXPECT_EQ(exact.timestamp, 1001);
    auto between = one(1500, 6);
    EXPECT_EQ(between.offset, 3);
    EXPECT_EQ(between.timestamp, 2000);
    auto after = one(5000, 6);
    EXPECT_EQ(after.error_code, 0);
    EXPECT_EQ(after.offset, -1);
    EXPECT_EQ(after.timestamp, -1);
}

TEST_F(ListOffsetsHandlerTest, MaxTimestamp) {
    auto max = one(-3, 7);
    EXPECT_EQ(max.offset, 4);
    EXPECT_EQ(max.timestamp, 2001);
    auto empty = one(-3, 7, 1);
    EXPECT_EQ(empty.error_code, 0);
    EXPECT_EQ(empty.offset, -1);
    EXPECT_EQ(empty.timestamp, -1);
}

TEST_F(ListOffsetsHandlerTest, EarliestLocalAndLatestTiered) {
    EXPECT_EQ(one(-4, 8).offset, 0);
    auto tiered = one(-5, 9);
    EXPECT_EQ(tiered.offset, -1);
    EXPECT_EQ(tiered.leader_epoch, -1);
}

TEST_F(ListOffsetsHandlerTest, EarliestFollowsDeletedRecords) {
    ASSERT_EQ(log("t", 0)->delete_records_before(2).error, ErrorCode::none);
    EXPECT_EQ(one(-2, 1).offset, 2);
}

TEST_F(ListOffsetsHandlerTest, V0OldStyleOffsets) {
    auto latest = one(-1, 0);
    EXPECT_EQ(latest.error_code, 0);
    EXPECT_EQ(latest.old_style_offsets, std::vector<std::int64_t>{5});
    EXPECT_EQ(latest.offset, -1);  // v1+ fields absent
    EXPECT_EQ(one(-2, 0).old_style_offsets, std::vector<std::int64_t>{0});
    // Segment-wise: the log end, then each segment's base offset.
    auto many = call(request_for("t", {{0, -1}}, 10), 0);
    EXPECT_EQ(many.topics[0].partitions[0].old_style_offsets, (std::vector<std::int64_t>{5, 0}));
    auto none = call(request_for("t", {{0, -1}}, 0), 0);
    EXPECT_TRUE(none.topics[0].partitions[0].old_style_offsets.empty());
}

TEST_F(ListOffsetsHandlerTest, V0ListsSegmentBaseOffsets) {
    create_topic("small", 1, {{"segment.bytes", "100"}});
    for (int i = 0; i < 3; ++i) produce("small", 0, 2, 1000 + i);
    auto bases = log("small", 0)->segment_base_offsets();
    ASSERT_GE(bases.size(), 2u);
    std::vector<std::int64_t> expected{6};
    for (auto it = bases.rbegin(); it != bases.rend(); ++it)
        if (*it < 6) expected.push_back(*it);
    auto r = call(request_for("small", {{0, -1}}, 100), 0);
    EXPECT_EQ(r.topics[0].partitions[0].old_style_offsets, expected);
}

TEST_F(ListOffsetsHandlerTest, UnknownTopicOrPartition) {
    auto missing_partition = one(-1, 1, 9);
    EXPECT_EQ(missing_partition.error_code, to_int(ErrorCode::unknown_topic_or_partition));
    EXPECT_EQ(missing_partition.offset, -1);
    EXPECT_EQ(missing_partition.timestamp, -1);
    auto r = call(request_for("nope", {{0, -1}}), 0);
    EXPECT_EQ(r.topics[0].partitions[0].error_code, to_int(ErrorCode::unknown_topic_or_partition));
    EXPECT_TRUE(r.topics[0].partitions[0].old_style_offsets.empty());
}

TEST_F(ListOffsetsHandlerTest, DuplicatePartitionsAreInvalidFromV1) {
    auto r = call(request_for("t", {{0, -1}, {0, -2}, {1, -1}}), 5);
    const auto& ps = r.topics[0].partitions;
    ASSERT_EQ(ps.size(), 3u);
    EXPECT_EQ(ps[0].error_code, to_int(ErrorCode::invalid_request));
    EXPECT_EQ(ps[0].offset, -1);
    EXPECT_EQ(ps[1].error_code, to_int(ErrorCode::invalid_request));
    EXPECT_EQ(ps[2].error_code, 0);
    // v0 does not check.
    auto v0 = call(request_for("t", {{0, -1}, {0, -2}}), 0);
    EXPECT_EQ(v0.topics[0].partitions[0].error_code, 0);
    EXPECT_EQ(v0.topics[0].partitions[1].error_code, 0);
}

TEST_F(ListOffsetsHandlerTest, CurrentLeaderEpochIsChecked) {
    auto r = request_for("t", {{0, -1}});
    r.topics[0].partitions[0].current_leader_epoch = 3;
    EXPECT_EQ(call(r, 4).topics[0].partitions[0].error_code, to_int(ErrorCode::unknown_leader_epoch));
    // Before v4 the field is not sent.
    EXPECT_EQ(call(r, 3).topics[0].partitions[0].error_code, 0);
    r.topics[0].partitions[0].current_leader_epoch = 0;
    EXPECT_EQ(call(r, 10).topics[0].partitions[0].error_code, 0);
}

TEST_F(ListOffsetsHandlerTest, ReadCommittedAndReplicaRequests) {
    auto r = request_for("t", {{0, -1}});
    r.isolation_level = 1;
    EXPECT_EQ(call(r, 2).topics[0].partitions[0].offset, 5);
    r.replica_id = -2;  // debugging replica: log end offset
    EXPECT_EQ(call(r, 2).topics[0].partitions[0].offset, 5);
}

}  // namespace
}  // namespace weir::handlers::test
