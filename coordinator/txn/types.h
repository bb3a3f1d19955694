#pragma once
// The transaction coordinator's vocabulary: Kafka's TransactionState (with
// its record ids and names) and TransactionMetadata.
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "protocol/topic_partition.h"

namespace weir::coordinator::txn {

// Milliseconds since the epoch.
using TimeMs = std::int64_t;

// RecordBatch.NO_PRODUCER_ID / NO_PRODUCER_EPOCH.
inline constexpr std::int64_t kNoProducerId = -1;
inline constexpr std::int16_t kNoProducerEpoch = -1;

// Values are the TransactionStatus ids of the transaction log.
enum class TxnState : std::int8_t {
    empty = 0,
    ongoing = 1,
    prepare_commit = 2,
    prepare_abort = 3,
    complete_commit = 4,
    complete_abort = 5,
    dead = 6,
    prepare_epoch_fence = 7,
};

// Kafka's names ("Empty", "PrepareCommit", ...), as DescribeTransactions and
// ListTransactions show them.
std::string_view state_name(TxnState state);
std::optional<TxnState> state_from_name(std::string_view name);
// nullopt for an id Kafka does not define.
std::optional<TxnState> state_from_id(std::int8_t id);

// Kafka's TransactionState.validPreviousStates.
bool valid_transition(TxnState from, TxnState to);
// Kafka's TransactionState.isExpirationAllowed.
bool expiration_allowed(TxnState state);

// Kafka does not let a producer use Short.MaxValue, so that the coordinator
// can always fence it with one more bump.
inline bool epoch_exhausted(std::int16_t epoch) { return epoch >= INT16_MAX - 1; }

using PartitionSet = std::set<TopicPartition>;

// One state a transactional id moves to, as the transaction log stores it
// (Kafka's TxnTransitMetadata).
struct TxnTransit {
    std::int64_t producer_id = kNoProducerId;
    std::int64_t previous_producer_id = kNoProducerId;
    std::int16_t producer_epoch = kNoProducerEpoch;
    std::int16_t last_producer_epoch = kNoProducerEpoch;
    std::int32_t timeout_ms = 0;
    TxnState state = TxnState::empty;
    PartitionSet partitions;
    TimeMs start_timestamp = -1;
    TimeMs last_update_timestamp = -1;
    bool operator==(const TxnTransit&) const = default;
};

// What the coordinator knows of a transactional id (Kafka's
// TransactionMetadata); `pending` is the state a write in flight moves it to.
struct TxnMetadata {
    std::string transactional_id;
    std::int64_t producer_id = kNoProducerId;
    std::int64_t previous_producer_id = kNoProducerId;
    std::int16_t producer_epoch = kNoProducerEpoch;
    std::int16_t last_producer_epoch = kNoProducerEpoch;
    std::int32_t timeout_ms = 0;
    TxnState state = TxnState::empty;
    PartitionSet partitions;
    TimeMs start_timestamp = -1;
    TimeMs last_update_timestamp = -1;
    std::optional<TxnState> pending;
    // An epoch fence whose write failed already bumped the epoch in memory:
    // the next fence must not bump it again.
    bool failed_epoch_fence = false;
};

}  // namespace weir::coordinator::txn
