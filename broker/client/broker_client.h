#pragma once
// A connection from this broker to another (a follower to its leader):
// one request at a time, framed and encoded with the generated codecs,
// every step bounded by a timeout. Runs on the broker's I/O thread.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "broker/common/receive_watermark.h"
#include "protocol/header.h"
#include "protocol/wire/reader.h"
#include "protocol/wire/writer.h"

namespace weir::client {

class BrokerClient {
public:
    BrokerClient(boost::asio::any_io_executor executor, std::string client_id);

    // Throws boost::system::system_error on failure or timeout.
    boost::asio::awaitable<void> connect(std::string host, std::int32_t port, std::chrono::milliseconds timeout);
    // Open, and usable for the next request: the peer closes a connection
    // left idle past its connections.max.idle.ms, which only a read shows,
    // so a request sent on it would fail and wait out a retry backoff.
    // Closes a connection found closed by the peer.
    [[nodiscard]] bool usable();
    void close();

    // Sends `request` at `version` and decodes its response. Throws
    // system_error on I/O failure or timeout (the connection is closed then),
    // wire::DecodeError on a response it cannot read.
    template <typename Response, typename Request>
    boost::asio::awaitable<Response> send(const Request& request, std::int16_t version,
                                          std::chrono::milliseconds timeout) {
        wire::Bytes frame =
            encode_frame(Request::api_key, version, [&](wire::Writer& w) { request.encode(w, version); });
        auto call = round_trip(std::move(frame), Request::api_key, version, timeout);
        auto body = co_await std::move(call);
        wire::Reader reader(body.bytes(), body.owner());
        co_return Response::decode(reader, version);
    }

private:
    struct Body {
        std::shared_ptr<const std::uint8_t[]> data;
        std::size_t size = 0;
        std::size_t offset = 0;
        [[nodiscard]] wire::ByteSpan bytes() const { return wire::ByteSpan(data.get(), size).subspan(offset); }
        [[nodiscard]] std::shared_ptr<const void> owner() const { return data; }
    };

    template <typename Encode>
    wire::Bytes encode_frame(std::int16_t api_key, std::int16_t version, Encode encode) {
        wire::Bytes out(4);
        wire::Writer w(out);
        protocol::RequestHeader h;
        h.api_key = api_key;
        h.api_version = version;
        h.correlation_id = ++correlation_id_;
        h.client_id = client_id_;
        protocol::encode_request_header(w, h, protocol::request_header_version(api_key, version));
        encode(w);
        const auto size = static_cast<std::uint32_t>(out.size() - 4);
        for (int i = 0; i < 4; ++i) out[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(size >> (24 - 8 * i));
        return out;
    }

    // Writes the frame, reads the response frame, checks its correlation id
    // and returns what follows the response header.
    boost::asio::awaitable<Body> round_trip(wire::Bytes frame, std::int16_t api_key, std::int16_t version,
                                            std::chrono::milliseconds timeout);

    // A connection that answered this recently was not closed for idleness:
    // usable() takes it without the peek's system call, which a busy follower
    // would otherwise pay on every round trip.
    static constexpr std::chrono::milliseconds kPeekAfterIdle{10};

    boost::asio::ip::tcp::socket socket_;
    ReceiveWatermark watermark_;
    std::chrono::steady_clock::time_point last_answer_{};
    std::string client_id_;
    std::int32_t correlation_id_ = 0;
};

}  // namespace weir::client
