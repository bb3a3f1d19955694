// A client that pipelines requests and does not read their answers, on a
// broker whose memory budget is used up: its connection builds one answer
// and waits with the rest instead of building them all, also while that
// answer is being written.
#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <chrono>

#include "broker/net/connection.h"

namespace weir::net {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;

constexpr std::size_t kAnswerBytes = 16u << 20;  // more than the socket buffers take
constexpr int kRequests = 6;

// Answers after a short suspension, as a handler reading the log does.
class BigAnswers final : public RequestHandler {
public:
    asio::awaitable<std::optional<wire::Frame>> handle(std::shared_ptr<const wire::Bytes>,
                                                       const ConnectionInfo&) override {
        asio::steady_timer suspension(co_await asio::this_coro::executor, std::chrono::milliseconds(10));
        co_await suspension.async_wait(asio::use_awaitable);
        ++built_;
        wire::Bytes answer(4 + kAnswerBytes, 0);
        answer[0] = static_cast<std::uint8_t>(kAnswerBytes >> 24);
        answer[1] = static_cast<std::uint8_t>(kAnswerBytes >> 16);
        co_return answer;
    }
    [[nodiscard]] bool is_barrier(const wire::Bytes&) const override { return false; }
    int built_ = 0;
};

// The broker's side of the one connection a test opens.
void serve_one(tcp::acceptor& acceptor, RequestHandler& handler, std::shared_ptr<MemoryBudget> budget) {
    acceptor.async_accept([&handler, budget](boost::system::error_code ec, tcp::socket socket) {
        ASSERT_FALSE(ec) << ec.message();
        std::make_shared<Connection>(std::move(socket), handler, ConnectionLimits{},
                                     ConnectionInfo{1, "test", "PLAINTEXT"}, budget)
            ->start();
    });
}

TEST(ConnectionBudget, ANeverReadingClientHoldsOneAnswerWhileTheBudgetIsUsedUp) {
    asio::io_context io;
    BigAnswers handler;
    auto budget = std::make_shared<MemoryBudget>(io.get_executor(), 1 << 20);
    tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::address_v4::loopback(), 0));
    serve_one(acceptor, handler, budget);
    tcp::socket client(io);
    client.open(tcp::v4());
    client.set_option(asio::socket_base::receive_buffer_size(4096));
    int built_while_unread = -1;
    int answers = 0;
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
            co_await client.async_connect(acceptor.local_endpoint(), asio::use_awaitable);
            const wire::Bytes frame{0, 0, 0, 8, 'r', 'e', 'q', 'u', 'e', 's', 't', '.'};
            // The first answer alone uses the budget up; its write stalls.
            co_await asio::async_write(client, asio::buffer(frame), asio::use_awaitable);
            asio::steady_timer pause(io, std::chrono::milliseconds(300));
            co_await pause.async_wait(asio::use_awaitable);
            wire::Bytes pipelined;
            for (int i = 1; i < kRequests; ++i) pipelined.insert(pipelined.end(), frame.begin(), frame.end());
            co_await asio::async_write(client, asio::buffer(pipelined), asio::use_awaitable);
            pause.expires_after(std::chrono::milliseconds(300));
            co_await pause.async_wait(asio::use_awaitable);
            built_while_unread = handler.built_;
            // Reading lets the rest through, one at a time while the budget stays used up.
            wire::Bytes answer(4 + kAnswerBytes);
            for (; answers < kRequests; ++answers)
                co_await asio::async_read(client, asio::buffer(answer), asio::use_awaitable);
            // The last answer's bytes go back once its write completes.
            pause.expires_after(std::chrono::milliseconds(200));
            co_await pause.async_wait(asio::use_awaitable);
            io.stop();
        },
        asio::detached);
    io.run_for(std::chrono::seconds(20));
    EXPECT_EQ(built_while_unread, 1);
    EXPECT_EQ(answers, kRequests);
    EXPECT_EQ(handler.built_, kRequests);
    EXPECT_EQ(budget->used(), 0);
}

class SmallAnswers final : public RequestHandler {
public:
    asio::awaitable<std::optional<wire::Frame>> handle(std::shared_ptr<const wire::Bytes>,
                                                       const ConnectionInfo&) override {
        co_return wire::Bytes{0, 0, 0, 4, 'o', 'k', '.', '.'};
    }
    [[nodiscard]] bool is_barrier(const wire::Bytes&) const override { return false; }
};

// Other connections hold the whole budget and never give it back: a client
// that reads its answers still gets every one of its pipelined requests
// answered, each as soon as the one before it is written. (A guard on the
// wake-ups in general: the reader's mute keeps it from reaching the case the
// write loop's wake-up mends.)
TEST(ConnectionBudget, AReadingClientIsServedWhileOthersHoldTheBudget) {
    asio::io_context io;
    SmallAnswers handler;
    auto budget = std::make_shared<MemoryBudget>(io.get_executor(), 1 << 20);
    BudgetLease others(budget);
    others.add(2 << 20);
    tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::address_v4::loopback(), 0));
    serve_one(acceptor, handler, budget);
    int answers = 0;
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
            tcp::socket client(io);
            co_await client.async_connect(acceptor.local_endpoint(), asio::use_awaitable);
            const wire::Bytes frame{0, 0, 0, 8, 'r', 'e', 'q', 'u', 'e', 's', 't', '.'};
            wire::Bytes pipelined;
            for (int i = 0; i < 3; ++i) pipelined.insert(pipelined.end(), frame.begin(), frame.end());
            co_await asio::async_write(client, asio::buffer(pipelined), asio::use_awaitable);
            wire::Bytes answer(8);
            for (; answers < 3; ++answers) co_await asio::async_read(client, asio::buffer(answer), asio::use_awaitable);
            io.stop();
        },
        asio::detached);
    io.run_for(std::chrono::seconds(5));
    EXPECT_EQ(answers, 3);
}

}  // namespace
}  // namespace weir::net
