// Consumer groups with librdkafka KafkaConsumer processes: balanced
// assignments for 1, 2, 4 and 5 members, a graceful leave, a killed member, one that stops polling,
// two groups on one topic.
#include <gtest/gtest.h>

#include "0010_group_consumer.h"
#include "harness/admin.h"
#include "harness/broker_process.h"

namespace weir::compat {
namespace {

using namespace std::chrono_literals;
using namespace group;

TEST(ConsumerGroup, AssignmentsStayDisjointAndCompleteAsMembersJoinAndLeave) {
    BrokerProcess broker(group_broker());
    broker.start();
    const std::string topic = "grouped";
    create_topic(broker, topic);
    produce(broker, topic, 200, "m");

    std::vector<std::unique_ptr<ConsumerProcess>> members;
    std::vector<const ConsumerProcess*> view;
    auto add = [&] {
        members.push_back(std::make_unique<ConsumerProcess>(broker.bootstrap(), "balanced", topic));
        view.push_back(members.back().get());
    };
    add();
    ASSERT_TRUE(wait_until([&] { return group::balanced(view, kPartitions, {4}); }, 20s)) << group::describe(view);
    ASSERT_TRUE(wait_until([&] { return values(view).size() == 200; }, 20s));
    add();
    ASSERT_TRUE(wait_until([&] { return group::balanced(view, kPartitions, {2, 2}); }, 20s)) << group::describe(view);
    add();
    add();
    ASSERT_TRUE(wait_until(
        [&] {
            return group::balanced(view, kPartitions, {1, 1, 1, 1});
        },
        20s))
        << group::describe(view);
    add();  // a fifth member has nothing to do
    ASSERT_TRUE(wait_until(
        [&] {
            return group::balanced(view, kPartitions, {0, 1, 1, 1, 1});
        },
        20s))
        << group::describe(view);
    produce(broker, topic, 100, "n");
    ASSERT_TRUE(wait_until([&] { return values(view).size() == 300; }, 20s)) << values(view).size();

    // A clean close sends LeaveGroup: the others take over without waiting
    // for a session timeout (3 s).
    auto idle = std::find_if(members.begin(), members.end(), [](const auto& m) { return m->assignment()->empty(); });
    ASSERT_NE(idle, members.end());
    auto busy = std::find_if(members.begin(), members.end(), [](const auto& m) { return !m->assignment()->empty(); });
    auto started = std::chrono::steady_clock::now();
    ASSERT_TRUE((*busy)->terminate()) << (*busy)->output();
    EXPECT_TRUE((*busy)->closed());
    view.erase(std::find(view.begin(), view.end(), busy->get()));
    ASSERT_TRUE(wait_until(
        [&] {
            return group::balanced(view, kPartitions, {1, 1, 1, 1});
        },
        20s))
        << group::describe(view);
    EXPECT_LT(std::chrono::steady_clock::now() - started, 2500ms);
    produce(broker, topic, 100, "o");
    const auto all_o = expected_values("o", 100);
    EXPECT_TRUE(wait_until([&] { return std::ranges::includes(values(view), all_o); }, 20s)) << values(view).size();
}

TEST(ConsumerGroup, KilledMemberIsReplacedAfterItsSessionTimeout) {
    BrokerProcess broker(group_broker());
    broker.start();
    const std::string topic = "killed";
    create_topic(broker, topic);
    ConsumerProcess survivor(broker.bootstrap(), "killers", topic);
    ConsumerProcess victim(broker.bootstrap(), "killers", topic);
    std::vector<const ConsumerProcess*> both{&survivor, &victim};
    ASSERT_TRUE(wait_until([&] { return group::balanced(both, kPartitions, {2, 2}); }, 20s)) << group::describe(both);
    produce(broker, topic, 200, "a");
    ASSERT_TRUE(wait_until([&] { return values(both).size() == 200; }, 20s));
    // Every commit answered: the victim is idle when it dies.
    auto group_committed = [&] {
        auto c = victim.committed();
        for (const auto& [p, o] : survivor.committed()) c[p] = std::max(c[p], o);
        return c;
    };
    ASSERT_TRUE(wait_until(
        [&] {
            std::int64_t total = 0;
            for (const auto& [p, o] : group_committed()) total += o;
            return total == 200;
        },
        20s));
    auto victim_partitions = *victim.assignment();
    victim.kill();
    auto killed_at = std::chrono::steady_clock::now();
    auto seen_before_kill = survivor.messages().size();
    auto committed = group_committed();

    std::vector<const ConsumerProcess*> one{&survivor};
    ASSERT_TRUE(wait_until([&] { return group::balanced(one, kPartitions, {4}); }, 20s)) << group::describe(one);
    // Not before the 3 s session timeout (minus a heartbeat interval of slack).
    EXPECT_GT(std::chrono::steady_clock::now() - killed_at, 2500ms);
    produce(broker, topic, 200, "b");
    const auto all_b = expected_values("b", 200);
    ASSERT_TRUE(wait_until([&] { return std::ranges::includes(values(one), all_b); }, 20s));
    auto all = values(both);
    for (const auto& v : expected_values("a", 200)) EXPECT_TRUE(all.contains(v)) << v;
    for (const auto& v : expected_values("b", 200)) EXPECT_TRUE(all.contains(v)) << v;
    // The survivor resumed the victim's partitions exactly at the committed
    // offsets: nothing committed is read twice, nothing is skipped.
    auto messages = survivor.messages();
    std::map<int, std::int64_t> first_after;
    for (std::size_t i = seen_before_kill; i < messages.size(); ++i)
        if (victim_partitions.contains(messages[i].partition))
            first_after.try_emplace(messages[i].partition, messages[i].offset);
    for (int p : victim_partitions) {
        ASSERT_TRUE(committed.contains(p)) << "nothing committed on partition " << p;
        ASSERT_TRUE(first_after.contains(p)) << "partition " << p << " not consumed after the kill";
        EXPECT_EQ(first_after[p], committed[p]) << "partition " << p;
    }
}

TEST(ConsumerGroup, MemberThatStopsPollingLosesItsPartitions) {
    // librdkafka leaves the group once max.poll.interval.ms passes without a
    // poll (its heartbeats go on meanwhile); the other member takes over.
    BrokerProcess broker(group_broker());
    broker.start();
    const std::string topic = "pollers";
    create_topic(broker, topic);
    const std::map<std::string, std::string> conf{{"max.poll.interval.ms", "4000"}};
    ConsumerProcess stuck(broker.bootstrap(), "pollers", topic, conf);
    ConsumerProcess live(broker.bootstrap(), "pollers", topic, conf);
    std::vector<const ConsumerProcess*> both{&stuck, &live};
    ASSERT_TRUE(wait_until([&] { return group::balanced(both, kPartitions, {2, 2}); }, 20s)) << group::describe(both);
    stuck.stall();
    std::vector<const ConsumerProcess*> one{&live};
    ASSERT_TRUE(wait_until([&] { return group::balanced(one, kPartitions, {4}); }, 20s)) << group::describe(one);
    produce(broker, topic, 100, "p");
    ASSERT_TRUE(wait_until([&] { return values(one).size() == 100; }, 20s)) << values(one).size();
}

TEST(ConsumerGroup, TwoGroupsEachGetEverything) {
    BrokerProcess broker(group_broker());
    broker.start();
    const std::string topic = "shared";
    create_topic(broker, topic);
    ConsumerProcess a1(broker.bootstrap(), "group-a", topic);
    ConsumerProcess a2(broker.bootstrap(), "group-a", topic);
    ConsumerProcess b1(broker.bootstrap(), "group-b", topic);
    std::vector<const ConsumerProcess*> a{&a1, &a2};
    std::vector<const ConsumerProcess*> b{&b1};
    // Settled groups first: with no initial delay a1 may hold everything until a2 joins.
    ASSERT_TRUE(wait_until([&] { return group::balanced(a, kPartitions, {2, 2}); }, 20s)) << group::describe(a);
    ASSERT_TRUE(wait_until([&] { return group::balanced(b, kPartitions, {4}); }, 20s)) << group::describe(b);
    produce(broker, topic, 300, "s");
    ASSERT_TRUE(wait_until([&] { return values(a).size() == 300 && values(b).size() == 300; }, 30s))
        << values(a).size() << " " << values(b).size();
    EXPECT_EQ(values(a), expected_values("s", 300));
    EXPECT_EQ(values(b), expected_values("s", 300)) << "broadcast across groups";
    EXPECT_EQ(a1.messages().size() + a2.messages().size(), 300u) << "unicast within a group: each message once";
    EXPECT_TRUE(group::balanced(a, kPartitions, {2, 2})) << group::describe(a);
}

}  // namespace
}  // namespace weir::compat
