#pragma once
// The idempotent and transactional producers of one partition (Kafka's
// ProducerStateManager and ProducerAppendInfo): per producer id its epoch, the
// sequence numbers and offsets of its last five batches, its last timestamp,
// the coordinator epoch of its last marker and the first offset of its open
// transaction. A leader checks every batch of a producer against it before
// appending: a retry of one of those five batches is a duplicate, answered
// with the offsets it got the first time; a gap or an older epoch is refused.
// Replicas and recovery apply batches without refusing, so a new leader
// dedups as the old one did.
//
// Transactions: a producer's first transactional batch opens its transaction
// here (Kafka's ongoingTxns); its COMMIT or ABORT marker ends it, and the
// transaction stays unstable until the high watermark passes the marker
// (unreplicatedTxns), since a new leader might not have the marker. The
// first offset of the earliest unstable transaction bounds the last stable
// offset. No I/O here: the partition snapshots it to files, replays its log
// into it and writes the aborted transactions it reports to the log's
// transaction index.
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "broker/storage/producer_snapshot_file.h"
#include "protocol/errors.h"
#include "protocol/records/control_record.h"
#include "protocol/records/record_batch.h"
#include "protocol/topic_partition.h"

namespace weir::partitions {

// RecordBatch.NO_PRODUCER_ID, NO_PRODUCER_EPOCH, NO_SEQUENCE.
inline constexpr std::int64_t kNoProducerId = -1;
inline constexpr std::int16_t kNoProducerEpoch = -1;
inline constexpr std::int32_t kNoSequence = -1;
// ProducerStateEntry.NUM_BATCHES_TO_RETAIN: librdkafka and the Java client
// keep at most five requests in flight per partition with idempotence.
inline constexpr std::size_t kProducerBatchesRetained = 5;

// DefaultRecordBatch.incrementSequence / decrementSequence: sequences wrap
// from Integer.MAX_VALUE to 0.
std::int32_t increment_sequence(std::int32_t sequence, std::int32_t increment);
std::int32_t decrement_sequence(std::int32_t sequence, std::int32_t decrement);
// A batch's last sequence (NO_SEQUENCE if it has none).
std::int32_t last_sequence(const records::BatchHeader& batch);

// One batch a producer wrote (Kafka's BatchMetadata).
struct ProducerBatch {
    std::int32_t first_sequence = kNoSequence;
    std::int32_t last_sequence = kNoSequence;
    std::int64_t first_offset = -1;
    std::int64_t last_offset = -1;
    std::int64_t timestamp = -1;
    bool operator==(const ProducerBatch&) const = default;
};

struct ProducerEntry {
    std::int16_t epoch = kNoProducerEpoch;
    std::deque<ProducerBatch> batches;  // oldest first, at most kProducerBatchesRetained
    std::int64_t last_timestamp = -1;
    std::int32_t coordinator_epoch = -1;
    std::int64_t current_txn_first_offset = -1;

    [[nodiscard]] std::int32_t last_sequence() const {
        return batches.empty() ? kNoSequence : batches.back().last_sequence;
    }
    // Kafka's ProducerStateEntry.maybeUpdateProducerEpoch: a new epoch starts over.
    void set_epoch(std::int16_t next);
    void add_batch(std::int16_t batch_epoch, const ProducerBatch& batch);
    bool operator==(const ProducerEntry&) const = default;
};

// Who is appending (Kafka's AppendOrigin): a client (a leader's produce:
// every check), a coordinator (transaction markers and the group
// coordinator's own writes: epochs are checked, sequences and duplicates are
// not), or the replication and recovery paths (data the leader accepted:
// problems are only logged).
enum class AppendOrigin { client, coordinator, replication };

// A batch as the producer state reads it: its header, with the offsets the
// log gives it, and for a control batch the marker it holds (none: an empty
// control batch, which ends nothing).
struct ProducerBatchView {
    records::BatchHeader header;
    std::optional<records::EndTxnMarker> marker;
};

// The marker of a control batch (`batch` its bytes); a marker that does not
// decode is logged and treated as absent.
std::optional<records::EndTxnMarker> end_txn_marker_of(const records::BatchHeader& header,
                                                       std::span<const std::uint8_t> batch);

// A transaction a marker ended (Kafka's CompletedTxn): its first offset and
// the marker's offset.
struct CompletedTxn {
    std::int64_t producer_id = -1;
    std::int64_t first_offset = -1;
    std::int64_t last_offset = -1;
    bool aborted = false;
    // What read_committed consumers may read up to once it is decided (the
    // first offset of the next open transaction of another producer, else
    // the marker's next offset): the transaction index records it so that a
    // reader knows where to stop collecting. Set by commit().
    std::int64_t last_stable_offset = -1;
    bool operator==(const CompletedTxn&) const = default;
};

// The producer state an append would leave, computed before it is written.
struct ProducerAppend {
    ErrorCode error = ErrorCode::none;
    std::string error_message;
    // A client's retry of a batch already in the log: nothing is appended
    // and the client gets these offsets.
    std::optional<ProducerBatch> duplicate;
    // The entries of the producers this append touches, as they become.
    std::map<std::int64_t, ProducerEntry> updated;
    // Transactions this append opens (producer id, first offset) and ends.
    std::vector<std::pair<std::int64_t, std::int64_t>> started;
    std::vector<CompletedTxn> completed;
};

class ProducerStateManager {
public:
    explicit ProducerStateManager(TopicPartition tp) : tp_(std::move(tp)) {}

