#include "coordinator/txn/transaction_coordinator.h"

#include "coordinator/txn/txn_service.h"

namespace weir::coordinator {

std::unique_ptr<handlers::TransactionService> make_transaction_coordinator(handlers::BrokerContext& broker) {
    return std::make_unique<txn::TxnService>(broker);
}

}  // namespace weir::coordinator
