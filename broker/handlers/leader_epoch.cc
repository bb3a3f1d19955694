// OffsetForLeaderEpoch (KIP-101/KIP-320): the end offset of the largest
// leader epoch <= the one asked for, from the partition's epoch history
// (Kafka's ReplicaManager.lastOffsetForLeaderEpoch: leaders only).
#include "broker/handlers/handlers.h"
#include "broker/partitions/replica_manager.h"

namespace weir::handlers {

Task<msg::OffsetForLeaderEpochResponse> handle(BrokerContext& broker, const RequestContext&,
                                               msg::OffsetForLeaderEpochRequest request) {
    msg::OffsetForLeaderEpochResponse response;
    auto snapshot = broker.metadata.snapshot();
    for (auto& topic : request.topics) {
        auto& topic_out = response.topics.emplace_back();
        topic_out.topic = topic.topic;
        for (auto& p : topic.partitions) {
            auto& out = topic_out.partitions.emplace_back();
            out.partition = p.partition;
            auto [partition, error] = broker.local_partition(*snapshot, {topic.topic, p.partition});
            if (!partition) {
                out.error_code = to_int(error);
                continue;
            }
            auto result = partition->last_offset_for_leader_epoch(p.current_leader_epoch, p.leader_epoch, true);
            out.error_code = to_int(result.error);
            out.leader_epoch = result.leader_epoch;
            out.end_offset = result.end_offset;
        }
    }
    co_return response;
}

}  // namespace weir::handlers
