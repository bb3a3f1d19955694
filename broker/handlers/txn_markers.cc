// WriteTxnMarkers (Kafka's KafkaApis.handleWriteTxnMarkersRequest): the
// transaction coordinator ends a producer's transaction on each partition it
// wrote to with a COMMIT or ABORT control batch, appended as leader with
// acks=all and answered per partition once replicated. A marker on
// __consumer_offsets then makes the transaction's TxnOffsetCommits visible
// (or drops them) in the group coordinator.
#include <chrono>
#include <vector>

#include "broker/common/logging.h"
#include "broker/handlers/handlers.h"
#include "broker/metadata/topic_name.h"
#include "broker/partitions/replica_manager.h"

namespace weir::handlers {

namespace {

// request.timeout.ms's default: how long Kafka lets a marker wait for its
// replication before answering REQUEST_TIMED_OUT (the coordinator retries).
constexpr std::chrono::milliseconds kMarkerReplicationTimeout{30000};

using MarkerResult = msg::WriteTxnMarkersResponse::WritableTxnMarkerResult;

// One partition's marker, appended and waiting for the high watermark.
struct Pending {
    std::size_t result = 0;
    std::size_t topic = 0;
    std::size_t partition = 0;
    TopicPartition tp;
    std::int64_t producer_id = -1;
    bool commit = false;
    std::int64_t required_offset = -1;  // -1: failed at append
};

// Kafka keys the answer by producer id: markers of one producer share an entry.
std::size_t result_for(msg::WriteTxnMarkersResponse& response, std::int64_t producer_id) {
    for (std::size_t i = 0; i < response.markers.size(); ++i)
        if (response.markers[i].producer_id == producer_id) return i;
    auto& result = response.markers.emplace_back();
    result.producer_id = producer_id;
    return response.markers.size() - 1;
}

std::size_t topic_for(MarkerResult& result, const std::string& name) {
    for (std::size_t i = 0; i < result.topics.size(); ++i)
        if (result.topics[i].name == name) return i;
    auto& topic = result.topics.emplace_back();
    topic.name = name;
    return result.topics.size() - 1;
}

}  // namespace

Task<msg::WriteTxnMarkersResponse> handle(BrokerContext& broker, const RequestContext& ctx,
                                          msg::WriteTxnMarkersRequest request) {
    msg::WriteTxnMarkersResponse response;
    std::vector<Pending> pending;
    // Every marker is appended before the first suspension (the dispatch
    // order rule); the partitions then replicate concurrently.
    for (const auto& marker : request.markers) {
        const auto r = result_for(response, marker.producer_id);
        for (const auto& topic : marker.topics) {
            for (auto partition : topic.partition_indexes) {
                auto& result = response.markers[r];
                const auto t = topic_for(result, topic.name);
                auto& out = result.topics[t].partitions.emplace_back();
                out.partition_index = partition;
                TopicPartition tp{topic.name, partition};
                auto appended = broker.partitions.append_txn_marker(
                    tp, marker.producer_id, marker.producer_epoch, marker.coordinator_epoch, marker.transaction_result);
                out.error_code = to_int(appended.error);
                if (appended.error != ErrorCode::none) {
                    logging::debug("WriteTxnMarkers: {} marker of producer {} on {} failed: {} {}",
                                   marker.transaction_result ? "COMMIT" : "ABORT", marker.producer_id, tp.to_string(),
                                   to_int(appended.error), appended.error_message);
                    continue;
                }
                pending.push_back({r, t, result.topics[t].partitions.size() - 1, std::move(tp), marker.producer_id,
                                   marker.transaction_result, appended.last_offset + 1});
            }
        }
    }
    const auto deadline = ctx.received + kMarkerReplicationTimeout;
    for (const auto& p : pending) {
        auto& out = response.markers[p.result].topics[p.topic].partitions[p.partition];
        auto error = co_await broker.partitions.wait_for_high_watermark(p.tp, p.required_offset, deadline);
        out.error_code = to_int(error);
        if (error != ErrorCode::none || p.tp.topic != metadata::kConsumerOffsetsTopic || !broker.group_service)
            continue;
        // GroupCoordinator.onTransactionCompleted, once the marker is replicated.
        try {
            broker.groups().complete_transaction(p.tp.partition, p.producer_id, p.commit);
        } catch (const std::exception& e) {
            logging::error("completing the transaction of producer {} on {} failed: {}", p.producer_id,
                           p.tp.to_string(), e.what());
            out.error_code = to_int(ErrorCode::unknown_server_error);
        }
    }
    co_return response;
}

}  // namespace weir::handlers
