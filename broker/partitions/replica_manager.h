#pragma once
// The partitions this broker hosts (Kafka's ReplicaManager): looks them up,
// creates and removes them as the metadata assigns them, applies leadership
// changes, runs the produce path (validate, up-convert, append) and the read
// path (read, park fetches until data, an error or their deadline). Runs on
// the broker's single I/O thread.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "broker/partitions/partition.h"
#include "broker/partitions/produce_validation.h"
#include "broker/storage/checkpoint_file.h"
#include "protocol/errors.h"
#include "protocol/topic_partition.h"
#include "protocol/wire/reader.h"

namespace weir::storage {
class LogManager;
}

namespace weir::partitions {

// One partition of a fetch. A null partition did not resolve: the caller
// answers it, and the fetch returns at once, as Kafka's does on any error.
struct FetchPartition {
    std::shared_ptr<Partition> partition;
    std::int64_t fetch_offset = 0;
    std::int32_t max_bytes = 0;
    std::int32_t current_leader_epoch = kNoLeaderEpoch;
};

struct FetchParams {
    std::int32_t min_bytes = 0;
    std::int64_t max_bytes = 0;  // the whole response's (KIP-74)
    FetchIsolation isolation = FetchIsolation::high_watermark;
    // A follower's fetch (>= 0): its fetch offsets are its log ends.
    std::int32_t replica_id = -1;
    std::chrono::steady_clock::time_point deadline;
    // Records may stay in their segment files (wire::FileRegion): for
    // answers a connection sends itself.
    bool zero_copy = false;
    // A fetch session's own change signal (its partitions, read or not): a
    // parked fetch waits on it instead of on the partitions it reads, and
    // returns at its first wake so the caller can read again, with the
    // partitions that changed added.
    ChangeListeners* wake_on = nullptr;
};

struct FetchPartitionResult {
    ErrorCode error = ErrorCode::none;
    std::optional<wire::RecordsData> records;  // none: not read (an error, or the response was full)
    std::int64_t high_watermark = -1;
    std::int64_t last_stable_offset = -1;
    std::int64_t log_start_offset = -1;
    // txn_committed reads that read: the aborted transactions in `records`.
    std::optional<std::vector<AbortedTransaction>> aborted_transactions;
    // Nothing to read past the fetch offset (at the fetch's isolation) and no
    // error: the partition has nothing for this fetcher until it changes.
    bool at_end = false;
};

struct FetchOutcome {
    std::vector<FetchPartitionResult> partitions;  // in the order asked
    bool woken = false;                            // by FetchParams::wake_on: read again
};

struct LogDirPartition {
    std::int32_t partition = 0;
    std::int64_t size_bytes = 0;
    // The log's lag behind the partition's high watermark (a follower's),
    // never below 0; -1 for a log no partition hosts.
    std::int64_t offset_lag = -1;
};

struct LogDirDescription {
    std::filesystem::path dir;
    bool offline = false;  // its disk failed: nothing else is known
    // Every topic with a log in the dir; its partitions only if asked for
    // (Kafka groups before it filters).
    std::map<std::string, std::vector<LogDirPartition>> topics;
};

// Turns records read into what the fetcher gets (down-conversion for old
// fetch versions), in place; an error fails the partition.
using RecordsConverter = std::function<ErrorCode(wire::RecordsData& records)>;

class ReplicaManager {
public:
    using ConfigLookup = std::function<LogConfig(const std::string& topic)>;

    ReplicaManager(boost::asio::any_io_executor executor, storage::LogManager& logs, ConfigLookup config_for_topic,
                   std::int32_t local_broker_id);
    ReplicaManager(const ReplicaManager&) = delete;
    ReplicaManager& operator=(const ReplicaManager&) = delete;
    ~ReplicaManager();

    // A hosted partition, or nullptr.
    [[nodiscard]] std::shared_ptr<Partition> get(const TopicPartition& tp) const;
    // DescribeLogDirs (Kafka's ReplicaManager.describeLogDirs): every log
    // dir, with the partitions of `wanted` (null: all) that have a log there.
    [[nodiscard]] std::vector<LogDirDescription> describe_log_dirs(
        const std::optional<std::set<TopicPartition>>& wanted) const;

    // ---- metadata (Kafka's becomeLeaderOrFollower / stopReplicas) ----
    // A partition whose replicas include this broker is created (its log
    // too) if missing and leads or follows as `state` says; nullptr if this
    // broker does not host it. An older epoch leaves the partition as it is.
    std::shared_ptr<Partition> apply(const TopicPartition& tp, const LeaderAndIsr& state);
    // Stops the partition (its waiters wake with UNKNOWN_TOPIC_OR_PARTITION)
    // and deletes its log; false if not hosted.
    bool remove(const TopicPartition& tp);
    void remove_topic(const std::string& topic);
    void topic_config_changed(const std::string& topic);

