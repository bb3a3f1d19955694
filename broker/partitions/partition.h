#pragma once
// One partition this broker hosts (Kafka's Partition): its log, who leads it
// in which epoch, the assigned replicas and the ISR, the followers'
// positions, the high watermark and last stable offset, and the requests
// parked on them. Everything above storage reaches a partition's data
// through here: the handlers, the group coordinator and the ReplicaManager
// read, append and wait on a Partition, never on its log.
//
// The high watermark lives here, not in storage: a leader advances it to the
// smallest log end among the ISR (on a single node, its own log end at every
// append), acks=all waiters complete as it passes their offset, and storage
// learns it only where it must respect it (reads, retention, the cleaner).
// Runs on the broker's single I/O thread.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "broker/partitions/produce_validation.h"
#include "broker/partitions/producer_state.h"
#include "broker/partitions/waiters.h"
#include "broker/storage/log_config.h"
#include "protocol/errors.h"
#include "protocol/topic_partition.h"
#include "protocol/wire/reader.h"
#include "protocol/wire/records_data.h"

namespace weir::storage {
class PartitionLog;
}

namespace weir::partitions {

// The topic settings a partition's log applies (segments, retention, cleanup
// policy, timestamp type).
using LogConfig = storage::LogConfig;

// RecordBatch.NO_PARTITION_LEADER_EPOCH: a request that names no epoch.
inline constexpr std::int32_t kNoLeaderEpoch = -1;

// Kafka's LeaderAndIsr partition state, as the metadata assigns it.
struct LeaderAndIsr {
    std::int32_t leader = -1;
    std::int32_t leader_epoch = 0;
    std::vector<std::int32_t> replicas;
    std::vector<std::int32_t> isr;
};

// How far a read may see (Kafka's FetchIsolation).
enum class FetchIsolation {
    log_end,         // replicas, and the coordinator replaying its own log
    high_watermark,  // consumers, read_uncommitted
    txn_committed,   // consumers, read_committed: up to the last stable offset
};

struct ReadOptions {
    std::size_t max_bytes = 1024 * 1024;
    bool min_one_batch = true;  // KIP-74: the first batch whole, even past max_bytes
    FetchIsolation isolation = FetchIsolation::high_watermark;
    std::int32_t current_leader_epoch = kNoLeaderEpoch;  // the reader's view, checked as Kafka does
    bool fetch_only_from_leader = true;
    bool zero_copy = false;  // records may stay in their segment file (storage::ReadOptions)
};

// A transaction aborted in the range a read_committed read returned: the
// consumer drops that producer's records from `first_offset` up to its
// ABORT marker (Fetch's AbortedTransaction).
struct AbortedTransaction {
    std::int64_t producer_id = -1;
    std::int64_t first_offset = -1;
    bool operator==(const AbortedTransaction&) const = default;
};

struct ReadResult {
    ErrorCode error = ErrorCode::none;
    wire::RecordsData records;  // whole batches, possibly none
    // txn_committed reads only (Kafka sends null otherwise): the aborted
    // transactions overlapping `records`, oldest first.
    std::optional<std::vector<AbortedTransaction>> aborted_transactions;
    // -1 when the partition refused the read (stopped, not leader, epoch).
    std::int64_t high_watermark = -1;
    std::int64_t last_stable_offset = -1;
    std::int64_t log_start_offset = -1;
    std::int64_t log_end_offset = -1;
};

struct AppendResult {
    ErrorCode error = ErrorCode::none;
    std::string error_message;
    std::int64_t base_offset = -1;
    std::int64_t last_offset = -1;
    std::int64_t log_append_time = -1;  // set for LogAppendTime topics
    std::int64_t log_start_offset = -1;
};

// ListOffsets' special timestamps (Kafka's ListOffsetsRequest).
inline constexpr std::int64_t kLatestTimestamp = -1;
inline constexpr std::int64_t kEarliestTimestamp = -2;
inline constexpr std::int64_t kMaxTimestamp = -3;  // KIP-734
inline constexpr std::int64_t kEarliestLocalTimestamp = -4;
inline constexpr std::int64_t kLatestTieredTimestamp = -5;

struct TimestampAndOffset {
    std::int64_t offset = -1;
    std::int64_t timestamp = -1;
    std::int32_t leader_epoch = -1;
    bool operator==(const TimestampAndOffset&) const = default;
};

struct OffsetForTimestamp {
    ErrorCode error = ErrorCode::none;
    std::optional<TimestampAndOffset> found;  // none: offset and timestamp -1
};

struct LegacyOffsets {
    ErrorCode error = ErrorCode::none;
    std::vector<std::int64_t> offsets;  // newest first
};

struct EpochEndOffset {
    ErrorCode error = ErrorCode::none;
    std::int32_t leader_epoch = -1;
    std::int64_t end_offset = -1;
};

// DeleteRecords' offset meaning "up to the high watermark".
inline constexpr std::int64_t kDeleteUpToHighWatermark = -1;

struct DeleteRecordsResult {
    ErrorCode error = ErrorCode::none;
    std::int64_t low_watermark = -1;  // the log start offset after the deletion
};

// When an append failure was last logged, and how many since were not.
struct StorageErrorLog {
    std::chrono::steady_clock::time_point last{};
    std::uint64_t suppressed = 0;
};

class Partition : public std::enable_shared_from_this<Partition> {
public:
    // Keeps a change listener registered; may outlive the partition.
    class Subscription {
    public:
        Subscription() = default;
        Subscription(Subscription&& other) noexcept;
        Subscription& operator=(Subscription&& other) noexcept;
        ~Subscription();
        // The partition listened to, unless gone.
        [[nodiscard]] std::shared_ptr<Partition> partition() const { return partition_.lock(); }

