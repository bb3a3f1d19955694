// Committed offsets survive broker restarts: a new member resumes where the
// group left off, and a running member carries on across the restart.
#include <gtest/gtest.h>

#include "0010_group_consumer.h"
#include "harness/admin.h"
#include "harness/broker_process.h"

namespace weir::compat {
namespace {

using namespace std::chrono_literals;
using namespace group;

std::int64_t committed_total(const ConsumerProcess& c) {
    std::int64_t total = 0;
    for (const auto& [p, o] : c.committed()) total += o;
    return total;
}

TEST(GroupOffsets, NewMemberResumesFromTheCommittedOffsetAfterARestart) {
    BrokerProcess broker(group_broker());
    broker.start();
    const std::string topic = "resume";
    create_topic(broker, topic);
    produce(broker, topic, 100, "a");
    {
        ConsumerProcess first(broker.bootstrap(), "resumers", topic);
        ASSERT_TRUE(wait_until([&] { return committed_total(first) == 100; }, 20s)) << first.output();
        ASSERT_TRUE(first.terminate()) << first.output();
    }
    ASSERT_EQ(broker.restart(), 0);
    produce(broker, topic, 100, "b");
    ConsumerProcess second(broker.bootstrap(), "resumers", topic);
    ASSERT_TRUE(wait_until([&] { return second.messages().size() >= 100; }, 20s)) << second.output();
    std::this_thread::sleep_for(500ms);  // anything re-read would show up by now
    auto messages = second.messages();
    EXPECT_EQ(messages.size(), 100u);
    std::map<int, std::int64_t> first_offset;
    for (const auto& m : messages) {
        EXPECT_EQ(m.value.rfind("b-", 0), 0u) << "re-read " << m.value;
        first_offset.try_emplace(m.partition, m.offset);
    }
    for (int p = 0; p < kPartitions; ++p) EXPECT_EQ(first_offset[p], 25) << "partition " << p;
}

TEST(GroupOffsets, RunningMemberCarriesOnAcrossARestart) {
    BrokerProcess broker(group_broker());
    broker.start();
    const std::string topic = "carry-on";
    create_topic(broker, topic);
    ConsumerProcess member(broker.bootstrap(), "steady", topic);
    ASSERT_TRUE(wait_until([&] { return member.assignment() && member.assignment()->size() == 4; }, 20s));
    produce(broker, topic, 100, "a");
    ASSERT_TRUE(wait_until([&] { return committed_total(member) == 100; }, 20s)) << member.output();
    ASSERT_EQ(broker.restart(), 0);
    produce(broker, topic, 100, "b");
    ASSERT_TRUE(wait_until([&] { return committed_total(member) == 200; }, 30s)) << member.output();
    std::set<std::string> seen;
    for (const auto& m : member.messages()) EXPECT_TRUE(seen.insert(m.value).second) << "consumed twice: " << m.value;
    EXPECT_EQ(seen.size(), 200u);
}

}  // namespace
}  // namespace weir::compat
