#include "broker/dispatch/dispatcher.h"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "broker/common/logging.h"
#include "broker/dispatch/fault_application.h"
#include "broker/dispatch/request_accounting.h"
#include "broker/handler_api/request_context.h"
#include "messages/api_table.h"

namespace weir::dispatch {

namespace asio = boost::asio;

namespace {

template <typename Request>
asio::awaitable<std::optional<wire::Frame>> serve(handlers::BrokerContext& broker, metrics::MetricsRegistry& metrics,
                                                  faults::FaultInjector* faults, handlers::RequestContext ctx,
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
        using Response = typename decltype(handlers::handle(broker, ctx, std::move(request)))::value_type;
        bool wants_response = handlers::expects_response(request);

        std::optional<faults::Fault> fault;
        if (faults && faults->armed()) {
            const auto names = [&](std::string_view topic, std::optional<std::int32_t> partition) {
                return fault::names_partition(request, broker, topic, partition);
            };
            fault = faults->take(Request::api_key, ctx.header.client_id, names);
        }
        const auto action = fault ? std::optional(fault->spec.action) : std::nullopt;
        if (action == faults::FaultAction::disconnect) throw net::CloseConnection("injected fault: disconnect");
        if (action == faults::FaultAction::drop) co_return std::nullopt;
        if (action == faults::FaultAction::delay) {
            asio::steady_timer timer(broker.executor, fault->spec.delay);
            boost::system::error_code ec;
            co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        }
        const bool inject_error = action == faults::FaultAction::error;
        fault::WithheldPartitions withheld;
        if constexpr (std::is_same_v<Request, msg::ProduceRequest>) {
            if (inject_error) withheld = fault::withhold(request, fault->spec);
        }

        const auto facts = facts_of(request);
        Response response;
        constexpr bool has_top_level_error = requires { response.error_code; };
        if (inject_error && !fault->spec.topic && has_top_level_error) {
            // The whole request fails as a broker would refuse it: the handler does not run.
            if constexpr (has_top_level_error) response.error_code = to_int(fault->spec.error);
        } else {
            response = co_await handlers::handle(broker, ctx, std::move(request));
            if constexpr (std::is_same_v<Request, msg::ProduceRequest>) {
                if (inject_error) withheld.put_back(response, fault->spec.error);
            } else {
                if (inject_error && fault->spec.topic) fault::set_partition_errors(response, broker, fault->spec);
                if (inject_error && !fault->spec.topic) fault::set_all_errors(response, to_int(fault->spec.error));
            }
        }
        metrics.record_request(Request::api_key, std::chrono::steady_clock::now() - ctx.received);
        count_errors(metrics, Request::api_key, response);
        count_traffic(metrics, broker, facts, response);
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

asio::awaitable<std::optional<wire::Frame>> Dispatcher::handle(std::shared_ptr<const wire::Bytes> frame,
                                                               const handlers::ConnectionInfo& connection) {
    wire::Reader reader(*frame);
    handlers::RequestContext ctx{.header = {}, .connection = connection, .received = std::chrono::steady_clock::now()};
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
        return serve<Request>(broker_, metrics_, faults_, ctx, frame, body_offset);
    });
}

}  // namespace weir::dispatch
