// ListOffsets: every version. v0 answers Kafka's legacy segment-based offset
// list; v1+ one offset (and timestamp) per partition: -1 latest, -2 earliest,
// -3 max timestamp, -4 earliest local, -5 latest tiered, else the first
// offset whose timestamp is >= the one asked for.
#include <set>

#include "broker/handlers/handlers.h"
#include "broker/partitions/replica_manager.h"
#include "protocol/errors.h"

namespace weir::handlers {

namespace {

using Response = msg::ListOffsetsResponse;
using PartitionResponse = Response::ListOffsetsPartitionResponse;

constexpr std::int32_t kConsumerReplicaId = -1;
constexpr std::int32_t kDebuggingReplicaId = -2;

void answer_v0(BrokerContext& broker, const metadata::MetadataSnapshot& snapshot,
               const msg::ListOffsetsRequest& request, const std::string& topic,
               const msg::ListOffsetsRequest::ListOffsetsPartition& in, PartitionResponse& out) {
    auto [partition, error] = broker.local_partition(snapshot, {topic, in.partition_index});
    if (!partition) {
        out.error_code = to_int(error);
        return;
    }
    auto result = partition->legacy_offsets_for_timestamp(in.timestamp, std::max(in.max_num_offsets, 0),
                                                          request.replica_id == kConsumerReplicaId,
                                                          request.replica_id != kDebuggingReplicaId);
    if (result.error != ErrorCode::none) {
        out.error_code = to_int(result.error);
    } else if (in.max_num_offsets < 0) {
        out.error_code = to_int(ErrorCode::unknown_server_error);  // Kafka fails allocating a negative array
    } else {
        out.old_style_offsets = std::move(result.offsets);
    }
}

void answer(BrokerContext& broker, const metadata::MetadataSnapshot& snapshot, const msg::ListOffsetsRequest& request,
            std::int16_t version, const std::string& topic, const msg::ListOffsetsRequest::ListOffsetsPartition& in,
            PartitionResponse& out) {
    auto [partition, error] = broker.local_partition(snapshot, {topic, in.partition_index});
    if (!partition) {
        out.error_code = to_int(error);
        return;
    }
    // Replicas may see up to the log end; consumers up to what their isolation allows.
    auto isolation = request.replica_id != kConsumerReplicaId ? partitions::FetchIsolation::log_end
                     : request.isolation_level == 1           ? partitions::FetchIsolation::txn_committed
                                                              : partitions::FetchIsolation::high_watermark;
    auto result = partition->fetch_offset_for_timestamp(
        in.timestamp, isolation, version >= 4 ? in.current_leader_epoch : partitions::kNoLeaderEpoch,
        request.replica_id != kDebuggingReplicaId);
    if (result.error != ErrorCode::none) {
        out.error_code = to_int(result.error);
        return;
    }
    if (!result.found) return;  // offset and timestamp stay -1
    out.offset = result.found->offset;
    out.timestamp = result.found->timestamp;
    if (version >= 4) out.leader_epoch = result.found->leader_epoch;
}

}  // namespace

Task<msg::ListOffsetsResponse> handle(BrokerContext& broker, const RequestContext& ctx,
                                      msg::ListOffsetsRequest request) {
    const auto version = ctx.version();
    auto snapshot = broker.metadata.snapshot();
    // A client may name a topic created through another broker a moment ago,
    // which this broker (its leader, say) has yet to learn. librdkafka takes
    // UNKNOWN_TOPIC_OR_PARTITION here as final, so the topic is looked for
    // first. Nothing is changed by this request, so waiting keeps no order.
    for (const auto& topic : request.topics)
        if (!snapshot->topic(topic.name)) snapshot = co_await broker.metadata.snapshot_showing(topic.name);

    std::set<std::pair<std::string, std::int32_t>> seen, duplicates;
    for (const auto& topic : request.topics)
        for (const auto& p : topic.partitions)
            if (!seen.emplace(topic.name, p.partition_index).second) duplicates.emplace(topic.name, p.partition_index);

    Response response;
    response.topics.reserve(request.topics.size());
    for (const auto& topic : request.topics) {
        auto& topic_out = response.topics.emplace_back();
        topic_out.name = topic.name;
        topic_out.partitions.reserve(topic.partitions.size());
        for (const auto& in : topic.partitions) {
            auto& out = topic_out.partitions.emplace_back();
            out.partition_index = in.partition_index;
            if (version == 0) {
                answer_v0(broker, *snapshot, request, topic.name, in, out);
            } else if (duplicates.contains({topic.name, in.partition_index})) {
                out.error_code = to_int(ErrorCode::invalid_request);
            } else {
                answer(broker, *snapshot, request, version, topic.name, in, out);
            }
        }
    }
    co_return response;
}

}  // namespace weir::handlers
