// Produce: every version. The ReplicaManager validates (Kafka's LogValidator:
// keys on compacted topics, magic, CRC, sizes, codecs), up-converts v0/v1
// message sets and appends. acks=0 gets no response (the dispatcher drops
// it), acks=1 is acknowledged once the write reached the OS, acks=-1 once the
// high watermark covers it (single node: at once, the leader is the whole ISR).
#include <algorithm>
#include <chrono>
#include <vector>

#include "broker/handlers/handlers.h"
#include "broker/partitions/replica_manager.h"

namespace weir::handlers {

namespace {

constexpr std::int16_t kAcksAll = -1;

// A partition appended with acks=all, waiting for the high watermark.
struct AwaitingAcks {
    std::size_t topic_index = 0;
    std::size_t partition_index = 0;
    std::shared_ptr<partitions::Partition> partition;
    std::int64_t required_offset = 0;
};

}  // namespace

Task<msg::ProduceResponse> handle(BrokerContext& broker, const RequestContext& ctx, msg::ProduceRequest request) {
    msg::ProduceResponse response;
    const bool acks_valid = request.acks == 0 || request.acks == 1 || request.acks == kAcksAll;
    std::vector<AwaitingAcks> awaiting;
    const auto snapshot = broker.metadata.snapshot();
    // Every partition is appended before the first suspension (the dispatch
    // order rule, broker/dispatch/dispatcher.h); only the acks=all wait suspends.
    response.responses.reserve(request.topic_data.size());
    for (auto& topic : request.topic_data) {
        auto& topic_out = response.responses.emplace_back();
        topic_out.name = topic.name;
        topic_out.partition_responses.reserve(topic.partition_data.size());
        for (auto& partition : topic.partition_data) {
            auto& out = topic_out.partition_responses.emplace_back();
            out.index = partition.index;
            if (!acks_valid) {
                out.error_code = to_int(ErrorCode::invalid_required_acks);
                out.base_offset = -1;
                continue;
            }
            partitions::ProduceLimits limits;
            limits.produce_version = ctx.version();
            limits.acks_all = request.acks == kAcksAll;
            wire::ByteSpan records = partition.records ? partition.records->bytes() : wire::ByteSpan{};
            auto local = broker.local_partition(*snapshot, {topic.name, partition.index});
            partitions::ProduceResult result;
            if (local.partition)
                result = local.partition->append_records_as_leader(records, limits);
            else
                result.error = local.error;
            out.error_code = to_int(result.error);
            out.base_offset = result.base_offset;
            out.log_append_time_ms = result.log_append_time;
            out.log_start_offset = result.log_start_offset;
            // As Kafka: a message only with the record errors it sums up
            // (RecordValidationException); other errors carry none.
            if (result.error != ErrorCode::none && !result.record_errors.empty())
                out.error_message = result.error_message;
            for (auto& e : result.record_errors) {
                auto& record_error = out.record_errors.emplace_back();
                record_error.batch_index = e.batch_index;
                record_error.batch_index_error_message = std::move(e.message);
            }
            if (request.acks == kAcksAll && result.error == ErrorCode::none)
                awaiting.push_back({response.responses.size() - 1, topic_out.partition_responses.size() - 1,
                                    std::move(local.partition), result.last_offset + 1});
        }
    }
    // Kafka's DelayedProduce: a partition not replicated in time keeps its
    // offsets and reports REQUEST_TIMED_OUT.
    const auto deadline = ctx.received + std::chrono::milliseconds(std::max<std::int32_t>(request.timeout_ms, 0));
    for (const auto& a : awaiting) {
        auto error = co_await broker.partitions.wait_for_high_watermark(a.partition, a.required_offset, deadline);
        if (error != ErrorCode::none)
            response.responses[a.topic_index].partition_responses[a.partition_index].error_code = to_int(error);
    }
    co_return response;
}

}  // namespace weir::handlers