    private:
        friend class Partition;
        Subscription(std::weak_ptr<Partition> partition, ChangeListeners::Id id);
        void reset();

        std::weak_ptr<Partition> partition_;
        ChangeListeners::Id id_ = 0;
    };

    // Owned through shared_ptr (waiters keep their partition alive). No
    // leader until make_leader() or make_follower().
    Partition(TopicPartition tp, std::int32_t local_broker_id, std::shared_ptr<storage::PartitionLog> log,
              boost::asio::any_io_executor executor);
    Partition(const Partition&) = delete;
    Partition& operator=(const Partition&) = delete;
    ~Partition();

    [[nodiscard]] const TopicPartition& topic_partition() const { return tp_; }
    [[nodiscard]] const LogConfig& config() const;
    // Where the log lives on disk (tools, tests).
    [[nodiscard]] const std::filesystem::path& dir() const;

    // ---- leadership (Kafka's makeLeader / makeFollower / StopReplica) ----
    // A state of an older epoch is refused (STALE_CONTROLLER_EPOCH); the same
    // epoch updates the replicas and ISR. A new epoch is stamped on the
    // batches appended from now on and starts at the log end in the epoch
    // history OffsetForLeaderEpoch answers from.
    ErrorCode make_leader(const LeaderAndIsr& state);
    // Stops leading (acks=all waiters fail with NOT_LEADER_OR_FOLLOWER); the
    // replica fetcher then truncates and appends what the leader has.
    ErrorCode make_follower(const LeaderAndIsr& state);
    // For good (deleted or no longer hosted): waiters wake with `reason`, and
    // every later request gets it.
    void stop(ErrorCode reason);
    [[nodiscard]] bool is_leader() const { return is_leader_; }
    [[nodiscard]] bool stopped() const { return stopped_; }
    // Its log dir's disk failed (see storage::LogDirHealth).
    [[nodiscard]] bool offline() const;
    [[nodiscard]] std::int32_t leader() const { return leader_; }
    [[nodiscard]] std::int32_t leader_epoch() const { return leader_epoch_; }
    [[nodiscard]] const std::vector<std::int32_t>& replicas() const { return replicas_; }
    [[nodiscard]] const std::vector<std::int32_t>& isr() const { return isr_; }
    // Kafka's checkCurrentLeaderEpoch: FENCED_LEADER_EPOCH if the caller's
    // epoch is older, UNKNOWN_LEADER_EPOCH if newer; kNoLeaderEpoch passes.
    [[nodiscard]] ErrorCode check_leader_epoch(std::int32_t current_leader_epoch) const;
    // Kafka's localLogWithEpochOrThrow: stopped, then the epoch, then leadership.
    [[nodiscard]] ErrorCode check_leader(std::int32_t current_leader_epoch, bool require_leader) const;

