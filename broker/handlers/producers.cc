// The producer family: InitProducerId at every version (0-5) for idempotent
// producers, and DescribeProducers (what each partition knows of its
// producers, as kafka-transactions.sh describe-producers shows it). As Kafka's
// TransactionCoordinator, a request without a transactional id always gets a
// fresh producer id with epoch 0, whatever id and epoch it names (KIP-360:
// an idempotent producer recovering from a lost sequence asks again and
// starts over with the new id); only a transactional id's producer keeps its
// id and has its epoch bumped, by the transaction coordinator.
#include "broker/handler_api/transaction_service.h"
#include "broker/handlers/handlers.h"
#include "broker/metadata/producer_id_manager.h"
#include "broker/partitions/replica_manager.h"

namespace weir::handlers {

namespace {

// RecordBatch.NO_PRODUCER_ID / NO_PRODUCER_EPOCH.
constexpr std::int64_t kNoProducerId = -1;
constexpr std::int16_t kNoProducerEpoch = -1;

msg::InitProducerIdResponse failure(ErrorCode error) {
    msg::InitProducerIdResponse response;
    response.error_code = to_int(error);
    response.producer_id = kNoProducerId;
    response.producer_epoch = kNoProducerEpoch;
    return response;
}

}  // namespace

Task<msg::InitProducerIdResponse> handle(BrokerContext& broker, const RequestContext& context,
                                         msg::InitProducerIdRequest request) {
    // KafkaApis.handleInitProducerIdRequest: an id without an epoch (or the
    // reverse) is malformed.
    const bool no_id = request.producer_id == kNoProducerId;
    const bool no_epoch = request.producer_epoch == kNoProducerEpoch;
    if (no_id != no_epoch) co_return failure(ErrorCode::invalid_request);
    if (request.transactional_id) {
        if (broker.transaction_service)
            co_return co_await broker.transaction_service->init_producer_id(context, std::move(request));
        // TransactionCoordinator: an empty id is INVALID_REQUEST; any other
        // needs a transaction coordinator, and FindCoordinator names none.
        co_return failure(request.transactional_id->empty() ? ErrorCode::invalid_request
                                                            : ErrorCode::coordinator_not_available);
    }
    auto generate = broker.producer_ids.generate();
    auto generated = co_await std::move(generate);
    if (!generated.ok()) co_return failure(generated.error);
    msg::InitProducerIdResponse response;
    response.producer_id = generated.producer_id;
    response.producer_epoch = 0;
    co_return response;
}

Task<msg::DescribeProducersResponse> handle(BrokerContext& broker, const RequestContext&,
                                            msg::DescribeProducersRequest request) {
    msg::DescribeProducersResponse response;
    const auto snapshot = broker.metadata.snapshot();
    for (const auto& topic : request.topics) {
        auto& topic_out = response.topics.emplace_back();
        topic_out.name = topic.name;
        for (auto index : topic.partition_indexes) {
            auto& out = topic_out.partitions.emplace_back();
            out.partition_index = index;
            // Kafka's ReplicaManager.activeProducerState: the leader answers.
            auto [partition, error] = broker.local_partition(*snapshot, {topic.name, index});
            if (partition) error = partition->check_leader(partitions::kNoLeaderEpoch, true);
            if (error != ErrorCode::none) {
                out.error_code = to_int(error);
                continue;
            }
            for (const auto& [producer_id, entry] : partition->producer_state().producers()) {
                auto& state = out.active_producers.emplace_back();
                state.producer_id = producer_id;
                state.producer_epoch = entry.epoch;
                state.last_sequence = entry.last_sequence();
                state.last_timestamp = entry.last_timestamp;
                state.coordinator_epoch = entry.coordinator_epoch;
                state.current_txn_start_offset = entry.current_txn_first_offset;
            }
        }
    }
    co_return response;
}

}  // namespace weir::handlers