    // ---- produce ----
    // Partition::append_records_as_leader on the partition hosted as `tp`
    // (UNKNOWN_TOPIC_OR_PARTITION if none). A handler that resolved the
    // partition already calls it there.
    ProduceResult produce(const TopicPartition& tp, wire::ByteSpan records, const ProduceLimits& limits);
    // WriteTxnMarkers on one partition: UNKNOWN_TOPIC_OR_PARTITION if not
    // hosted, else Partition::append_txn_marker. Does not wait: the caller
    // then waits for the high watermark to pass last_offset.
    AppendResult append_txn_marker(const TopicPartition& tp, std::int64_t producer_id, std::int16_t producer_epoch,
                                   std::int32_t coordinator_epoch, bool commit);
    // acks=all: none once the partition's high watermark reaches `offset`;
    // REQUEST_TIMED_OUT at `deadline`; the partition's error if it stops
    // leading or is gone.
    boost::asio::awaitable<ErrorCode> wait_for_high_watermark(std::shared_ptr<Partition> partition, std::int64_t offset,
                                                              std::chrono::steady_clock::time_point deadline);
    boost::asio::awaitable<ErrorCode> wait_for_high_watermark(TopicPartition tp, std::int64_t offset,
                                                              std::chrono::steady_clock::time_point deadline);

    // ---- read path (read_path.cc) ----
    // Reads every partition (budgeted as KIP-74 says) and, unless something
    // failed, min_bytes were read or the deadline passed, parks until a
    // partition changes and reads again (with FetchParams::wake_on: returns
    // woken instead). Results are in `partitions` order.
    boost::asio::awaitable<FetchOutcome> fetch(FetchParams params, std::vector<FetchPartition> partitions,
                                               RecordsConverter convert);
    // Resolves at `deadline`, or as soon as any of `partitions` changes or
    // `also` notifies.
    boost::asio::awaitable<void> wait_for_change(std::vector<std::shared_ptr<Partition>> partitions,
                                                 std::chrono::steady_clock::time_point deadline,
                                                 ChangeListeners* also = nullptr);

    // producer.id.expiration.ms, run every
    // producer.id.expiration.check.interval.ms.
    void remove_expired_producers(std::int64_t expiration_ms);
    // Clean shutdown: every partition's producer state snapshot at its log end.
    void write_producer_snapshots();
    // Kafka's replication-offset-checkpoint in every log dir: the high
    // watermarks of the partitions hosted there, every
    // replica.high.watermark.checkpoint.interval.ms and at shutdown. A
    // partition hosted after a restart starts from its entry. Written by the
    // log manager's syncer (LogManager::submit_write), not on this thread.
    void checkpoint_high_watermarks();

    // Shutdown: parked fetches wake and return, acks=all waiters fail with
    // REQUEST_TIMED_OUT, and nothing parks any more.
    void wake_all();
    // A log dir failed: acks=all produces and parked fetches of its
    // partitions end with KAFKA_STORAGE_ERROR (Kafka's DelayedProduce does)
    // instead of timing out, and the offline listeners are told.
    void log_dir_failed();
    // Called after a log dir fails (the coordinators resign the partitions
    // of theirs that were in it, as Kafka's handleLogDirFailure has them do).
    ChangeListeners::Id add_offline_listener(std::function<void()> listener) {
        return offline_listeners_.add(std::move(listener));
    }
    void remove_offline_listener(ChangeListeners::Id id) { offline_listeners_.remove(id); }

    // ---- replication (leaders) ----
    // How a leader asks for a new ISR (the metadata store writes it, fenced
    // by the leader epoch); the change takes effect when the metadata applies
    // it. Unset: ISRs never change (single node).
    using IsrProposer =
        std::function<void(const TopicPartition& tp, std::int32_t leader_epoch, std::vector<std::int32_t> isr)>;
    void set_isr_proposer(IsrProposer proposer, std::chrono::milliseconds replica_lag_max);
    // A follower's fetch at `fetch_offset` (its log end): may advance the high
    // watermark and bring the follower back into the ISR.
    void follower_fetched(Partition& partition, std::int32_t replica, std::int64_t fetch_offset);
    // Periodically: followers that fell behind for longer than
    // replica.lag.time.max.ms leave the ISR.
    void maintain_isrs();
    // Every hosted partition (the replica fetchers walk them).
    [[nodiscard]] std::vector<std::shared_ptr<Partition>> hosted() const;

private:
    ChangeListeners offline_listeners_;
    std::shared_ptr<Partition> get_or_create(const TopicPartition& tp);
    // `dir`'s checkpoint as found at start, read on first use.
    storage::OffsetCheckpoint& restored_high_watermarks(const std::filesystem::path& dir);

    boost::asio::any_io_executor executor_;
    storage::LogManager& logs_;
    ConfigLookup config_for_topic_;
    std::int32_t local_broker_id_;
    std::unordered_map<TopicPartition, std::shared_ptr<Partition>> partitions_;
    // The checkpoints found at start, by log dir, less the entries used:
    // written again for logs not hosted (yet), dropped with their logs.
    std::map<std::filesystem::path, storage::OffsetCheckpoint> restored_high_watermarks_;
    // What each dir's high watermark checkpoint holds, as last written here.
    std::map<std::filesystem::path, storage::OffsetCheckpoint> high_watermarks_written_;
    bool stopping_ = false;
    IsrProposer isr_proposer_;
    std::chrono::milliseconds replica_lag_max_{30000};
};

}  // namespace weir::partitions
