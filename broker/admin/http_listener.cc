#include "broker/admin/http_listener.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include "broker/common/logging.h"

namespace weir::admin {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::use_awaitable;

struct HttpListener::Session {
    explicit Session(asio::ip::tcp::socket socket) : stream(std::move(socket)) {}
    void close() {
        boost::system::error_code ec;
        stream.socket().shutdown(asio::ip::tcp::socket::shutdown_both, ec);
        stream.close();
    }
    beast::tcp_stream stream;
};

namespace {

http::response<http::string_body> to_beast(HttpResponse r, unsigned version, bool keep_alive) {
    http::response<http::string_body> out{static_cast<http::status>(r.status), version};
    out.set(http::field::server, "weir");
    out.set(http::field::content_type, r.content_type);
    for (auto& [name, value] : r.headers) out.set(name, value);
    out.body() = std::move(r.body);
    out.keep_alive(keep_alive);
    out.prepare_payload();
    return out;
}

// What a request the parser refused gets; nullopt: just close (the client
// went away or was too slow).
std::optional<HttpResponse> refusal(const boost::system::error_code& ec) {
    if (ec == http::error::end_of_stream || ec == beast::error::timeout || ec == asio::error::eof ||
        ec == asio::error::connection_reset || ec == asio::error::operation_aborted)
        return std::nullopt;
    if (ec == http::error::header_limit) return error_response(431, "request header fields too large");
    if (ec == http::error::body_limit) return error_response(413, "request body too large");
    if (ec.category() == make_error_code(http::error::bad_method).category())
        return error_response(400, "malformed request");
    return std::nullopt;
}

}  // namespace

HttpListener::HttpListener(asio::any_io_executor executor, const asio::ip::tcp::endpoint& endpoint,
                           const Router& router, HttpLimits limits)
    : acceptor_(executor), router_(router), limits_(limits) {
    acceptor_.open(endpoint.protocol());
    acceptor_.set_option(asio::ip::tcp::acceptor::reuse_address(true));
    acceptor_.bind(endpoint);
    acceptor_.listen(asio::socket_base::max_listen_connections);
}

HttpListener::~HttpListener() { stop(); }

void HttpListener::start() { asio::co_spawn(acceptor_.get_executor(), accept_loop(), asio::detached); }

void HttpListener::stop() {
    boost::system::error_code ec;
    acceptor_.close(ec);
    for (auto& weak : sessions_)
        if (auto s = weak.lock()) s->close();
    sessions_.clear();
}

asio::awaitable<void> HttpListener::accept_loop() {
    while (acceptor_.is_open()) {
        boost::system::error_code ec;
        auto socket = co_await acceptor_.async_accept(asio::redirect_error(use_awaitable, ec));
        if (ec) {
            if (!acceptor_.is_open()) co_return;
            logging::warn("admin listener: accept failed: {}", ec.message());
            continue;
        }
        std::erase_if(sessions_, [](const auto& w) { return w.expired(); });
        if (sessions_.size() >= limits_.max_connections) {
            socket.close(ec);  // over the limit: refused before reading anything
            continue;
        }
        auto session = std::make_shared<Session>(std::move(socket));
        sessions_.push_back(session);
        asio::co_spawn(acceptor_.get_executor(), serve(std::move(session)), asio::detached);
    }
}

asio::awaitable<void> HttpListener::serve(std::shared_ptr<Session> session) {
    auto& stream = session->stream;
    beast::flat_buffer buffer;
    while (true) {
        http::request_parser<http::string_body> parser;
        parser.header_limit(limits_.max_header_bytes);
        parser.body_limit(limits_.max_body_bytes);
        stream.expires_after(limits_.timeout);
        boost::system::error_code ec;
        co_await http::async_read(stream, buffer, parser, asio::redirect_error(use_awaitable, ec));
        if (ec) {
            if (auto answer = refusal(ec)) {
                auto response = to_beast(std::move(*answer), 11, false);
                stream.expires_after(limits_.timeout);
                co_await http::async_write(stream, response, asio::redirect_error(use_awaitable, ec));
            }
            session->close();
            co_return;
        }
        auto& message = parser.get();
        const bool keep_alive = message.keep_alive();
        const unsigned version = message.version();
        HttpRequest request{std::string(message.method_string()), std::string(message.target()),
                            std::move(message.body())};
        auto routed = router_.route(request);
        auto answer = co_await std::move(routed);
        auto response = to_beast(std::move(answer), version, keep_alive);
        stream.expires_after(limits_.timeout);
        co_await http::async_write(stream, response, asio::redirect_error(use_awaitable, ec));
        if (ec || !keep_alive) {
            session->close();
            co_return;
        }
    }
}

}  // namespace weir::admin
