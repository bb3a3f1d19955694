#pragma once
// frame -> header -> version check -> generated decode -> handler -> encode.
// The set of APIs Weir serves, and so its ApiVersions answer, is whatever
// broker/handlers/handlers.h declares a handler for.
#include "broker/handlers/handlers.h"
#include "broker/net/request_handler.h"

namespace weir::dispatch {

class Dispatcher final : public net::RequestHandler {
public:
    explicit Dispatcher(handlers::BrokerContext& broker) : broker_(broker) {}
    boost::asio::awaitable<std::optional<wire::Bytes>> handle(std::shared_ptr<const wire::Bytes> frame,
                                                              const net::ConnectionInfo& connection) override;

private:
    handlers::BrokerContext& broker_;
};

// Encodes a whole response frame: size prefix, response header, body.
template <typename Response>
wire::Bytes encode_response_frame(const Response& response, std::int32_t correlation_id, std::int16_t version) {
    int header_version = protocol::response_header_version(Response::api_key, version);
    std::size_t body = response.size(version);
    std::size_t total = protocol::response_header_size(header_version) + body;
    wire::Bytes out;
    out.reserve(4 + total);
    wire::Writer w(out);
    w.int32(static_cast<std::int32_t>(total));
    protocol::encode_response_header(w, correlation_id, header_version);
    response.encode(w, version);
    return out;
}

}  // namespace weir::dispatch
