#pragma once
// Kafka's transaction coordinator state machine (TransactionCoordinator,
// TransactionStateManager and TransactionMetadata) without I/O: requests and
// the clock in, answers, log writes and marker jobs out.
//
// Every change goes through the log as in Kafka: a request that changes a
// transactional id prepares its next state (`pending`, so concurrent requests
// answer CONCURRENT_TRANSACTIONS) and returns a TxnWrite; the caller appends
// it to __transaction_state and reports back with `write_done`, which applies
// it and says what to answer. Committing or aborting writes PrepareCommit /
// PrepareAbort, then hands out a MarkerJob (WriteTxnMarkers to every partition
// of the transaction); once the markers are written, `markers_done` gives the
// CompleteCommit / CompleteAbort write.
//
// Transaction version 0/1 semantics (Kafka 3.x clients): EndTxn keeps the
// producer epoch; only InitProducerId and fencing bump it.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "coordinator/txn/types.h"
#include "protocol/errors.h"

namespace weir::coordinator::txn {

struct TxnConfig {
    std::int32_t max_timeout_ms = 900000;       // transaction.max.timeout.ms
    std::int64_t id_expiration_ms = 604800000;  // transactional.id.expiration.ms
};

struct ProducerIdAndEpoch {
    std::int64_t producer_id = kNoProducerId;
    std::int16_t epoch = kNoProducerEpoch;
};

enum class WriteKind : std::uint8_t {
    init_producer_id,  // Empty with a bumped epoch or a new producer id
    epoch_fence,       // PrepareAbort of an ongoing transaction, epoch bumped (InitProducerId or timeout)
    add_partitions,    // Ongoing
    end_txn,           // PrepareCommit / PrepareAbort asked by the producer
    complete,          // CompleteCommit / CompleteAbort once the markers are written
    expire,            // tombstone of an expired transactional id
};

// A record to append to `partition` of __transaction_state (a tombstone for
// `expire`), written while this broker led it at `coordinator_epoch`.
struct TxnWrite {
    WriteKind kind = WriteKind::init_producer_id;
    std::string transactional_id;
    std::int32_t partition = 0;
    std::int32_t coordinator_epoch = 0;
    TxnTransit transit;
};

// WriteTxnMarkers for every partition of a transaction.
struct MarkerJob {
    std::string transactional_id;
    std::int32_t partition = 0;  // of __transaction_state
    std::int32_t coordinator_epoch = 0;
    std::int64_t producer_id = kNoProducerId;
    std::int16_t producer_epoch = kNoProducerEpoch;
    bool commit = false;
    PartitionSet partitions;
    TxnTransit complete;  // the CompleteCommit / CompleteAbort to write afterwards
};

// A request's next step: an answer now (`write` empty), a write to make, or a
// new producer id needed first (ask the producer-id manager, then call again
// with it).
struct Step {
    ErrorCode error = ErrorCode::none;
    std::int64_t producer_id = kNoProducerId;
    std::int16_t producer_epoch = kNoProducerEpoch;
    std::optional<TxnWrite> write;
    bool need_producer_id = false;
};

// The answer to the request that made a write, and what follows it.
struct WriteOutcome {
    ErrorCode error = ErrorCode::none;
    std::int64_t producer_id = kNoProducerId;
    std::int16_t producer_epoch = kNoProducerEpoch;
    std::optional<MarkerJob> markers;
    bool retry = false;  // a completion write to append again (COORDINATOR_NOT_AVAILABLE)
};

struct DescribedTxn {
    ErrorCode error = ErrorCode::none;
    std::string state;
    std::int64_t producer_id = kNoProducerId;
    std::int16_t producer_epoch = kNoProducerEpoch;
    std::int32_t timeout_ms = 0;
    TimeMs start_timestamp = -1;
    PartitionSet partitions;
};

struct ListedTxn {
    std::string transactional_id;
    std::int64_t producer_id = kNoProducerId;
    std::string state;
};

struct ListFilters {
    std::vector<std::string> states;
    std::vector<std::int64_t> producer_ids;
    std::int64_t min_duration_ms = -1;  // only transactions running longer than this
};

struct ListResult {
    std::vector<std::string> unknown_states;
    std::vector<ListedTxn> transactions;
};

class TxnManager {
public:
    using Partitioner = std::function<std::int32_t(std::string_view transactional_id)>;

