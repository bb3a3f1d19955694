// The transaction family: AddPartitionsToTxn, AddOffsetsToTxn, EndTxn,
// DescribeTransactions and ListTransactions, answered by the transaction
// coordinator (InitProducerId with a transactional id goes there from
// producers.cc). A broker without one answers as a broker that is no
// coordinator (COORDINATOR_NOT_AVAILABLE).
#include "broker/handler_api/transaction_service.h"
#include "broker/handlers/handlers.h"

namespace weir::handlers {

namespace {

constexpr auto kNoCoordinator = ErrorCode::coordinator_not_available;

}  // namespace

Task<msg::AddPartitionsToTxnResponse> handle(BrokerContext& broker, const RequestContext& context,
                                             msg::AddPartitionsToTxnRequest request) {
    if (broker.transaction_service)
        co_return co_await broker.transaction_service->add_partitions_to_txn(context, std::move(request));
    msg::AddPartitionsToTxnResponse response;
    auto fill = [](std::vector<msg::AddPartitionsToTxnResponse::AddPartitionsToTxnTopicResult>& out,
                   const std::vector<msg::AddPartitionsToTxnRequest::AddPartitionsToTxnTopic>& topics) {
        for (const auto& topic : topics) {
            auto& t = out.emplace_back();
            t.name = topic.name;
            for (auto p : topic.partitions) {
                auto& r = t.results_by_partition.emplace_back();
                r.partition_index = p;
                r.partition_error_code = to_int(kNoCoordinator);
            }
        }
    };
    if (context.version() < 4) {
        fill(response.results_by_topic_v3_and_below, request.v3_and_below_topics);
    } else {
        for (const auto& t : request.transactions) {
            auto& result = response.results_by_transaction.emplace_back();
            result.transactional_id = t.transactional_id;
            fill(result.topic_results, t.topics);
        }
    }
    co_return response;
}

Task<msg::AddOffsetsToTxnResponse> handle(BrokerContext& broker, const RequestContext& context,
                                          msg::AddOffsetsToTxnRequest request) {
    if (broker.transaction_service)
        co_return co_await broker.transaction_service->add_offsets_to_txn(context, std::move(request));
    msg::AddOffsetsToTxnResponse response;
    response.error_code = to_int(kNoCoordinator);
    co_return response;
}

Task<msg::EndTxnResponse> handle(BrokerContext& broker, const RequestContext& context, msg::EndTxnRequest request) {
    if (broker.transaction_service) co_return co_await broker.transaction_service->end_txn(context, std::move(request));
    msg::EndTxnResponse response;
    response.error_code = to_int(kNoCoordinator);
    co_return response;
}

Task<msg::DescribeTransactionsResponse> handle(BrokerContext& broker, const RequestContext& context,
                                               msg::DescribeTransactionsRequest request) {
    if (broker.transaction_service)
        co_return co_await broker.transaction_service->describe_transactions(context, std::move(request));
    msg::DescribeTransactionsResponse response;
    for (const auto& id : request.transactional_ids) {
        auto& out = response.transaction_states.emplace_back();
        out.transactional_id = id;
        out.error_code = to_int(kNoCoordinator);
    }
    co_return response;
}

Task<msg::ListTransactionsResponse> handle(BrokerContext& broker, const RequestContext& context,
                                           msg::ListTransactionsRequest request) {
    if (broker.transaction_service)
        co_return co_await broker.transaction_service->list_transactions(context, std::move(request));
    msg::ListTransactionsResponse response;
    response.error_code = to_int(kNoCoordinator);
    co_return response;
}

}  // namespace weir::handlers
