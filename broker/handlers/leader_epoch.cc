// OffsetForLeaderEpoch (KIP-101/KIP-320): the end offset of the largest
// leader epoch <= the one asked for. A partition's epoch history is its
// metadata leader epoch; every offset of the log belongs to the current epoch
// until replication keeps an epoch cache.
#include "broker/handlers/handlers.h"
#include "broker/partitions/partition_manager.h"

namespace weir::handlers {

Task<msg::OffsetForLeaderEpochResponse> handle(BrokerContext& broker, const RequestContext&,
                                               msg::OffsetForLeaderEpochRequest request) {
    msg::OffsetForLeaderEpochResponse response;
    auto snapshot = broker.metadata.snapshot();
    for (auto& topic : request.topics) {
        auto& topic_out = response.topics.emplace_back();
        topic_out.topic = topic.topic;
        auto info = snapshot->topic(topic.topic);
        for (auto& p : topic.partitions) {
            auto& out = topic_out.partitions.emplace_back();
            out.partition = p.partition;
            auto log = info ? broker.partitions.find({topic.topic, p.partition}) : nullptr;
            if (!log || p.partition < 0 || static_cast<std::size_t>(p.partition) >= info->partitions.size()) {
                out.error_code = static_cast<std::int16_t>(ErrorCode::unknown_topic_or_partition);
                continue;
            }
            const auto epoch = info->partitions[static_cast<std::size_t>(p.partition)].leader_epoch;
            if (p.current_leader_epoch >= 0 && p.current_leader_epoch < epoch) {
                out.error_code = static_cast<std::int16_t>(ErrorCode::fenced_leader_epoch);
                continue;
            }
            if (p.current_leader_epoch > epoch) {
                out.error_code = static_cast<std::int16_t>(ErrorCode::unknown_leader_epoch);
                continue;
            }
            if (p.leader_epoch < 0) continue;  // undefined epoch: -1 / -1
            if (p.leader_epoch >= epoch) {
                out.leader_epoch = epoch;
                out.end_offset = log->log_end_offset();
            }
        }
    }
    co_return response;
}

}  // namespace weir::handlers
