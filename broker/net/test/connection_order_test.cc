// Pipelined requests on one connection around a request that suspends: a
// barrier holds back the requests that arrive after it, so they see its
// effects; without one they overtake it. Responses stay in request order
// either way.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <string>
#include <vector>

#include "broker/net/connection.h"

namespace weir::net {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;

constexpr std::size_t kPayloadSize = 8;  // the smallest frame a connection accepts

wire::Bytes frame_of(std::string payload) {
    payload.resize(kPayloadSize, '.');
    wire::Bytes out(4 + payload.size());
    out[3] = static_cast<std::uint8_t>(payload.size());
    std::copy(payload.begin(), payload.end(), out.begin() + 4);
    return out;
}

// 'W' + value: stores the value after a suspension (as a metadata store
// waiting for ZooKeeper would), which lasts until a read arrives or, when
// none can arrive, for a bounded time. 'X': fails after such a suspension.
// 'R': answers the value stored so far.
class StateHandler final : public RequestHandler {
public:
    StateHandler(const asio::any_io_executor& executor, bool writes_are_barriers)
        : suspension_(executor), writes_are_barriers_(writes_are_barriers) {}

    asio::awaitable<std::optional<wire::Frame>> handle(std::shared_ptr<const wire::Bytes> frame,
                                                       const ConnectionInfo&) override {
        const char op = static_cast<char>((*frame)[0]);
        if (op == 'W' || op == 'X') {
            suspension_.expires_after(std::chrono::milliseconds(200));
            boost::system::error_code ec;
            co_await suspension_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
            if (op == 'X') throw CloseConnection("failed");
            value_ = static_cast<char>((*frame)[1]);
            co_return frame_of("W");
        }
        suspension_.cancel();
        ++reads_;
        co_return frame_of(std::string("R") + value_);
    }

    [[nodiscard]] bool is_barrier(const wire::Bytes& frame) const override {
        return writes_are_barriers_ && !frame.empty() && (frame[0] == 'W' || frame[0] == 'X');
    }

    [[nodiscard]] int reads() const { return reads_; }

private:
    asio::steady_timer suspension_;
    bool writes_are_barriers_;
    char value_ = '0';
    int reads_ = 0;
};

// Sends `requests` in one write on one connection and returns the payloads of
// the responses, in the order they arrived (until the connection closes).
std::vector<std::string> exchange(bool writes_are_barriers, const std::vector<std::string>& requests,
                                  int* reads = nullptr) {
    asio::io_context io;
    StateHandler handler(io.get_executor(), writes_are_barriers);
    tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::address_v4::loopback(), 0));
    std::vector<std::string> responses;

    acceptor.async_accept([&](boost::system::error_code ec, tcp::socket socket) {
        ASSERT_FALSE(ec) << ec.message();
        std::make_shared<Connection>(std::move(socket), handler, ConnectionLimits{},
                                     ConnectionInfo{1, "test", "PLAINTEXT"})
            ->start();
    });
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
            tcp::socket client(io);
            co_await client.async_connect(acceptor.local_endpoint(), asio::use_awaitable);
            wire::Bytes pipelined;
            for (const auto& r : requests) {
                auto f = frame_of(r);
                pipelined.insert(pipelined.end(), f.begin(), f.end());
            }
            co_await asio::async_write(client, asio::buffer(pipelined), asio::use_awaitable);
            for (std::size_t i = 0; i < requests.size(); ++i) {
                std::string response(4 + kPayloadSize, '\0');
                boost::system::error_code ec;
                co_await asio::async_read(client, asio::buffer(response),
                                          asio::redirect_error(asio::use_awaitable, ec));
                if (ec) break;
                responses.push_back(response.substr(4, 2));
            }
        },
        asio::detached);
    io.run_for(std::chrono::seconds(5));
    if (reads) *reads = handler.reads();
    return responses;
}

TEST(ConnectionOrderTest, LaterRequestsSeeASuspendedBarriersEffects) {
    EXPECT_EQ(exchange(true, {"W1", "R", "W2", "R"}), (std::vector<std::string>{"W.", "R1", "W.", "R2"}));
}

TEST(ConnectionOrderTest, WithoutABarrierLaterRequestsOvertake) {
    // The read runs while the write is suspended; the responses are still in order.
    EXPECT_EQ(exchange(false, {"W1", "R"}), (std::vector<std::string>{"W.", "R0"}));
}

TEST(ConnectionOrderTest, RequestsBeforeABarrierAreNotHeldBack) {
    EXPECT_EQ(exchange(true, {"R", "W1", "R"}), (std::vector<std::string>{"R0", "W.", "R1"}));
}

// A barrier that fails closes the connection; the requests read after it
// still run once it has finished (as every request read does), unanswered.
TEST(ConnectionOrderTest, RequestsBehindAFailedBarrierStillRun) {
    int reads = 0;
    EXPECT_TRUE(exchange(true, {"X", "R"}, &reads).empty());
    EXPECT_EQ(reads, 1);
}

}  // namespace
}  // namespace weir::net
