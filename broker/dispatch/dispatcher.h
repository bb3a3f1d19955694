#pragma once
// frame -> header -> version check -> generated decode -> handler -> encode.
// The set of APIs Weir serves, and so its ApiVersions answer, is whatever
// broker/handlers/handlers.h declares a handler for.
//
// Side-effect order rule. A connection starts its requests' handlers in
// arrival order, each running on the one I/O thread until its first
// suspension (a co_await that waits); from there on pipelined requests
// interleave. So a handler applies every effect that a later request on the
// same connection may observe before it first suspends, and only waits
// afterwards: Produce appends all its partitions before waiting for acks=all,
// Fetch updates its session and reads before parking, the coordinator appends
// before waiting for the high watermark. Only a handler that must suspend
// before its effect is done (a metadata change) is a barrier instead (see
// changes_metadata). Responses leave in request order whatever the order
// handlers finish in (broker/net/connection.cc).
#include "broker/faults/fault_injector.h"
#include "broker/handlers/handlers.h"
#include "broker/metrics/metrics_registry.h"
#include "broker/net/request_handler.h"

namespace weir::dispatch {

class Dispatcher final : public net::RequestHandler {
public:
    // Every request served is counted in `metrics` (requests, errors, duration,
    // traffic). `faults`, when given, is asked before each request.
    Dispatcher(handlers::BrokerContext& broker, metrics::MetricsRegistry& metrics,
               faults::FaultInjector* faults = nullptr)
        : broker_(broker), metrics_(metrics), faults_(faults) {}
    boost::asio::awaitable<std::optional<wire::Frame>> handle(std::shared_ptr<const wire::Bytes> frame,
                                                              const handlers::ConnectionInfo& connection) override;
    // Requests of the APIs that change metadata (changes_metadata).
    [[nodiscard]] bool is_barrier(const wire::Bytes& frame) const override;

private:
    handlers::BrokerContext& broker_;
    metrics::MetricsRegistry& metrics_;
    faults::FaultInjector* faults_;
};

// The APIs whose handlers may change metadata: the topic and config admin
// APIs, Metadata (it auto-creates topics) and FindCoordinator (it creates
// __consumer_offsets). A store may suspend on such a change, and Kafka clients
// count on a pipelined request seeing it (Kafka serves one request of a
// connection at a time), so these are barriers on their connection.
bool changes_metadata(std::int16_t api_key);

// Encodes a whole response frame: size prefix, response header, body.
template <typename Response>
wire::Frame encode_response_frame(const Response& response, std::int32_t correlation_id, std::int16_t version) {
    int header_version = protocol::response_header_version(Response::api_key, version);
    std::size_t body = response.size(version);
    std::size_t total = protocol::response_header_size(header_version) + body;
    wire::Frame out;
    // A Fetch answer's records may stay in their files and be sent from there:
    // its size counts them, so its buffer grows as written instead.
    if constexpr (!std::is_same_v<Response, msg::FetchResponse>) out.bytes.reserve(4 + total);
    wire::Writer w(out.bytes, &out.splices);
    w.int32(static_cast<std::int32_t>(total));
    protocol::encode_response_header(w, correlation_id, header_version);
    response.encode(w, version);
    return out;
}

}  // namespace weir::dispatch
