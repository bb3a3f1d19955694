#pragma once
// Accepts connections on one listener endpoint and starts a Connection for
// each, within the broker's connection quotas. Stopping closes the acceptor;
// open connections are closed by the owner through close_all(). pause() and
// resume() take the endpoint down and up again (an injected broker outage):
// clients are disconnected and then refused, as by a broker that is gone.
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "broker/net/connection.h"

namespace weir::net {

class Listener {
public:
    // Binds immediately so start-up errors (port in use) surface to the caller.
    Listener(boost::asio::any_io_executor executor, const boost::asio::ip::tcp::endpoint& endpoint, std::string name,
             RequestHandler& handler, ConnectionLimits limits, std::shared_ptr<MemoryBudget> budget = nullptr,
             std::shared_ptr<ConnectionQuotas> quotas = nullptr);
    void start();
    void stop();
    void close_all();
    // Closes the acceptor and every connection; resume() binds the same
    // address and port again (false, logged, if it cannot).
    void pause();
    bool resume();
    [[nodiscard]] boost::asio::ip::tcp::endpoint local_endpoint() const { return acceptor_.local_endpoint(); }
    // Client connections accepted and not yet closed.
    [[nodiscard]] std::size_t open_connections() const;

private:
    // One loop per bind: a loop whose generation is over ends.
    boost::asio::awaitable<void> accept_loop(std::uint64_t generation);
    void bind_and_listen();
    // After a failed accept: back off (never spin at the file-descriptor
    // limit) and log at most once per interval.
    boost::asio::awaitable<void> back_off(const boost::system::error_code& error);

    boost::asio::ip::tcp::acceptor acceptor_;
    boost::asio::ip::tcp::endpoint endpoint_;  // as bound (port 0 resolved)
    std::uint64_t generation_ = 0;
    std::string name_;
    RequestHandler& handler_;
    ConnectionLimits limits_;
    std::shared_ptr<MemoryBudget> budget_;
    std::shared_ptr<ConnectionQuotas> quotas_;
    boost::asio::steady_timer backoff_;
    std::chrono::steady_clock::time_point last_accept_warning_{};
    std::uint64_t failed_accepts_ = 0;  // since the last warning
    std::chrono::steady_clock::time_point last_quota_warning_{};
    std::uint64_t refused_ = 0;  // over max.connections.per.ip since the last warning
    std::uint64_t next_id_ = 1;
    std::vector<std::weak_ptr<Connection>> connections_;
};

}  // namespace weir::net
