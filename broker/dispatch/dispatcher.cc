#include "broker/dispatch/dispatcher.h"

#include "broker/common/logging.h"
#include "broker/dispatch/request_context.h"
#include "messages/api_table.h"

namespace weir::dispatch {

namespace asio = boost::asio;

namespace {

template <typename Request>
asio::awaitable<std::optional<wire::Bytes>> serve(handlers::BrokerContext& broker, RequestContext ctx,
                                                  std::shared_ptr<const wire::Bytes> frame, std::size_t body_offset) {
    if constexpr (!handlers::Handles<Request>) {
        throw net::CloseConnection("no handler");  // unreachable: serves() said no first
    } else {
        wire::Reader reader(std::span<const std::uint8_t>(*frame).subspan(body_offset), frame);
        auto version = ctx.header.api_version;
        Request request;
        try {
            request = Request::decode(reader, version);
        } catch (const wire::DecodeError& e) {
            throw net::CloseConnection(fmt::format("cannot decode {} v{} (correlation id {}): {}",
                                                   msg::api_name(static_cast<msg::ApiKey>(Request::api_key)), version,
                                                   ctx.header.correlation_id, e.what()));
        }
        bool wants_response = handlers::expects_response(request);
        auto response = co_await handlers::handle(broker, ctx, std::move(request));
        if (!wants_response) co_return std::nullopt;
        co_return encode_response_frame(response, ctx.header.correlation_id, version);
    }
}

}  // namespace

bool changes_metadata(std::int16_t api_key) {
    switch (static_cast<msg::ApiKey>(api_key)) {
        case msg::ApiKey::Metadata:
        case msg::ApiKey::FindCoordinator:
        case msg::ApiKey::CreateTopics:
        case msg::ApiKey::DeleteTopics:
        case msg::ApiKey::CreatePartitions:
        case msg::ApiKey::AlterConfigs:
        case msg::ApiKey::IncrementalAlterConfigs:
            return true;
        default:
            return false;
    }
}

bool Dispatcher::is_barrier(const wire::Bytes& frame) const {
    // The request header starts with the API key; a frame too short for one
    // fails in handle().
    if (frame.size() < 2) return false;
    return changes_metadata(static_cast<std::int16_t>((frame[0] << 8) | frame[1]));
}

asio::awaitable<std::optional<wire::Bytes>> Dispatcher::handle(std::shared_ptr<const wire::Bytes> frame,
                                                               const net::ConnectionInfo& connection) {
    wire::Reader reader(*frame);
    RequestContext ctx{.header = {}, .connection = connection, .received = std::chrono::steady_clock::now()};
    try {
        ctx.header = protocol::decode_request_header(reader);
    } catch (const wire::DecodeError& e) {
        throw net::CloseConnection(fmt::format("undecodable request header: {}", e.what()));
    }
    const auto& h = ctx.header;
    const auto* api = msg::find_api(h.api_key);
    bool served = api && handlers::serves(api->key);
    bool version_ok =
        served && h.api_version >= api->min_version && h.api_version <= handlers::max_served_version(*api);
    if (!version_ok) {
        // KIP-511: an ApiVersions request at a version we do not know still
        // gets a v0 answer carrying UNSUPPORTED_VERSION and our range.
        if (h.api_key == static_cast<std::int16_t>(msg::ApiKey::ApiVersions))
            co_return encode_response_frame(handlers::unsupported_api_versions_response(), h.correlation_id, 0);
        throw net::CloseConnection(fmt::format("unsupported request: api key {} ({}) version {}", h.api_key,
                                               api ? msg::api_name(api->key) : "unknown", h.api_version));
    }
    auto body_offset = reader.position();
    co_return co_await msg::visit_api(api->key, [&](auto request_type, auto /*response_type*/) {
        using Request = typename decltype(request_type)::type;
        return serve<Request>(broker_, ctx, frame, body_offset);
    });
}

}  // namespace weir::dispatch
