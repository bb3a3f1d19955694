#pragma once
// The transaction coordinator as the broker's handlers see it (InitProducerId
// with a transactional id, AddPartitionsToTxn, AddOffsetsToTxn, EndTxn,
// DescribeTransactions, ListTransactions). Implemented in coordinator/txn/;
// the Broker gets it from a factory at start-up.
#include <boost/asio/awaitable.hpp>

#include "broker/handler_api/coordinator_locator.h"
#include "broker/handler_api/request_context.h"
#include "messages/add_offsets_to_txn.h"
#include "messages/add_partitions_to_txn.h"
#include "messages/describe_transactions.h"
#include "messages/end_txn.h"
#include "messages/init_producer_id.h"
#include "messages/list_transactions.h"

namespace weir::handlers {

class TransactionService {
public:
    template <typename T>
    using Task = boost::asio::awaitable<T>;
    using Ctx = handlers::RequestContext;

    virtual ~TransactionService() = default;

    // Loads the coordinator state (replays __transaction_state); called once
    // the broker's partitions are open.
    virtual void start() = 0;
    // Stops timers and marker sending (shutdown).
    virtual void stop() = 0;
    // After stop(): resolves once every background task the service started
    // (state writes, marker rounds, loads) has ended; none starts after.
    virtual Task<void> stopped() = 0;
    // True while some __transaction_state partition this broker leads is
    // still being replayed.
    [[nodiscard]] virtual bool loading() const = 0;

    // FindCoordinator's key type 1 (find_coordinator.cc).
    virtual CoordinatorLocator& locator() = 0;

    // Only requests with a transactional id (producers.cc serves the others).
    virtual Task<msg::InitProducerIdResponse> init_producer_id(const Ctx&, msg::InitProducerIdRequest) = 0;
    virtual Task<msg::AddPartitionsToTxnResponse> add_partitions_to_txn(const Ctx&, msg::AddPartitionsToTxnRequest) = 0;
    virtual Task<msg::AddOffsetsToTxnResponse> add_offsets_to_txn(const Ctx&, msg::AddOffsetsToTxnRequest) = 0;
    virtual Task<msg::EndTxnResponse> end_txn(const Ctx&, msg::EndTxnRequest) = 0;
    virtual Task<msg::DescribeTransactionsResponse> describe_transactions(const Ctx&,
                                                                          msg::DescribeTransactionsRequest) = 0;
    virtual Task<msg::ListTransactionsResponse> list_transactions(const Ctx&, msg::ListTransactionsRequest) = 0;
};

}  // namespace weir::handlers
