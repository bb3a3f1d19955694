#pragma once
// The broker's transaction coordinator (Kafka's transactions), built over the
// broker's parts. See coordinator/txn/README.md.
#include <memory>

#include "broker/handler_api/broker_context.h"
#include "broker/handler_api/transaction_service.h"

namespace weir::coordinator {

std::unique_ptr<handlers::TransactionService> make_transaction_coordinator(handlers::BrokerContext& broker);

}  // namespace weir::coordinator
