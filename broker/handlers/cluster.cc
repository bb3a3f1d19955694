// DescribeCluster: every version. Weir answers as a broker (endpoint type 1);
// brokers are described by their endpoint on the request's listener.
#include "broker/handlers/handlers.h"
#include "protocol/errors.h"

namespace weir::handlers {

namespace {

constexpr std::int8_t kBrokerEndpoint = 1;
constexpr std::int8_t kControllerEndpoint = 2;
constexpr std::int32_t kClusterOperations = 8096;  // every CLUSTER operation (no authorizer)

}  // namespace

Task<msg::DescribeClusterResponse> handle(BrokerContext& broker, const RequestContext& ctx,
                                          msg::DescribeClusterRequest request) {
    const auto version = ctx.version();
    msg::DescribeClusterResponse response;
    // AuthHelper.computeDescribeClusterResponse.
    const auto requested = request.endpoint_type;
    if (requested != kBrokerEndpoint && requested != kControllerEndpoint) {
        response.error_code = to_int(version == 0 ? ErrorCode::invalid_request : ErrorCode::unsupported_endpoint_type);
        response.error_message = "Unsupported endpoint type " + std::to_string(requested);
        co_return response;
    }
    if (requested != kBrokerEndpoint) {
        response.error_code = to_int(version == 0 ? ErrorCode::invalid_request : ErrorCode::mismatched_endpoint_type);
        response.error_message =
            "The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type CONTROLLER";
        co_return response;
    }
    auto snapshot = broker.metadata.snapshot();
    if (request.include_cluster_authorized_operations) response.cluster_authorized_operations = kClusterOperations;
    for (const auto& b : snapshot->brokers) {
        const auto* endpoint = b.endpoint(ctx.connection.listener);
        if (endpoint == nullptr) continue;
        auto& out = response.brokers.emplace_back();
        out.broker_id = b.id;
        out.host = endpoint->host;
        out.port = endpoint->port;
        out.rack = b.rack;
    }
    response.cluster_id = snapshot->cluster_id;
    response.controller_id = snapshot->controller_id;
    response.endpoint_type = kBrokerEndpoint;
    co_return response;
}

}  // namespace weir::handlers
