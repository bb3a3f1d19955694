#include "broker/faults/fault_injector.h"

#include <gtest/gtest.h>

namespace weir::faults {
namespace {

auto naming(std::string topic, std::int32_t partition) {
    return [topic, partition](std::string_view t, std::optional<std::int32_t> p) {
        return t == topic && (!p || *p == partition);
    };
}
bool names_nothing(std::string_view, std::optional<std::int32_t>) { return false; }

TEST(FaultInjectorTest, FiresForItsApiAndCountThenStops) {
    FaultInjector f;
    EXPECT_FALSE(f.armed());
    auto id =
        f.add({.api_key = 0, .action = FaultAction::error, .error = ErrorCode::not_leader_or_follower, .count = 2});
    EXPECT_TRUE(f.armed());
    EXPECT_FALSE(f.take(1, {}, names_nothing).has_value());  // another API
    auto first = f.take(0, {}, names_nothing);
    ASSERT_TRUE(first.has_value());
    EXPECT_EQ(first->id, id);
    EXPECT_EQ(first->spec.error, ErrorCode::not_leader_or_follower);
    EXPECT_TRUE(f.take(0, {}, names_nothing).has_value());
    EXPECT_FALSE(f.take(0, {}, names_nothing).has_value());
    EXPECT_FALSE(f.armed());
    ASSERT_EQ(f.faults().size(), 1u);  // still listed, with how often it fired
    EXPECT_EQ(f.faults()[0].fired, 2u);
    EXPECT_TRUE(f.faults()[0].exhausted());
}

TEST(FaultInjectorTest, TopicAndPartitionFaultsHitOnlyRequestsNamingThem) {
    FaultInjector f;
    f.add({.api_key = 0, .topic = "t", .partition = 1, .action = FaultAction::drop});
    EXPECT_FALSE(f.take(0, {}, naming("t", 0)).has_value());
    EXPECT_FALSE(f.take(0, {}, naming("u", 1)).has_value());
    EXPECT_TRUE(f.take(0, {}, naming("t", 1)).has_value());
    EXPECT_TRUE(f.take(0, {}, naming("t", 1)).has_value());  // no count: until removed
    EXPECT_EQ(f.faults()[0].fired, 2u);
}

TEST(FaultInjectorTest, RemoveAndClear) {
    FaultInjector f;
    auto a = f.add({.api_key = 3, .action = FaultAction::disconnect});
    auto b = f.add({.api_key = 3, .action = FaultAction::delay, .delay = std::chrono::milliseconds(5)});
    EXPECT_NE(a, b);
    EXPECT_TRUE(f.remove(a));
    EXPECT_FALSE(f.remove(a));
    auto hit = f.take(3, {}, names_nothing);
    ASSERT_TRUE(hit.has_value());
    EXPECT_EQ(hit->id, b);
    f.clear();
    EXPECT_FALSE(f.armed());
    EXPECT_TRUE(f.faults().empty());
    EXPECT_EQ(action_from_name("drop"), FaultAction::drop);
    EXPECT_FALSE(action_from_name("explode").has_value());
    EXPECT_EQ(action_name(FaultAction::delay), "delay");
}

TEST(FaultInjectorTest, FaultsWithoutAnApiHitEveryApiAndClientIdFaultsOnlyThatClient) {
    FaultInjector f;
    f.add({.client_id = "slow-one", .action = FaultAction::delay, .delay = std::chrono::milliseconds(100)});
    EXPECT_TRUE(f.armed());
    EXPECT_FALSE(f.take(0, std::string("other"), names_nothing).has_value());
    EXPECT_FALSE(f.take(0, std::nullopt, names_nothing).has_value());  // a null client id is not "slow-one"
    EXPECT_TRUE(f.take(0, std::string("slow-one"), names_nothing).has_value());
    EXPECT_TRUE(f.take(18, std::string("slow-one"), names_nothing).has_value());
    EXPECT_EQ(f.faults()[0].fired, 2u);
}

TEST(FaultInjectorTest, BrokerDownLastsItsDurationAndNeverHitsRequests) {
    FaultInjector f;
    int changes = 0;
    f.on_change([&] { ++changes; });
    const auto t0 = FaultInjector::Clock::now();
    EXPECT_FALSE(f.broker_down(t0));
    auto id = f.add({.action = FaultAction::broker_down, .duration = std::chrono::milliseconds(500)}, t0);
    EXPECT_EQ(changes, 1);
    EXPECT_FALSE(f.armed());  // not the request path's business
    EXPECT_FALSE(f.take(0, {}, names_nothing).has_value());
    EXPECT_TRUE(f.broker_down(t0 + std::chrono::milliseconds(499)));
    EXPECT_EQ(f.next_broker_up(), t0 + std::chrono::milliseconds(500));
    EXPECT_FALSE(f.broker_down(t0 + std::chrono::milliseconds(500)));
    EXPECT_TRUE(f.faults()[0].exhausted());
    EXPECT_FALSE(f.next_broker_up().has_value());
    EXPECT_EQ(f.faults()[0].fired, 1u);

    // Without a duration: down until removed.
    auto forever = f.add({.action = FaultAction::broker_down}, t0);
    EXPECT_TRUE(f.broker_down(t0 + std::chrono::hours(1)));
    EXPECT_FALSE(f.next_broker_up().has_value());
    EXPECT_TRUE(f.remove(forever));
    EXPECT_FALSE(f.broker_down(t0 + std::chrono::hours(1)));
    EXPECT_TRUE(f.remove(id));
    EXPECT_EQ(changes, 4);
}

}  // namespace
}  // namespace weir::faults