    // ---- offsets ----
    [[nodiscard]] std::int64_t log_start_offset() const;
    [[nodiscard]] std::int64_t log_end_offset() const;
    [[nodiscard]] std::int64_t high_watermark() const { return high_watermark_; }
    // Read_committed consumers see up to here: the first offset of the
    // earliest transaction that is open or whose marker the high watermark
    // has not passed, if below the high watermark (Kafka's firstUnstableOffset).
    [[nodiscard]] std::int64_t last_stable_offset() const;
    [[nodiscard]] std::vector<std::int64_t> segment_base_offsets() const;

    // A follower's log end as its fetch reports it; may advance the high
    // watermark. False if ignored (not leader, not an assigned follower).
    bool update_follower_position(std::int32_t replica, std::int64_t log_end_offset,
                                  std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now());
    // Leader: the ISR this partition should have (Kafka's maybeShrinkIsr and
    // maybeExpandIsr), or nullopt when it is right or a change is already
    // proposed. Followers that have not caught up with the log end within
    // `max_lag` leave; `fetching`, the replica whose fetch this follows, joins
    // if its log end reached the high watermark (and this epoch's start). As
    // in Kafka, only a fetch adds a replica: a dead follower's last position
    // still reaches the high watermark while nothing is produced, and a
    // periodic pass would bring it back at once. Never removes the leader.
    // The ISR changes only once the metadata says so (make_leader with the
    // same epoch), so a proposal that fails changes nothing.
    std::optional<std::vector<std::int32_t>> isr_change(std::chrono::steady_clock::time_point now,
                                                        std::chrono::milliseconds max_lag,
                                                        std::optional<std::int32_t> fetching = std::nullopt);

    // ---- follower ----
    // Appends the leader's batches as they are (offsets and epochs kept) and
    // learns their epochs. NOT_LEADER_OR_FOLLOWER if this replica leads.
    AppendResult append_as_follower(std::span<const std::uint8_t> batches);
    // The leader's high watermark, as far as this log reaches.
    void follow_high_watermark(std::int64_t leader_high_watermark);
    // The high watermark this broker checkpointed before it restarted
    // (replication-offset-checkpoint), as far as this log reaches: where a
    // replica starts instead of the log start, as Kafka's does, so that a
    // leader elected before its followers fetch does not fall back below
    // what consumers already read.
    void restore_high_watermark(std::int64_t checkpointed);
    // The leader's log start offset (retention, DeleteRecords), when above ours.
    void follow_log_start_offset(std::int64_t leader_log_start_offset);
    // Removes everything from `offset` on (divergence from the new leader).
    void truncate_to(std::int64_t offset);
    // The latest epoch this log holds data of, if any (OffsetForLeaderEpoch's
    // question to the leader).
    [[nodiscard]] std::optional<std::int32_t> latest_epoch() const;

