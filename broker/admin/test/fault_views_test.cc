#include "broker/admin/fault_views.h"

#include <gmock/gmock.h>

#include "broker/admin/test/admin_fixture.h"

namespace weir::admin::test {
namespace {

using ::testing::HasSubstr;

std::string refusal(std::string_view body) {
    auto parsed = parse_fault(body);
    auto* message = std::get_if<std::string>(&parsed);
    return message ? *message : "accepted";
}

TEST(ParseFaultTest, TheIssuesExample) {
    auto parsed = parse_fault(R"({"api": "Produce", "topic": "t", "partition": 0, "action": "error",
                                  "error": "NOT_LEADER_OR_FOLLOWER", "count": 3})");
    ASSERT_TRUE(std::holds_alternative<faults::FaultSpec>(parsed)) << std::get<std::string>(parsed);
    const auto& f = std::get<faults::FaultSpec>(parsed);
    EXPECT_EQ(f.api_key, 0);
    EXPECT_EQ(f.topic, "t");
    EXPECT_EQ(f.partition, 0);
    EXPECT_EQ(f.action, faults::FaultAction::error);
    EXPECT_EQ(f.error, ErrorCode::not_leader_or_follower);
    EXPECT_EQ(f.count, 3u);
}

TEST(ParseFaultTest, ApiAndErrorByCodeDelayAndDefaults) {
    auto error = std::get<faults::FaultSpec>(parse_fault(R"({"api": 1, "action": "error", "error": 6})"));
    EXPECT_EQ(error.api_key, 1);
    EXPECT_EQ(error.error, ErrorCode::not_leader_or_follower);
    EXPECT_FALSE(error.topic.has_value());
    EXPECT_FALSE(error.count.has_value());
    auto delay = std::get<faults::FaultSpec>(parse_fault(R"({"api": "Fetch", "action": "delay", "delay_ms": 250})"));
    EXPECT_EQ(delay.delay, std::chrono::milliseconds(250));
    auto drop = std::get<faults::FaultSpec>(parse_fault(R"({"api": "Metadata", "action": "drop"})"));
    EXPECT_EQ(drop.action, faults::FaultAction::drop);
}

TEST(ParseFaultTest, EveryApiOneClientAndBrokerDown) {
    // librdkafka's mock rtt: every request of every API delayed.
    auto rtt = std::get<faults::FaultSpec>(parse_fault(R"({"action": "delay", "delay_ms": 40})"));
    EXPECT_FALSE(rtt.api_key.has_value());
    auto one = std::get<faults::FaultSpec>(parse_fault(R"({"action": "disconnect", "client_id": "rdkafka"})"));
    EXPECT_EQ(one.client_id, "rdkafka");
    auto down = std::get<faults::FaultSpec>(parse_fault(R"({"action": "broker_down", "duration_ms": 3000})"));
    EXPECT_EQ(down.action, faults::FaultAction::broker_down);
    EXPECT_EQ(down.duration, std::chrono::milliseconds(3000));
    auto forever = std::get<faults::FaultSpec>(parse_fault(R"({"action": "broker_down"})"));
    EXPECT_FALSE(forever.duration.has_value());
    auto move = std::get<faults::FaultSpec>(
        parse_fault(R"({"action": "leader_change", "topic": "t", "partition": 2, "leader": 3})"));
    EXPECT_EQ(move.action, faults::FaultAction::leader_change);
    EXPECT_EQ(move.leader, 3);
    EXPECT_EQ(refusal(R"({"action": "leader_change", "topic": "t"})"), "leader_change needs a topic and a partition");
    EXPECT_THAT(refusal(R"({"action": "drop", "leader": 1})"), HasSubstr("only for action leader_change"));
}

TEST(ParseFaultTest, RefusalsSayWhy) {
    EXPECT_THAT(refusal(R"({"api": "Produce", )"), HasSubstr("malformed JSON"));
    EXPECT_THAT(refusal("[1, 2]"), HasSubstr("JSON object"));
    EXPECT_THAT(refusal(R"({"api": "Produce"})"), HasSubstr("action is required"));
    EXPECT_THAT(refusal(R"({"action": "broker_down", "api": "Produce"})"), HasSubstr("broker_down takes no api"));
    EXPECT_THAT(refusal(R"({"action": "broker_down", "count": 1})"), HasSubstr("broker_down takes no count"));
    EXPECT_THAT(refusal(R"({"action": "broker_down", "duration_ms": 0})"), HasSubstr("duration_ms must be"));
    EXPECT_THAT(refusal(R"({"action": "drop", "duration_ms": 10})"), HasSubstr("only for action broker_down"));
    EXPECT_THAT(refusal(R"({"action": "drop", "client_id": 7})"), HasSubstr("client_id must be a string"));
    EXPECT_THAT(refusal(R"({"api": "NoSuchApi", "action": "drop"})"), HasSubstr("not a Kafka API"));
    EXPECT_THAT(refusal(R"({"api": "Produce", "action": "explode"})"), HasSubstr("action must be"));
    EXPECT_THAT(refusal(R"({"api": "Produce", "action": "error"})"), HasSubstr("needs an error"));
    EXPECT_THAT(refusal(R"({"api": "Produce", "action": "error", "error": "NO_SUCH"})"), HasSubstr("needs an error"));
    EXPECT_THAT(refusal(R"({"api": "Produce", "action": "error", "error": "NONE"})"), HasSubstr("needs an error"));
    EXPECT_THAT(refusal(R"({"api": "Produce", "action": "delay"})"), HasSubstr("delay_ms"));
    EXPECT_THAT(refusal(R"({"api": "Produce", "action": "drop", "delay_ms": 5})"), HasSubstr("only for action delay"));
    EXPECT_THAT(refusal(R"({"api": "Produce", "action": "drop", "partition": 1})"), HasSubstr("needs a topic"));
    EXPECT_THAT(refusal(R"({"api": "Produce", "action": "drop", "count": 0})"), HasSubstr("count"));
    EXPECT_THAT(refusal(R"({"api": "Produce", "action": "drop", "colour": "red"})"), HasSubstr("unknown field colour"));
}

class FaultRoutesTest : public AdminTest {};

TEST_F(FaultRoutesTest, OffUnlessEnabled) {
    auto r = get("/v1/faults", "POST", R"({"api": "Produce", "action": "drop"})");
    EXPECT_EQ(r.status, 404u);
    EXPECT_THAT(r.body, HasSubstr("weir.admin.faults.enable"));
    EXPECT_EQ(get("/v1/faults").status, 404u);
}

TEST_F(FaultRoutesTest, AddListDelete) {
    faults::FaultInjector injector;
    admin().faults = &injector;
    auto bad = get("/v1/faults", "POST", "{not json");
    EXPECT_EQ(bad.status, 400u);
    EXPECT_THAT(bad.body, HasSubstr("malformed JSON"));
    auto added =
        get("/v1/faults", "POST", R"({"api": "Produce", "topic": "t", "action": "error", "error": 6, "count": 2})");
    ASSERT_EQ(added.status, 201u) << added.body;
    const auto fault = json_of(added);
    EXPECT_EQ(fault.at("api"), "Produce");
    EXPECT_EQ(fault.at("error"), "NOT_LEADER_OR_FOLLOWER");
    EXPECT_EQ(fault.at("fired"), 0);
    const auto id = fault.at("id").to_number<std::uint64_t>();
    get("/v1/faults", "POST", R"({"api": "Fetch", "action": "drop"})");
    auto listed = json_of(get("/v1/faults")).as_array();
    ASSERT_EQ(listed.size(), 2u);
    EXPECT_EQ(listed[1].at("action"), "drop");
    EXPECT_EQ(get("/v1/faults/" + std::to_string(id), "DELETE").status, 204u);
    EXPECT_EQ(get("/v1/faults/" + std::to_string(id), "DELETE").status, 404u);
    EXPECT_EQ(get("/v1/faults/x", "DELETE").status, 404u);
    EXPECT_EQ(json_of(get("/v1/faults")).as_array().size(), 1u);
    EXPECT_EQ(get("/v1/faults", "DELETE").status, 204u);
    EXPECT_TRUE(json_of(get("/v1/faults")).as_array().empty());
}

TEST_F(FaultRoutesTest, LeaderChangeIsRefusedOnASingleNode) {
    faults::FaultInjector injector;
    admin().faults = &injector;
    create_topic("t", 1);
    auto r = get("/v1/faults", "POST", R"({"action": "leader_change", "topic": "t", "partition": 0})");
    EXPECT_EQ(r.status, 409u);
    EXPECT_THAT(r.body, HasSubstr("cannot move on a single node"));
    EXPECT_TRUE(injector.faults().empty());
}

}  // namespace
}  // namespace weir::admin::test
