#include "broker/admin/group_views.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "messages/consumer_protocol.h"
#include "protocol/wire/writer.h"

namespace weir::admin {
namespace {

namespace json = boost::json;

wire::Bytes encoded_assignment(std::int16_t version) {
    msg::ConsumerProtocolAssignment a;
    a.assigned_partitions.push_back({"t2", {1}, {}});
    a.assigned_partitions.push_back({"t1", {2, 0}, {}});
    wire::Bytes out;
    wire::Writer w(out);
    w.int16(version);
    a.encode(w, version);
    return out;
}

TEST(DecodeAssignmentTest, ConsumerProtocolAssignmentOfAnyVersion) {
    const std::vector<TopicPartition> expected{{"t1", 0}, {"t1", 2}, {"t2", 1}};
    EXPECT_EQ(decode_assignment(encoded_assignment(0), "consumer"), expected);
    EXPECT_EQ(decode_assignment(encoded_assignment(3), "consumer"), expected);
}

TEST(DecodeAssignmentTest, OtherProtocolsAndGarbageGiveNothing) {
    EXPECT_TRUE(decode_assignment(encoded_assignment(0), "connect").empty());
    const wire::Bytes garbage{0, 0, 0, 0, 0, 9};
    EXPECT_TRUE(decode_assignment(garbage, "consumer").empty());
    EXPECT_TRUE(decode_assignment({}, "consumer").empty());
}

TEST(CommittedOffsetTest, LagIsHighWatermarkMinusCommittedNeverNegative) {
    EXPECT_EQ((CommittedOffset{{"t", 0}, 40, 100}.lag()), 60);
    EXPECT_EQ((CommittedOffset{{"t", 0}, 100, 100}.lag()), 0);
    // A committed offset beyond the high watermark (after DeleteRecords or truncation).
    EXPECT_EQ((CommittedOffset{{"t", 0}, 120, 100}.lag()), 0);
    EXPECT_FALSE((CommittedOffset{{"t", 0}, 40, std::nullopt}.lag()).has_value());
}

TEST(GroupViewsTest, GroupJsonHasMembersAssignmentOffsetsAndLag) {
    GroupState g;
    g.group_id = "billing";
    g.state = "Stable";
    g.protocol_type = "consumer";
    g.protocol = "range";
    g.members.push_back({"m-1", std::nullopt, "client-a", "/127.0.0.1", {{"t", 0}, {"t", 1}}});
    g.members.push_back({"m-2", "static-2", "client-b", "/10.0.0.2", {}});
    g.offsets.push_back({{"t", 0}, 7, 10});
    g.offsets.push_back({{"t", 1}, 3, std::nullopt});
    const auto v = group_json(g);
    const auto expected = json::parse(R"({
        "group_id": "billing", "state": "Stable", "protocol_type": "consumer", "protocol": "range",
        "members": [
            {"member_id": "m-1", "group_instance_id": null, "client_id": "client-a", "client_host": "/127.0.0.1",
             "assignment": [{"topic": "t", "partition": 0}, {"topic": "t", "partition": 1}]},
            {"member_id": "m-2", "group_instance_id": "static-2", "client_id": "client-b", "client_host": "/10.0.0.2",
             "assignment": []}],
        "offsets": [
            {"topic": "t", "partition": 0, "committed_offset": 7, "high_watermark": 10, "lag": 3},
            {"topic": "t", "partition": 1, "committed_offset": 3, "high_watermark": null, "lag": null}],
        "total_lag": 3})");
    EXPECT_EQ(v, expected) << json::serialize(v);
}

TEST(GroupViewsTest, GroupsJsonListsEachGroup) {
    const auto v = groups_json({{"a", "Empty", "consumer"}, {"b", "Stable", ""}});
    EXPECT_EQ(v, json::parse(R"([{"group_id": "a", "state": "Empty", "protocol_type": "consumer"},
                                 {"group_id": "b", "state": "Stable", "protocol_type": ""}])"));
}

TEST(GroupStateTest, ExistsUnlessDeadWithoutOffsetsOrFailed) {
    GroupState g;
    g.state = "Dead";
    EXPECT_FALSE(g.exists());
    g.offsets.push_back({{"t", 0}, 1, std::nullopt});
    EXPECT_TRUE(g.exists());
    g.error = ErrorCode::not_coordinator;
    EXPECT_FALSE(g.exists());
}

}  // namespace
}  // namespace weir::admin
