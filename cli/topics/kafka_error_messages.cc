#include "cli/topics/kafka_error_messages.h"

#include <array>
#include <utility>

namespace weir::cli::topics {

namespace {

// Kafka 3.7's Errors.java.
constexpr std::array<std::pair<int, std::string_view>, 20> kMessages{{
    {-1, "The server experienced an unexpected error when processing the request."},
    {3, "This server does not host this topic-partition."},
    {5, "There is no leader for this topic-partition as we are in the middle of a leadership election."},
    {7, "The request timed out."},
    {17, "The request attempted to perform an operation on an invalid topic."},
    {29, "Topic authorization failed."},
    {31, "Cluster authorization failed."},
    {35, "The version of API is not supported."},
    {36, "Topic with this name already exists."},
    {37, "Number of partitions is below 1."},
    {38, "Replication factor is below 1 or larger than the number of available brokers."},
    {39, "Replica assignment is invalid."},
    {40, "Configuration is invalid."},
    {41, "This is not the correct controller for this cluster."},
    {42,
     "This most likely occurs because of a request being malformed by the client library or the message was sent to "
     "an incompatible broker. See the broker logs for more details."},
    {44, "Request parameters do not satisfy the configured policy."},
    {60, "A partition reassignment is in progress."},
    {73, "Topic deletion is disabled."},
    {89, "The throttling quota has been exceeded."},
    {100, "This server does not host this topic ID."},
}};

}  // namespace

std::optional<std::string_view> java_error_message(int code) {
    for (const auto& [c, message] : kMessages)
        if (c == code) return message;
    return std::nullopt;
}

}  // namespace weir::cli::topics
