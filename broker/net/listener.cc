#include "broker/net/listener.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "broker/common/logging.h"

namespace weir::net {

namespace asio = boost::asio;

Listener::Listener(asio::any_io_executor executor, const asio::ip::tcp::endpoint& endpoint, std::string name,
                   RequestHandler& handler, ConnectionLimits limits)
    : acceptor_(executor), name_(std::move(name)), handler_(handler), limits_(limits) {
    acceptor_.open(endpoint.protocol());
    acceptor_.set_option(asio::ip::tcp::acceptor::reuse_address(true));
    acceptor_.bind(endpoint);
    acceptor_.listen(asio::socket_base::max_listen_connections);
}

void Listener::start() { asio::co_spawn(acceptor_.get_executor(), accept_loop(), asio::detached); }

void Listener::stop() {
    boost::system::error_code ec;
    acceptor_.close(ec);
}

void Listener::close_all() {
    for (auto& weak : connections_)
        if (auto c = weak.lock()) c->close();
    connections_.clear();
}

std::size_t Listener::open_connections() const {
    std::size_t n = 0;
    for (const auto& weak : connections_)
        if (auto c = weak.lock(); c && c->is_open()) ++n;
    return n;
}

asio::awaitable<void> Listener::accept_loop() {
    while (acceptor_.is_open()) {
        boost::system::error_code ec;
        auto socket = co_await acceptor_.async_accept(asio::redirect_error(asio::use_awaitable, ec));
        if (ec) {
            if (!acceptor_.is_open()) co_return;
            logging::warn("listener {}: accept failed: {}", name_, ec.message());
            continue;
        }
        ConnectionInfo info;
        info.id = next_id_++;
        info.listener = name_;
        auto remote = socket.remote_endpoint(ec);
        info.peer = ec ? "?" : remote.address().to_string() + ":" + std::to_string(remote.port());
        auto connection = std::make_shared<Connection>(std::move(socket), handler_, limits_, std::move(info));
        connection->start();
        std::erase_if(connections_, [](const auto& w) { return w.expired(); });
        connections_.push_back(connection);
    }
}

}  // namespace weir::net
