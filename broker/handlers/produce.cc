// Produce: every version. v0-v2 carry legacy message sets, which the
// partition manager up-converts; acks=0 gets no response (the dispatcher
// drops it), acks=1 and acks=-1 are acknowledged once the write reached the
// OS (single node: the leader is the whole ISR).
#include "broker/config/broker_config.h"
#include "broker/handlers/handlers.h"
#include "broker/partitions/partition_manager.h"

namespace weir::handlers {

Task<msg::ProduceResponse> handle(BrokerContext& broker, const RequestContext& ctx, msg::ProduceRequest request) {
    msg::ProduceResponse response;
    const bool acks_valid = request.acks == 0 || request.acks == 1 || request.acks == -1;
    response.responses.reserve(request.topic_data.size());
    for (auto& topic : request.topic_data) {
        auto& topic_out = response.responses.emplace_back();
        topic_out.name = topic.name;
        topic_out.partition_responses.reserve(topic.partition_data.size());
        for (auto& partition : topic.partition_data) {
            auto& out = topic_out.partition_responses.emplace_back();
            out.index = partition.index;
            if (!acks_valid) {
                out.error_code = static_cast<std::int16_t>(ErrorCode::invalid_required_acks);
                out.base_offset = -1;
                continue;
            }
            partitions::ProduceLimits limits;
            limits.produce_version = ctx.version();
            limits.max_message_bytes = broker.topic_max_message_bytes(topic.name);
            wire::ByteSpan records = partition.records ? partition.records->bytes() : wire::ByteSpan{};
            auto result = broker.partitions.produce({topic.name, partition.index}, records, limits);
            out.error_code = static_cast<std::int16_t>(result.error);
            out.base_offset = result.base_offset;
            out.log_append_time_ms = result.log_append_time;
            out.log_start_offset = result.log_start_offset;
            if (result.error != ErrorCode::none && !result.error_message.empty()) out.error_message = result.error_message;
        }
    }
    co_return response;
}

}  // namespace weir::handlers
