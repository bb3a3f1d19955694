#pragma once
// The idempotent producers of one partition (Kafka's ProducerStateManager and
// ProducerAppendInfo): per producer id its epoch, the sequence numbers and
// offsets of its last five batches and its last timestamp. A leader checks
// every batch of a producer against it before appending: a retry of one of
// those five batches is a duplicate, answered with the offsets it got the
// first time; a gap or an older epoch is refused. Replicas and recovery apply
// batches without the sequence checks, so a new leader dedups as the old one
// did. No I/O here: the partition snapshots it to files and replays its log
// into it.
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "broker/storage/producer_snapshot_file.h"
#include "protocol/errors.h"
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

// Who is appending: a client (a leader's produce: every check), a coordinator
// writing its own transactional records (epochs checked, no sequence numbers),
// or the replication and recovery paths (data the leader accepted: an older
// epoch is only logged, sequences are not checked).
enum class AppendOrigin { client, coordinator, replication };

// The producer state an append would leave, computed before it is written.
struct ProducerAppend {
    ErrorCode error = ErrorCode::none;
    std::string error_message;
    // A client's retry of a batch already in the log: nothing is appended
    // and the client gets these offsets.
    std::optional<ProducerBatch> duplicate;
    // The entries of the producers this append touches, as they become.
    std::map<std::int64_t, ProducerEntry> updated;
};

class ProducerStateManager {
public:
    explicit ProducerStateManager(TopicPartition tp) : tp_(std::move(tp)) {}

    // Checks `batches` (headers carrying the offsets the log gives them, in
    // order) as Kafka's UnifiedLog.analyzeAndValidateProducerState does.
    [[nodiscard]] ProducerAppend prepare(std::span<const records::BatchHeader> batches, AppendOrigin origin) const;
    // Once the batches are in the log.
    void commit(ProducerAppend append);
    // prepare + commit, for data that is in the log already (a follower's
    // append, recovery); problems are logged, never refused.
    void apply(std::span<const records::BatchHeader> batches);

    [[nodiscard]] const ProducerEntry* find(std::int64_t producer_id) const;
    [[nodiscard]] const std::map<std::int64_t, ProducerEntry>& producers() const { return producers_; }
    [[nodiscard]] std::size_t size() const { return producers_.size(); }

    // producer.id.expiration.ms: producers without an open transaction whose
    // last batch is that old go (Kafka's removeExpiredProducers).
    void remove_expired(std::int64_t now_ms, std::int64_t expiration_ms);
    void clear() { producers_.clear(); }

    // Kafka's snapshot keeps each producer's last batch only.
    [[nodiscard]] std::vector<storage::ProducerSnapshotEntry> to_snapshot() const;
    // Replaces the state (expired producers go at the next remove_expired).
    void load_snapshot(const std::vector<storage::ProducerSnapshotEntry>& entries);

private:
    TopicPartition tp_;
    std::map<std::int64_t, ProducerEntry> producers_;
};

}  // namespace weir::partitions
