// DeleteRecords: every version. Moves each partition's log start offset up
// (offset -1: to the high watermark); whole segments below it are deleted.
#include <map>

#include "broker/handlers/handlers.h"
#include "broker/metadata/topic_name.h"
#include "broker/partitions/replica_manager.h"
#include "protocol/errors.h"

namespace weir::handlers {

namespace {

constexpr std::int64_t kInvalidLowWatermark = -1;

struct Outcome {
    ErrorCode error = ErrorCode::none;
    std::int64_t low_watermark = kInvalidLowWatermark;
};

// ReplicaManager.deleteRecordsOnLocalLog + Partition.deleteRecordsOnLeader.
Outcome delete_records(BrokerContext& broker, const metadata::MetadataSnapshot& snapshot, const std::string& topic,
                       std::int32_t partition, std::int64_t offset) {
    if (!snapshot.contains({topic, partition})) return {ErrorCode::unknown_topic_or_partition};
    if (metadata::is_internal_topic(topic)) return {ErrorCode::invalid_topic_exception};
    auto found = broker.partitions.get({topic, partition});
    if (!found || !found->is_leader()) return {ErrorCode::not_leader_or_follower};
    if (!broker.topic_config(topic).log.cleanup_delete) return {ErrorCode::policy_violation};
    // Offset -1 (partitions::kDeleteUpToHighWatermark) means the high watermark.
    auto result = found->delete_records_before(offset);
    if (result.error != ErrorCode::none) return {result.error};
    return {ErrorCode::none, result.low_watermark};
}

}  // namespace

Task<msg::DeleteRecordsResponse> handle(BrokerContext& broker, const RequestContext&,
                                        msg::DeleteRecordsRequest request) {
    // Kafka keys the request by partition: a repeated partition is answered
    // once, with the offset given last.
    std::map<std::pair<std::string, std::int32_t>, std::int64_t> offsets;
    for (const auto& t : request.topics)
        for (const auto& p : t.partitions) offsets[{t.name, p.partition_index}] = p.offset;

    auto snapshot = broker.metadata.snapshot();
    msg::DeleteRecordsResponse response;
    std::map<std::string, std::size_t, std::less<>> topic_index;
    for (const auto& t : request.topics) {
        auto [it, inserted] = topic_index.emplace(t.name, response.topics.size());
        if (inserted) response.topics.emplace_back().name = t.name;
        auto& topic_out = response.topics[it->second];
        for (const auto& p : t.partitions) {
            auto offset = offsets.find({t.name, p.partition_index});
            if (offset == offsets.end()) continue;  // already answered
            auto outcome = delete_records(broker, *snapshot, t.name, p.partition_index, offset->second);
            offsets.erase(offset);
            auto& out = topic_out.partitions.emplace_back();
            out.partition_index = p.partition_index;
            out.error_code = to_int(outcome.error);
            out.low_watermark = outcome.low_watermark;
        }
    }
    co_return response;
}

}  // namespace weir::handlers
