#pragma once
// The records of __transaction_state in Kafka's formats (TransactionLog.scala):
// key v0 (transactionalId), value v0 written (v1, flexible, read too); a null
// value is the tombstone of an expired transactional id. Empty transactions
// store a null partition list, as Kafka does.
#include <optional>
#include <string>
#include <string_view>

#include "coordinator/runtime/record_batches.h"
#include "coordinator/txn/types.h"

namespace weir::coordinator::txn {

inline constexpr std::string_view kTransactionTopic = "__transaction_state";

wire::Bytes txn_log_key(std::string_view transactional_id);
wire::Bytes txn_log_value(const TxnTransit& transit);

// nullopt for a key version this coordinator does not know (Kafka's
// UnknownKey, skipped); throws wire::DecodeError when malformed.
std::optional<std::string> parse_txn_log_key(wire::ByteSpan key);
// Throws wire::DecodeError for a malformed value, an unknown version or state.
TxnTransit parse_txn_log_value(wire::ByteSpan value);

}  // namespace weir::coordinator::txn
