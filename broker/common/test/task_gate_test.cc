#include "broker/common/task_gate.h"

#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <optional>
#include <stdexcept>
#include <thread>

namespace weir::common {
namespace {

namespace asio = boost::asio;

TEST(TaskGate, CallbacksPostedBeforeCloseDoNothingAfterIt) {
    asio::io_context io;
    TaskGate gate(io.get_executor());
    int ran = 0;
    gate.post([&] { ++ran; });
    io.run_one();
    EXPECT_EQ(ran, 1);
    gate.post([&] { ++ran; });
    auto guarded = gate.guard([&](int n) { ran += n; });
    gate.close();
    io.run();
    guarded(10);
    EXPECT_EQ(ran, 1);
}

TEST(TaskGate, APassOutlivesItsGateAndSaysItIsClosed) {
    asio::io_context io;
    std::optional<TaskGate::Pass> pass;
    {
        TaskGate gate(io.get_executor());
        pass = gate.pass();
        EXPECT_TRUE(pass->open());
    }
    EXPECT_FALSE(pass->open());
}

TEST(TaskGate, ClosedFromAnotherThread) {
    asio::io_context io;
    TaskGate gate(io.get_executor());
    auto pass = gate.pass();
    std::thread([&] { gate.close(); }).join();
    EXPECT_FALSE(pass.open());
}

TEST(TaskGate, WaitResolvesWhenEverySpawnedTaskEnded) {
    asio::io_context io;
    TaskGate gate(io.get_executor());
    asio::steady_timer release(io, asio::steady_timer::time_point::max());
    int ended = 0;
    for (int i = 0; i < 3; ++i)
        gate.spawn([&]() -> asio::awaitable<void> {
            boost::system::error_code ec;
            co_await release.async_wait(asio::redirect_error(asio::use_awaitable, ec));
            ++ended;
        });
    gate.spawn([]() -> asio::awaitable<void> {
        throw std::runtime_error("logged, and counted as ended");
        co_return;
    });
    bool waited = false;
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
            gate.close();
            co_await gate.wait();
            waited = true;
        },
        asio::detached);
    io.run_for(std::chrono::milliseconds(20));
    EXPECT_EQ(gate.running(), 3u);
    EXPECT_FALSE(waited);
    release.cancel();
    io.restart();
    io.run_for(std::chrono::seconds(5));
    EXPECT_EQ(ended, 3);
    EXPECT_EQ(gate.running(), 0u);
    EXPECT_TRUE(waited);
    gate.spawn([&]() -> asio::awaitable<void> {
        ++ended;
        co_return;
    });
    io.restart();
    io.run_for(std::chrono::milliseconds(20));
    EXPECT_EQ(ended, 3);  // closed: nothing starts
}

}  // namespace
}  // namespace weir::common
