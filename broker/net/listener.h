#pragma once
// Accepts connections on one listener endpoint and starts a Connection for
// each. Stopping closes the acceptor; open connections are closed by the
// owner through close_all().
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <memory>
#include <string>
#include <vector>

#include "broker/net/connection.h"

namespace weir::net {

class Listener {
public:
    // Binds immediately so start-up errors (port in use) surface to the caller.
    Listener(boost::asio::any_io_executor executor, const boost::asio::ip::tcp::endpoint& endpoint, std::string name,
             RequestHandler& handler, ConnectionLimits limits);
    void start();
    void stop();
    void close_all();
    [[nodiscard]] boost::asio::ip::tcp::endpoint local_endpoint() const { return acceptor_.local_endpoint(); }
    // Client connections accepted and not yet closed.
    [[nodiscard]] std::size_t open_connections() const;

private:
    boost::asio::awaitable<void> accept_loop();

    boost::asio::ip::tcp::acceptor acceptor_;
    std::string name_;
    RequestHandler& handler_;
    ConnectionLimits limits_;
    std::uint64_t next_id_ = 1;
    std::vector<std::weak_ptr<Connection>> connections_;
};

}  // namespace weir::net
