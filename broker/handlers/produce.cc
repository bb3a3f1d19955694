// Produce: every version. v0-v2 carry legacy message sets, which the
// partition manager up-converts; acks=0 gets no response (the dispatcher
// drops it), acks=1 and acks=-1 are acknowledged once the write reached the
// OS (single node: the leader is the whole ISR).
#include "broker/config/broker_config.h"
#include "broker/handlers/handlers.h"
#include "broker/partitions/partition_manager.h"
#include "protocol/records/conversion.h"
#include "protocol/records/record_batch.h"

namespace weir::handlers {
namespace {

// Kafka's LogValidator.validateKey: a compacted topic refuses records without
// a key (the cleaner keeps records by key and drops unkeyed ones), with INVALID_RECORD and one
// record error per offending record of the first batch that has any. Records
// that do not decode are left to the partition manager, which reports them.
std::vector<msg::ProduceResponse::BatchIndexAndErrorMessage> unkeyed_record_errors(const storage::TopicPartition& tp,
                                                                                  wire::ByteSpan records) {
    std::vector<msg::ProduceResponse::BatchIndexAndErrorMessage> errors;
    try {
        wire::Bytes converted;
        if (records::records_magic(records) < 2) {
            converted = records::up_convert(records);
            records = converted;
        }
        for (auto batch : records::split_batches(records, false)) {
            std::int32_t index = 0;
            for (const auto& r : records::decode_records(batch)) {
                if (!r.key) {
                    auto& e = errors.emplace_back();
                    e.batch_index = index;
                    e.batch_index_error_message =
                        "Compacted topic cannot accept message without key in topic partition " + tp.dir_name() + ".";
                }
                ++index;
            }
            if (!errors.empty()) break;
        }
    } catch (const wire::DecodeError&) {
        errors.clear();
    }
    return errors;
}

// LogValidator.processRecordErrors' message.
std::string record_errors_message(const std::vector<msg::ProduceResponse::BatchIndexAndErrorMessage>& errors) {
    std::string shown;
    for (std::size_t i = 0; i < std::min<std::size_t>(errors.size(), 3); ++i) {
        if (i > 0) shown += ", ";
        shown += "RecordError(batchIndex=" + std::to_string(errors[i].batch_index) + ", message='" +
                 errors[i].batch_index_error_message.value_or("") + "')";
    }
    return "One or more records have been rejected due to " + std::to_string(errors.size()) +
           " record errors in total, and only showing the first three errors at most: [" + shown + "]";
}

}  // namespace

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
            storage::TopicPartition tp{topic.name, partition.index};
            if (auto log = broker.partitions.find(tp); log && log->config().cleanup_compact && !records.empty()) {
                if (auto errors = unkeyed_record_errors(tp, records); !errors.empty()) {
                    out.error_code = static_cast<std::int16_t>(ErrorCode::invalid_record);
                    out.base_offset = -1;
                    out.log_start_offset = log->log_start_offset();
                    out.error_message = record_errors_message(errors);
                    out.record_errors = std::move(errors);
                    continue;
                }
            }
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
