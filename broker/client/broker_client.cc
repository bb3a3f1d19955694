#include "broker/client/broker_client.h"

#include <sys/socket.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <cerrno>

namespace weir::client {

namespace asio = boost::asio;

namespace {

// Closes the socket when the deadline passes, failing whatever it awaits.
class Deadline {
public:
    Deadline(asio::ip::tcp::socket& socket, std::chrono::milliseconds timeout)
        : timer_(socket.get_executor(), timeout) {
        timer_.async_wait([&socket, expired = expired_, active = active_](boost::system::error_code ec) {
            // An expiry queued before the operation finished must not close
            // the socket of the next one.
            if (ec || !*active) return;
            *expired = true;
            boost::system::error_code ignored;
            socket.close(ignored);
        });
    }
    ~Deadline() {
        *active_ = false;
        timer_.cancel();
    }
    Deadline(const Deadline&) = delete;
    Deadline& operator=(const Deadline&) = delete;
    void check() const {
        if (*expired_) throw boost::system::system_error(asio::error::timed_out);
    }

private:
    std::shared_ptr<bool> expired_ = std::make_shared<bool>(false);
    std::shared_ptr<bool> active_ = std::make_shared<bool>(true);
    asio::steady_timer timer_;
};

// Larger responses than this are refused (a follower asks for far less).
constexpr std::uint32_t kMaxResponseBytes = 256u << 20;

}  // namespace

BrokerClient::BrokerClient(asio::any_io_executor executor, std::string client_id)
    : socket_(std::move(executor)), client_id_(std::move(client_id)) {}

void BrokerClient::close() {
    boost::system::error_code ignored;
    socket_.close(ignored);
}

bool BrokerClient::usable() {
    if (!socket_.is_open()) return false;
    if (std::chrono::steady_clock::now() - last_answer_ < kPeekAfterIdle) return true;
    // Between requests the peer owes nothing: a peek that would not block
    // finds the connection open; end of stream, an error or stray bytes
    // make it unusable.
    std::uint8_t byte = 0;
    const auto n = ::recv(socket_.native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
    close();
    return false;
}

asio::awaitable<void> BrokerClient::connect(std::string host, std::int32_t port, std::chrono::milliseconds timeout) {
    close();
    asio::ip::tcp::resolver resolver(socket_.get_executor());
    auto endpoints = co_await resolver.async_resolve(host, std::to_string(port), asio::use_awaitable);
    Deadline deadline(socket_, timeout);
    watermark_.reset();
    try {
        co_await asio::async_connect(socket_, endpoints, asio::use_awaitable);
    } catch (const boost::system::system_error&) {
        deadline.check();
        throw;
    }
    socket_.set_option(asio::ip::tcp::no_delay(true));
}

asio::awaitable<BrokerClient::Body> BrokerClient::round_trip(wire::Bytes frame, std::int16_t api_key,
                                                             std::int16_t version, std::chrono::milliseconds timeout) {
    const std::int32_t expected = correlation_id_;
    Deadline deadline(socket_, timeout);
    try {
        co_await asio::async_write(socket_, asio::buffer(frame), asio::use_awaitable);
        std::uint8_t size_bytes[4];
        co_await asio::async_read(socket_, asio::buffer(size_bytes), asio::use_awaitable);
        const std::uint32_t size = (std::uint32_t{size_bytes[0]} << 24) | (std::uint32_t{size_bytes[1]} << 16) |
                                   (std::uint32_t{size_bytes[2]} << 8) | std::uint32_t{size_bytes[3]};
        if (size > kMaxResponseBytes) {
            close();
            throw wire::DecodeError("response of " + std::to_string(size) + " bytes");
        }
        // Not zero-filled: every byte is read into it before it is looked at.
        auto data = std::make_shared_for_overwrite<std::uint8_t[]>(size);
        for (std::size_t got = 0; got < size;) {
            watermark_.expect(socket_, size - got);
            got += co_await socket_.async_read_some(asio::buffer(data.get() + got, size - got), asio::use_awaitable);
        }
        watermark_.expect(socket_, 0);
        wire::Reader reader(wire::ByteSpan(data.get(), size));
        auto header = protocol::decode_response_header(reader, protocol::response_header_version(api_key, version));
        if (header.correlation_id != expected) {
            close();
            throw wire::DecodeError("response to correlation id " + std::to_string(header.correlation_id) +
                                    ", expected " + std::to_string(expected));
        }
        last_answer_ = std::chrono::steady_clock::now();
        co_return Body{std::move(data), size, reader.position()};
    } catch (const boost::system::system_error&) {
        deadline.check();
        close();
        throw;
    }
}

}  // namespace weir::client