    // Checks `batches` (headers carrying the offsets the log gives them, in
    // order) as Kafka's UnifiedLog.analyzeAndValidateProducerState does.
    [[nodiscard]] ProducerAppend prepare(std::span<const ProducerBatchView> batches, AppendOrigin origin) const;
    // Headers alone: control batches among them end nothing.
    [[nodiscard]] ProducerAppend prepare(std::span<const records::BatchHeader> batches, AppendOrigin origin) const;
    // Once the batches are in the log: the transactions they ended, in
    // order, with their last stable offsets.
    std::vector<CompletedTxn> commit(ProducerAppend append);
    // prepare + commit, for data that is in the log already (a follower's
    // append, recovery); problems are logged, never refused.
    std::vector<CompletedTxn> apply(std::span<const ProducerBatchView> batches);
    std::vector<CompletedTxn> apply(std::span<const records::BatchHeader> batches);

    // The first offset of the earliest transaction that is open, or decided
    // with its marker not yet below the high watermark (Kafka's
    // firstUnstableOffset); none when every transaction is stable.
    [[nodiscard]] std::optional<std::int64_t> first_unstable_offset() const;
    // The earliest open transaction's first offset (firstUndecidedOffset).
    [[nodiscard]] std::optional<std::int64_t> first_undecided_offset() const;
    // Decided transactions whose marker is below `offset` become stable
    // (the high watermark passed them, or the log start did).
    void on_high_watermark(std::int64_t offset);
    // Open transactions by first offset -> producer id.
    [[nodiscard]] const std::map<std::int64_t, std::int64_t>& ongoing_transactions() const { return ongoing_txns_; }

    [[nodiscard]] const ProducerEntry* find(std::int64_t producer_id) const;
    [[nodiscard]] const std::map<std::int64_t, ProducerEntry>& producers() const { return producers_; }
    [[nodiscard]] std::size_t size() const { return producers_.size(); }

    // producer.id.expiration.ms: producers without an open transaction whose
    // last batch is that old go (Kafka's removeExpiredProducers).
    void remove_expired(std::int64_t now_ms, std::int64_t expiration_ms);
    void clear();

    // Kafka's snapshot keeps each producer's last batch only.
    [[nodiscard]] std::vector<storage::ProducerSnapshotEntry> to_snapshot() const;
    // Replaces the state (expired producers go at the next remove_expired).
    void load_snapshot(const std::vector<storage::ProducerSnapshotEntry>& entries);

private:
    // The first offset of the next open transaction of another producer, or
    // the marker's next offset (Kafka's lastStableOffset(completedTxn)).
    [[nodiscard]] std::int64_t last_stable_offset_of(const CompletedTxn& txn) const;

    TopicPartition tp_;
    std::map<std::int64_t, ProducerEntry> producers_;
    std::map<std::int64_t, std::int64_t> ongoing_txns_;
    // Decided, marker not yet below the high watermark: first offset ->
    // (producer id, marker offset).
    std::map<std::int64_t, std::pair<std::int64_t, std::int64_t>> unreplicated_txns_;
};

}  // namespace weir::partitions
