// The broker-wide budget of request and response bytes: muting at the limit,
// one over-limit frame at a time, waking on release.
#include "broker/net/memory_budget.h"

#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

namespace weir::net {
namespace {

namespace asio = boost::asio;

TEST(MemoryBudget, UnboundedNeverRunsOut) {
    asio::io_context io;
    auto budget = std::make_shared<MemoryBudget>(io.get_executor(), -1);
    BudgetLease lease(budget);
    lease.add(std::size_t{1} << 40);
    EXPECT_FALSE(budget->exhausted());
    EXPECT_TRUE(budget->may_grow(&lease));
}

TEST(MemoryBudget, LeasesGiveBackOnDestructionAndMove) {
    asio::io_context io;
    auto budget = std::make_shared<MemoryBudget>(io.get_executor(), 100);
    {
        BudgetLease a(budget);
        a.add(60);
        BudgetLease b = std::move(a);
        b.add(40);
        EXPECT_EQ(budget->used(), 100);
        EXPECT_TRUE(budget->exhausted());
        EXPECT_EQ(a.bytes(), 0u);
        EXPECT_EQ(b.bytes(), 100u);
    }
    EXPECT_EQ(budget->used(), 0);
    EXPECT_FALSE(budget->exhausted());
}

TEST(MemoryBudget, OnlyOneFrameMayGrowPastTheLimit) {
    asio::io_context io;
    auto budget = std::make_shared<MemoryBudget>(io.get_executor(), 10);
    int first = 0, second = 0;
    EXPECT_TRUE(budget->may_grow(&first));  // not exhausted: anyone
    BudgetLease lease(budget);
    lease.add(10);
    EXPECT_TRUE(budget->may_grow(&first));    // claims the over-limit place
    EXPECT_FALSE(budget->may_grow(&second));  // waits
    EXPECT_TRUE(budget->may_grow(&first));
    budget->end_frame(&first);
    EXPECT_TRUE(budget->may_grow(&second));
    EXPECT_FALSE(budget->may_grow(&first));
}

TEST(MemoryBudget, WaitersWakeWhenBytesComeBack) {
    asio::io_context io;
    auto budget = std::make_shared<MemoryBudget>(io.get_executor(), 10);
    auto lease = std::make_unique<BudgetLease>(budget);
    lease->add(20);
    int woken = 0;
    auto waiter = [&]() -> asio::awaitable<void> {
        while (budget->exhausted()) co_await budget->next_release();
        ++woken;
    };
    asio::co_spawn(io, waiter(), asio::detached);
    asio::co_spawn(io, waiter(), asio::detached);
    io.run_for(std::chrono::milliseconds(20));
    EXPECT_EQ(woken, 0);
    lease.reset();
    io.restart();
    io.run_for(std::chrono::milliseconds(20));
    EXPECT_EQ(woken, 2);
}

TEST(MemoryBudget, TrimHintOnlyAfterLargeFrames) {
    asio::io_context io;
    MemoryBudget budget(io.get_executor(), -1);
    budget.note_freed_frame(1 << 20);
    EXPECT_FALSE(budget.take_trim_hint());
    budget.note_freed_frame(MemoryBudget::kLargeFrame);
    EXPECT_TRUE(budget.take_trim_hint());
    EXPECT_FALSE(budget.take_trim_hint());
}

}  // namespace
}  // namespace weir::net
