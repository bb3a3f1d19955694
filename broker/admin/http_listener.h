#pragma once
// The admin HTTP listener (Boost.Beast over Asio coroutines, on the broker's
// I/O thread). Each connection reads one request at a time under Beast's
// header and body limits and a deadline, hands it to the Router and writes
// the answer. Whatever a client sends, the worst it gets is a 4xx and a
// closed connection: a request over the limits gets 431/413, a malformed one
// 400, and a client too slow to finish a request (or to read its answer)
// within the deadline is disconnected. Bounded connections, so HTTP clients
// cannot take the Kafka listener's file descriptors.
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "broker/admin/router.h"

namespace weir::admin {

struct HttpLimits {
    std::uint32_t max_header_bytes = 8 * 1024;
    std::uint64_t max_body_bytes = 64 * 1024;
    // To read a whole request (also the keep-alive idle time) or write an answer.
    std::chrono::milliseconds timeout{10000};
    std::size_t max_connections = 64;
};

class HttpListener {
public:
    // Binds at once, so a port in use fails start-up.
    HttpListener(boost::asio::any_io_executor executor, const boost::asio::ip::tcp::endpoint& endpoint,
                 const Router& router, HttpLimits limits = {});
    ~HttpListener();
    HttpListener(const HttpListener&) = delete;
    HttpListener& operator=(const HttpListener&) = delete;

    void start();
    // Closes the acceptor and every open connection.
    void stop();
    [[nodiscard]] boost::asio::ip::tcp::endpoint local_endpoint() const { return acceptor_.local_endpoint(); }

private:
    struct Session;
    boost::asio::awaitable<void> accept_loop();
    boost::asio::awaitable<void> serve(std::shared_ptr<Session> session);

    boost::asio::ip::tcp::acceptor acceptor_;
    const Router& router_;
    HttpLimits limits_;
    std::vector<std::weak_ptr<Session>> sessions_;
};

}  // namespace weir::admin