    TxnManager(TxnConfig config, Partitioner partitioner);

    // ---- ownership of __transaction_state partitions ----
    // `partition` was replayed: `latest` holds the last value of every live
    // key. Transactions found in PrepareCommit / PrepareAbort get their markers
    // sent again (returned).
    std::vector<MarkerJob> load(TimeMs now, std::int32_t partition, std::int32_t coordinator_epoch,
                                const std::map<std::string, TxnTransit>& latest);
    void unload(std::int32_t partition);
    [[nodiscard]] bool owns(std::int32_t partition) const { return partitions_.contains(partition); }
    [[nodiscard]] std::int32_t partition_for(std::string_view transactional_id) const {
        return partitioner_(transactional_id);
    }

    // ---- requests ----
    // `new_producer_id`: one the producer-id manager handed out after a Step
    // with need_producer_id.
    Step init_producer_id(TimeMs now, const std::string& transactional_id, std::int32_t timeout_ms,
                          std::optional<ProducerIdAndEpoch> expected, std::optional<std::int64_t> new_producer_id);
    Step add_partitions(TimeMs now, const std::string& transactional_id, std::int64_t producer_id,
                        std::int16_t producer_epoch, const PartitionSet& partitions);
    // AddPartitionsToTxn v4+ with verifyOnly: which partitions are in the transaction.
    std::map<TopicPartition, ErrorCode> verify_partitions(const std::string& transactional_id, std::int64_t producer_id,
                                                          std::int16_t producer_epoch,
                                                          const PartitionSet& partitions) const;
    Step end_txn(TimeMs now, const std::string& transactional_id, std::int64_t producer_id, std::int16_t producer_epoch,
                 bool commit);
    [[nodiscard]] DescribedTxn describe(const std::string& transactional_id) const;
    [[nodiscard]] ListResult list(TimeMs now, const ListFilters& filters) const;

    // ---- the log and the markers ----
    // `write` was appended (error none) or failed with the append's error.
    WriteOutcome write_done(TimeMs now, const TxnWrite& write, ErrorCode append_error);
    // The marker of `tp` is written (or need not be: its topic is gone).
    void marker_done(const MarkerJob& job, const TopicPartition& tp);
    // False once `job` is not this coordinator's to finish (the partition
    // moved, the transactional id changed hands or completed).
    [[nodiscard]] bool job_current(const MarkerJob& job) const;
    // Every marker is written: the completion to append (nullopt if this
    // coordinator lost the transaction meanwhile).
    std::optional<TxnWrite> markers_done(const MarkerJob& job);

    // ---- housekeeping ----
    // Ongoing transactions past their timeout, fenced and aborted (epoch-fence writes).
    std::vector<TxnWrite> abort_timed_out(TimeMs now);
    // Transactional ids idle past transactional.id.expiration.ms (tombstone writes).
    std::vector<TxnWrite> expire(TimeMs now);

    // ---- observability and tests ----
    [[nodiscard]] const TxnMetadata* find(const std::string& transactional_id) const;
    [[nodiscard]] std::size_t size() const;

private:
    struct Partition {
        std::int32_t coordinator_epoch = 0;
        std::map<std::string, TxnMetadata> txns;
    };

    // The metadata of a transactional id of a loaded partition, else the error to answer.
    struct Lookup {
        ErrorCode error = ErrorCode::none;
        Partition* partition = nullptr;
        TxnMetadata* txn = nullptr;
    };
    Lookup lookup(const std::string& transactional_id);
    [[nodiscard]] bool valid_timeout(std::int32_t timeout_ms) const;

    TxnWrite prepare(TxnMetadata& txn, const Partition& partition, WriteKind kind, TxnTransit transit);
    TxnTransit transit_of(const TxnMetadata& txn) const;
    Step fence_and_abort(TimeMs now, TxnMetadata& txn, const Partition& partition);
    WriteOutcome prepare_markers(TimeMs now, const TxnWrite& write, TxnMetadata& txn, bool commit);
    static void apply(TxnMetadata& txn, const TxnTransit& transit);

    TxnConfig config_;
    Partitioner partitioner_;
    std::map<std::int32_t, Partition> partitions_;
};

// Error codes of an append to __transaction_state as the coordinator answers
// them (TransactionStateManager.appendTransactionToLog).
ErrorCode map_append_error(ErrorCode error);

}  // namespace weir::coordinator::txn
