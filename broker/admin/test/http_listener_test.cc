// The listener over real sockets on 127.0.0.1: what clients that break the
// rules get, and that a well-behaved one is served meanwhile.
#include "broker/admin/http_listener.h"

#include <gmock/gmock.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <future>
#include <thread>

namespace weir::admin {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using Task = asio::awaitable<HttpResponse>;

class HttpListenerTest : public ::testing::Test {
protected:
    HttpListenerTest() {
        router_.add("GET", "/hello",
                    [](const HttpRequest&, const PathParams&) -> Task { co_return text_response(200, "hi\n"); });
        router_.add("POST", "/echo",
                    [](const HttpRequest& r, const PathParams&) -> Task { co_return text_response(200, r.body); });
    }
    ~HttpListenerTest() override {
        if (listener_) asio::post(io_, [this] { listener_->stop(); });
        work_.reset();
        if (thread_.joinable()) thread_.join();
    }

    void start(HttpLimits limits) {
        listener_.emplace(io_.get_executor(), tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0), router_, limits);
        listener_->start();
        port_ = listener_->local_endpoint().port();
        thread_ = std::thread([this] { io_.run(); });
    }

    tcp::socket connect() {
        tcp::socket s(client_io_);
        s.connect({asio::ip::make_address("127.0.0.1"), port_});
        return s;
    }

    // Sends `raw` and reads until the server closes (or 5 s pass).
    std::string exchange(const std::string& raw) {
        auto s = connect();
        asio::write(s, asio::buffer(raw));
        return read_to_close(s);
    }

    static std::string read_to_close(tcp::socket& s) {
        timeval tv{5, 0};
        ::setsockopt(s.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        std::string out;
        char buf[4096];
        boost::system::error_code ec;
        while (true) {
            auto n = s.read_some(asio::buffer(buf), ec);
            if (ec) break;
            out.append(buf, n);
        }
        return out;
    }

    Router router_;
    asio::io_context io_{1};
    std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work_{io_.get_executor()};
    std::optional<HttpListener> listener_;
    std::thread thread_;
    asio::io_context client_io_;
    std::uint16_t port_ = 0;
};

TEST_F(HttpListenerTest, ServesRequestsOnOneKeptAliveConnection) {
    start({});
    auto s = connect();
    const std::string two =
        "GET /hello HTTP/1.1\r\nHost: x\r\n\r\nGET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    asio::write(s, asio::buffer(two));
    auto answer = read_to_close(s);
    EXPECT_THAT(answer, StartsWith("HTTP/1.1 200 OK\r\n"));
    EXPECT_THAT(answer, HasSubstr("\r\n\r\nhi\n"));
    EXPECT_THAT(answer, HasSubstr("HTTP/1.1 404 Not Found\r\n"));
    EXPECT_THAT(answer, HasSubstr("\"no such endpoint\""));
}

TEST_F(HttpListenerTest, OversizedHeaderGets431AndIsClosed) {
    start({});
    const std::string big(16 * 1024, 'a');
    auto answer = exchange("GET /hello HTTP/1.1\r\nHost: x\r\nX-Big: " + big + "\r\n\r\n");
    EXPECT_THAT(answer, StartsWith("HTTP/1.1 431 "));
    EXPECT_THAT(answer, HasSubstr("Connection: close"));
}

TEST_F(HttpListenerTest, OversizedBodyGets413) {
    HttpLimits limits;
    limits.max_body_bytes = 100;
    start(limits);
    const std::string body(1000, 'b');
    auto answer = exchange("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(body.size()) +
                           "\r\n\r\n" + body);
    EXPECT_THAT(answer, StartsWith("HTTP/1.1 413 "));
    auto fits = exchange("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello");
    EXPECT_THAT(fits, StartsWith("HTTP/1.1 200 "));
    EXPECT_THAT(fits, HasSubstr("\r\n\r\nhello"));
}

TEST_F(HttpListenerTest, MalformedRequestGets400) {
    start({});
    EXPECT_THAT(exchange("NOT HTTP AT ALL\r\n\r\n"), StartsWith("HTTP/1.1 400 "));
    EXPECT_THAT(exchange("GET /hello HTTP/1.1\r\nContent-Length: nope\r\n\r\n"), StartsWith("HTTP/1.1 400 "));
}

TEST_F(HttpListenerTest, SlowClientIsDisconnectedWhileOthersAreServed) {
    HttpLimits limits;
    limits.timeout = std::chrono::milliseconds(300);
    start(limits);
    auto slow = connect();
    asio::write(slow, asio::buffer(std::string("GET /hel")));
    // Meanwhile another client is served.
    EXPECT_THAT(exchange("GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), StartsWith("HTTP/1.1 200 "));
    const auto t0 = std::chrono::steady_clock::now();
    auto rest = read_to_close(slow);
    const auto waited = std::chrono::steady_clock::now() - t0;
    EXPECT_EQ(rest, "");  // closed without an answer
    EXPECT_LT(waited, std::chrono::seconds(4));
}

TEST_F(HttpListenerTest, ConnectionsBeyondTheLimitAreRefused) {
    HttpLimits limits;
    limits.max_connections = 1;
    start(limits);
    auto first = connect();
    asio::write(first, asio::buffer(std::string("GET /hel")));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_EQ(exchange("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n"), "");
    asio::write(first, asio::buffer(std::string("lo HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")));
    EXPECT_THAT(read_to_close(first), StartsWith("HTTP/1.1 200 "));
}

}  // namespace
}  // namespace weir::admin
