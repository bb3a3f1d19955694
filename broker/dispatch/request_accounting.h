#pragma once
// What the dispatcher counts per request (broker/metrics): the errors a
// response carries, at every level (Kafka's ErrorsPerSec), and per-topic
// traffic (BytesIn/BytesOut/MessagesIn). The request is consumed by its
// handler, so what its accounting needs is taken from it first.
#include <string>
#include <vector>

#include "broker/handler_api/broker_context.h"
#include "broker/metrics/metrics_registry.h"
#include "messages/fetch.h"
#include "messages/produce.h"

namespace weir::dispatch {

struct RequestFacts {
    struct Produced {
        std::string topic;
        std::int32_t partition = 0;
        std::uint64_t bytes = 0;
        std::uint64_t records = 0;
        auto operator<=>(const Produced&) const = default;
    };
    std::vector<Produced> produced;  // sorted by topic, partition
    bool replica_fetch = false;      // a follower's: replication traffic, not bytes out
};

RequestFacts facts_of(const msg::ProduceRequest& request);
RequestFacts facts_of(const msg::FetchRequest& request);
template <typename Request>
RequestFacts facts_of(const Request&) {
    return {};
}

// Every error_code of a response, found by walking the member names Kafka's
// schemas use for nested results; codes other than none are counted.
template <typename T>
void count_errors(metrics::MetricsRegistry& metrics, std::int16_t api_key, const T& node) {
    if constexpr (requires { node.error_code; }) {
        if (node.error_code != 0) metrics.record_error(api_key, error_from_code(node.error_code));
    }
    if constexpr (requires { node.responses.begin(); })
        for (const auto& child : node.responses) count_errors(metrics, api_key, child);
    if constexpr (requires { node.partition_responses.begin(); })
        for (const auto& child : node.partition_responses) count_errors(metrics, api_key, child);
    if constexpr (requires { node.topics.begin(); })
        for (const auto& child : node.topics) count_errors(metrics, api_key, child);
    if constexpr (requires { node.partitions.begin(); })
        for (const auto& child : node.partitions) count_errors(metrics, api_key, child);
    if constexpr (requires { node.groups.begin(); })
        for (const auto& child : node.groups) count_errors(metrics, api_key, child);
    if constexpr (requires { node.results.begin(); })
        for (const auto& child : node.results) count_errors(metrics, api_key, child);
}

// Traffic of the partitions a Produce appended and a Fetch returned.
void count_traffic(metrics::MetricsRegistry& metrics, const handlers::BrokerContext& broker, const RequestFacts& facts,
                   const msg::ProduceResponse& response);
void count_traffic(metrics::MetricsRegistry& metrics, const handlers::BrokerContext& broker, const RequestFacts& facts,
                   const msg::FetchResponse& response);
template <typename Response>
void count_traffic(metrics::MetricsRegistry&, const handlers::BrokerContext&, const RequestFacts&, const Response&) {}

}  // namespace weir::dispatch