    // ---- writes and reads ----
    // Appends validated v2 batches as leader (offsets and epoch rewritten in
    // place). On a single node the high watermark follows at once. Batches
    // of idempotent producers are checked against the producer state first;
    // a retried batch is answered with the offsets it got the first time and
    // not written again.
    // `origin` coordinator: the group coordinator's own transactional
    // writes (epochs checked, sequences and duplicates not, as Kafka's
    // AppendOrigin.COORDINATOR).
    AppendResult append(std::span<std::uint8_t> batches, AppendOrigin origin = AppendOrigin::client);
    // The same with the batches' headers parsed already (by validation).
    AppendResult append(std::span<std::uint8_t> batches, std::span<const records::BatchHeader> headers,
                        AppendOrigin origin);
    // Kafka's Partition.appendRecordsToLeader for a client's Produce: with
    // acks=all, NOT_ENOUGH_REPLICAS below min.insync.replicas before anything
    // else; then LogValidator's checks (validate_produced_records) and append().
    ProduceResult append_records_as_leader(wire::ByteSpan records, const ProduceLimits& limits);
    // WriteTxnMarkers, as leader: a control batch ending `producer_id`'s
    // transaction (COMMIT if `commit`, else ABORT), through the producer
    // checks (an older producer epoch: INVALID_PRODUCER_EPOCH; an older
    // coordinator epoch: TRANSACTION_COORDINATOR_FENCED). An ABORT that ends
    // a transaction with data here enters the transaction index. Kafka
    // appends markers with acks=all: NOT_ENOUGH_REPLICAS below
    // min.insync.replicas. Replicated as any batch:
    // wait_for_high_watermark(last_offset + 1).
    AppendResult append_txn_marker(std::int64_t producer_id, std::int16_t producer_epoch,
                                   std::int32_t coordinator_epoch, bool commit);
    // acks=all: resolves with none once the high watermark reaches `offset`,
    // REQUEST_TIMED_OUT at `deadline`, NOT_LEADER_OR_FOLLOWER if leadership
    // is lost, the stop reason if the partition stops, and
    // NOT_ENOUGH_REPLICAS_AFTER_APPEND if the ISR shrank below
    // min.insync.replicas meanwhile (Kafka's DelayedProduce). Does not
    // suspend when the high watermark is there already.
    boost::asio::awaitable<ErrorCode> wait_for_high_watermark(std::int64_t offset,
                                                              std::chrono::steady_clock::time_point deadline);
    // Fails every parked acks=all waiter (shutdown) and wakes parked fetches.
    void abort_waiters(ErrorCode error);
    [[nodiscard]] ReadResult read(std::int64_t offset, const ReadOptions& options = {}) const;
    // `on_change` runs after every append, high watermark move, leadership
    // change and stop (parked fetches re-read then).
    [[nodiscard]] Subscription subscribe(std::function<void()> on_change);

    // ---- offset lookups (partition_offsets.cc) ----
    // ListOffsets v1+ (Kafka's fetchOffsetForTimestamp): `isolation` bounds
    // what counts as fetchable (log_end for replicas).
    [[nodiscard]] OffsetForTimestamp fetch_offset_for_timestamp(std::int64_t timestamp, FetchIsolation isolation,
                                                                std::int32_t current_leader_epoch,
                                                                bool fetch_only_from_leader) const;
    // ListOffsets v0: up to `max_num` segment-based offsets.
    [[nodiscard]] LegacyOffsets legacy_offsets_for_timestamp(std::int64_t timestamp, std::int32_t max_num,
                                                             bool from_consumer, bool fetch_only_from_leader) const;
    // OffsetForLeaderEpoch: the end offset of the largest epoch <= `leader_epoch`.
    [[nodiscard]] EpochEndOffset last_offset_for_leader_epoch(std::int32_t current_leader_epoch,
                                                              std::int32_t leader_epoch,
                                                              bool fetch_only_from_leader) const;
    // DeleteRecords (and the coordinator's compaction): moves the log start
    // offset up to `offset` (kDeleteUpToHighWatermark: the high watermark);
    // OFFSET_OUT_OF_RANGE beyond the high watermark.
    DeleteRecordsResult delete_records_before(std::int64_t offset);

