// KIP-345 static members restart without a rebalance; KIP-429
// cooperative-sticky members rebalance incrementally (the broker only needs
// correct JoinGroup/SyncGroup semantics for both).
#include <gtest/gtest.h>

#include "0010_group_consumer.h"
#include "harness/admin.h"
#include "harness/broker_process.h"

namespace weir::compat {
namespace {

using namespace std::chrono_literals;
using namespace group;

TEST(StaticMembership, RestartedMemberGetsItsPartitionsBackWithoutARebalance) {
    BrokerProcess broker(group_broker());
    broker.start();
    const std::string topic = "static";
    create_topic(broker, topic);
    // cgrp debug lines land in output(), shown if a step below fails.
    const std::map<std::string, std::string> s1_conf{
        {"group.instance.id", "s1"}, {"session.timeout.ms", "6000"}, {"debug", "cgrp"}};
    const std::map<std::string, std::string> s2_conf{
        {"group.instance.id", "s2"}, {"session.timeout.ms", "6000"}, {"debug", "cgrp"}};
    ConsumerProcess s1(broker.bootstrap(), "statics", topic, s1_conf);
    auto s2 = std::make_unique<ConsumerProcess>(broker.bootstrap(), "statics", topic, s2_conf);
    std::vector<const ConsumerProcess*> both{&s1, s2.get()};
    ASSERT_TRUE(wait_until([&] { return group::balanced(both, kPartitions, {2, 2}); }, 20s)) << group::describe(both);
    std::this_thread::sleep_for(1s);  // let the group settle
    const auto s1_rebalances = s1.rebalances();
    const auto s1_partitions = *s1.assignment();
    const auto s2_partitions = *s2->assignment();

    // A static member leaves no LeaveGroup behind: its slot waits for it.
    ASSERT_TRUE(s2->terminate()) << "s2 did not close:\n" << s2->output();
    s2 = std::make_unique<ConsumerProcess>(broker.bootstrap(), "statics", topic, s2_conf);
    ASSERT_TRUE(wait_until([&] { return s2->assignment().has_value(); }, 20s)) << s2->output();
    EXPECT_EQ(*s2->assignment(), s2_partitions);
    std::this_thread::sleep_for(1500ms);
    EXPECT_EQ(s1.rebalances(), s1_rebalances) << "s1 went through a rebalance:\n" << s1.output();
    EXPECT_EQ(*s1.assignment(), s1_partitions);

    produce(broker, topic, 100, "x");
    std::vector<const ConsumerProcess*> now{&s1, s2.get()};
    ASSERT_TRUE(wait_until([&] { return values(now).size() == 100; }, 20s)) << values(now).size();
}

TEST(CooperativeSticky, MembersKeepTheirPartitionsWhileOthersJoinAndLeave) {
    BrokerProcess broker(group_broker());
    broker.start();
    const std::string topic = "cooperative";
    create_topic(broker, topic);
    const std::map<std::string, std::string> conf{{"partition.assignment.strategy", "cooperative-sticky"}};
    ConsumerProcess a(broker.bootstrap(), "sticky", topic, conf);
    ConsumerProcess b(broker.bootstrap(), "sticky", topic, conf);
    std::vector<const ConsumerProcess*> two{&a, &b};
    ASSERT_TRUE(wait_until([&] { return group::balanced(two, kPartitions, {2, 2}); }, 20s)) << group::describe(two);
    produce(broker, topic, 100, "p");
    ASSERT_TRUE(wait_until([&] { return values(two).size() == 100; }, 20s));
    const auto a_before = *a.assignment();
    const auto b_before = *b.assignment();

    auto c = std::make_unique<ConsumerProcess>(broker.bootstrap(), "sticky", topic, conf);
    std::vector<const ConsumerProcess*> three{&a, &b, c.get()};
    ASSERT_TRUE(wait_until(
        [&] {
            return group::balanced(three, kPartitions, {1, 1, 2});
        },
        20s))
        << group::describe(three);
    // Sticky: the old members only gave partitions away.
    const auto a_after = a.assignment().value_or(std::set<int>{});
    const auto b_after = b.assignment().value_or(std::set<int>{});
    for (int p : a_after) EXPECT_TRUE(a_before.contains(p)) << "a gained " << p;
    for (int p : b_after) EXPECT_TRUE(b_before.contains(p)) << "b gained " << p;
    produce(broker, topic, 100, "q");
    ASSERT_TRUE(wait_until([&] { return values(three).size() == 200; }, 20s)) << values(three).size();

    ASSERT_TRUE(c->terminate()) << "c did not close:\n" << c->output();
    ASSERT_TRUE(wait_until([&] { return group::balanced(two, kPartitions, {2, 2}); }, 20s)) << group::describe(two);
    produce(broker, topic, 100, "r");
    // Each partition has its own order: wait for every value, not the last one sent.
    auto all_r = [&] {
        auto all = values({&a, &b, c.get()});
        for (int i = 0; i < 100; ++i)
            if (!all.contains("r-" + std::to_string(i))) return false;
        return true;
    };
    EXPECT_TRUE(wait_until(all_r, 20s)) << values({&a, &b, c.get()}).size();
}

}  // namespace
}  // namespace weir::compat
