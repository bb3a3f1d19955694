#include "broker/net/listener.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "broker/common/logging.h"

namespace weir::net {

namespace asio = boost::asio;

Listener::Listener(asio::any_io_executor executor, const asio::ip::tcp::endpoint& endpoint, std::string name,
                   RequestHandler& handler, ConnectionLimits limits, std::shared_ptr<MemoryBudget> budget,
                   std::shared_ptr<ConnectionQuotas> quotas)
    : acceptor_(executor),
      endpoint_(endpoint),
      name_(std::move(name)),
      handler_(handler),
      limits_(limits),
      budget_(std::move(budget)),
      quotas_(std::move(quotas)),
      backoff_(executor) {
    bind_and_listen();
    endpoint_ = acceptor_.local_endpoint();
}

void Listener::bind_and_listen() {
    acceptor_.open(endpoint_.protocol());
    acceptor_.set_option(asio::ip::tcp::acceptor::reuse_address(true));
    acceptor_.bind(endpoint_);
    acceptor_.listen(asio::socket_base::max_listen_connections);
}

void Listener::start() { asio::co_spawn(acceptor_.get_executor(), accept_loop(generation_), asio::detached); }

void Listener::pause() {
    ++generation_;
    stop();
    close_all();
}

bool Listener::resume() {
    if (acceptor_.is_open()) return true;
    try {
        bind_and_listen();
    } catch (const boost::system::system_error& e) {
        boost::system::error_code ignored;
        acceptor_.close(ignored);
        logging::error("listener {}: cannot bind {} again: {}", name_, endpoint_.port(), e.what());
        return false;
    }
    start();  // pause() already ended the old loop's generation
    return true;
}

void Listener::stop() {
    boost::system::error_code ec;
    acceptor_.close(ec);
    backoff_.cancel();
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

asio::awaitable<void> Listener::accept_loop(std::uint64_t generation) {
    constexpr auto warning_interval = std::chrono::seconds(10);
    const auto current = [&] { return generation == generation_ && acceptor_.is_open(); };
    while (current()) {
        // max.connections: leave new connections in the backlog until one closes.
        if (quotas_) co_await quotas_->wait_for_slot();
        if (!current()) co_return;
        boost::system::error_code ec;
        auto socket = co_await acceptor_.async_accept(asio::redirect_error(asio::use_awaitable, ec));
        if (!current()) co_return;  // paused meanwhile: the socket closes with it
        if (ec) {
            co_await back_off(ec);
            continue;
        }
        ConnectionInfo info;
        info.id = next_id_++;
        info.listener = name_;
        auto remote = socket.remote_endpoint(ec);
        info.peer = ec ? "?" : remote.address().to_string() + ":" + std::to_string(remote.port());
        ConnectionSlot slot;
        if (quotas_ && !ec) {
            auto admitted = quotas_->admit(remote.address());
            if (!admitted) {
                // Kafka closes it at once and logs; a client reconnecting in a
                // loop must not flood the log.
                ++refused_;
                auto now = std::chrono::steady_clock::now();
                if (now - last_quota_warning_ >= warning_interval) {
                    logging::warn(
                        "listener {}: refused {} connection(s), last from {}: {} open from that address "
                        "(max.connections.per.ip)",
                        name_, refused_, info.peer, quotas_->limit_for(remote.address()));
                    last_quota_warning_ = now;
                    refused_ = 0;
                }
                socket.close(ec);
                continue;
            }
            slot = std::move(*admitted);
        }
        auto connection = std::make_shared<Connection>(std::move(socket), handler_, limits_, std::move(info), budget_,
                                                       std::move(slot));
        connection->start();
        std::erase_if(connections_, [](const auto& w) { return w.expired(); });
        connections_.push_back(connection);
    }
}

asio::awaitable<void> Listener::back_off(const boost::system::error_code& error) {
    // Out of file descriptors or kernel memory: retrying at once would spin;
    // the pending connections wait in the backlog meanwhile.
    namespace errc = boost::system::errc;
    bool exhausted = error == errc::too_many_files_open || error == errc::too_many_files_open_in_system ||
                     error == errc::no_buffer_space || error == errc::not_enough_memory;
    ++failed_accepts_;
    auto now = std::chrono::steady_clock::now();
    if (now - last_accept_warning_ >= std::chrono::seconds(10)) {
        logging::warn("listener {}: accept failed: {} ({} time(s) in the last interval; retrying every {} ms)", name_,
                      error.message(), failed_accepts_, exhausted ? 100 : 10);
        last_accept_warning_ = now;
        failed_accepts_ = 0;
    }
    backoff_.expires_after(std::chrono::milliseconds(exhausted ? 100 : 10));
    boost::system::error_code ec;
    co_await backoff_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
}

}  // namespace weir::net