    // ---- idempotent producers ----
    [[nodiscard]] const ProducerStateManager& producer_state() const { return producer_state_; }
    // producer.id.expiration.ms.
    void remove_expired_producers(std::int64_t now_ms, std::int64_t expiration_ms);
    // Clean shutdown: the producer state at the log end, so that the next
    // start-up reads it instead of the log. Not fsynced: the log manager's
    // shutdown, which must follow, syncs it with the logs.
    void write_producer_snapshot();

private:
    // append_records_as_leader before the log start offset of a failure is set.
    ProduceResult append_as_leader(wire::ByteSpan records, const ProduceLimits& limits);
    [[nodiscard]] std::int64_t fetchable_end(FetchIsolation isolation) const;
    // Kafka's min.insync.replicas check, for every acks=all path.
    [[nodiscard]] bool isr_below_min() const;
    // A replicated append still needs the ISR at min.insync.replicas (Kafka's DelayedProduce).
    [[nodiscard]] ErrorCode after_replication(ErrorCode error) const;
    // The smallest log end among the ISR; returns whether it moved.
    bool maybe_advance_high_watermark();
    void start_epoch(std::int32_t epoch);
    // Kafka's leader-epoch-checkpoint, rewritten when the history changes.
    void save_epochs();
    void set_state(const LeaderAndIsr& state);
    // The latest snapshot at or below the log end, then the log after it
    // (Kafka's loadProducerState); snapshots past the log end are deleted.
    void load_producer_state();
    void replay_producer_state(std::int64_t from);
    // Aborted ones enter the transaction index of the marker's segment.
    void record_completed_txns(const std::vector<CompletedTxn>& completed);
    // The producer batches of whole `batches` as the log holds them.
    static std::vector<ProducerBatchView> producer_batches(std::span<const std::uint8_t> batches);
    void take_producer_snapshot(std::int64_t offset, storage::Durability durability = storage::Durability::now);

    TopicPartition tp_;
    std::int32_t local_broker_id_;
    std::shared_ptr<storage::PartitionLog> log_;
    boost::asio::any_io_executor executor_;

    std::int32_t leader_ = -1;
    std::int32_t leader_epoch_ = -1;
    bool is_leader_ = false;
    bool stopped_ = false;
    ErrorCode stop_reason_ = ErrorCode::none;
    std::vector<std::int32_t> replicas_;
    std::vector<std::int32_t> isr_;
    // Followers' log ends as last reported in this epoch (unknown: absent),
    // and when each last had all of the leader's log.
    std::map<std::int32_t, std::int64_t> follower_positions_;
    std::map<std::int32_t, std::chrono::steady_clock::time_point> follower_caught_up_;
    // Per follower: the leader's log end and the time at its previous fetch.
    std::map<std::int32_t, std::pair<std::int64_t, std::chrono::steady_clock::time_point>> follower_last_fetch_;
    std::chrono::steady_clock::time_point leader_since_;
    // The ISR last proposed and not yet seen in the metadata.
    std::optional<std::vector<std::int32_t>> proposed_isr_;
    std::chrono::steady_clock::time_point proposed_at_;
    // (epoch, its first offset), oldest first: Kafka's leader epoch cache,
    // kept in the partition's leader-epoch-checkpoint; data older than any
    // entry (written before the file existed) counts as the first epoch's.
    std::vector<std::pair<std::int32_t, std::int64_t>> epoch_starts_;
    // No checkpoint yet: a reopened log's high watermark starts at its start
    // and moves up as a leader learns its ISR's positions (at once when the
    // ISR is this broker alone), or as a follower learns the leader's.
    StorageErrorLog storage_error_log_;
    std::int64_t high_watermark_ = 0;

    ProducerStateManager producer_state_;
    // Of the newest producer state snapshot written or loaded; -1: none.
    std::int64_t snapshot_offset_ = -1;

    HighWatermarkWaiters high_watermark_waiters_;
    ChangeListeners change_listeners_;
};

}  // namespace weir::partitions
