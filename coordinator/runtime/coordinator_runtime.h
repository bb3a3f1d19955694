#pragma once
// What every coordinator needs around its state machine (Kafka's
// CoordinatorRuntime): which partitions of its internal topic this broker
// leads, replaying a partition into the state machine when it starts leading
// it (COORDINATOR_LOAD_IN_PROGRESS meanwhile) and dropping it when it stops,
// appends that count once the high watermark covers them, compaction of the
// internal topic, and timers that stop with the coordinator.
//
// The state machine is a Shard: it sees records replayed in log order and
// hears when a partition finished loading or was lost. It decides what the
// records mean; the runtime only knows keys, values and offsets.
//
// Runs on the broker's single I/O thread.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker/common/task_gate.h"
#include "broker/config/topic_config.h"
#include "broker/metadata/metadata_store.h"
#include "broker/partitions/waiters.h"
#include "coordinator/runtime/live_records.h"
#include "coordinator/runtime/record_batches.h"
#include "coordinator/runtime/timers.h"
#include "protocol/errors.h"

namespace weir::partitions {
class Partition;
class ReplicaManager;
}  // namespace weir::partitions

namespace weir::coordinator::runtime {

template <typename T>
using Task = boost::asio::awaitable<T>;

// The state machine over one internal topic.
class Shard {
public:
    virtual ~Shard() = default;
    // A record of `partition` being loaded, in log order. Throws
    // wire::DecodeError for a record it cannot read (counted and skipped).
    virtual void replay(std::int32_t partition, const StoredRecord& record) = 0;
    // A transaction marker of `partition` being loaded, in log order: the
    // records of that producer's transaction replayed before it count
    // (commit) or do not (abort). Internal topics without transactional
    // writes have none.
    virtual void replay_marker(std::int32_t /*partition*/, const StoredMarker& /*marker*/) {}
    // Every record of `partition` was replayed; requests for it are served from now on.
    virtual void loaded(std::int32_t partition) = 0;
    // This broker no longer leads `partition` (also during its load: what
    // was replayed is to be dropped).
    virtual void unloaded(std::int32_t partition) = 0;
};

// The internal topic, created on first use.
struct TopicSpec {
    std::string name;
    std::int32_t partitions = 1;
    // Given the number of registered brokers when the topic is created.
    std::function<std::int16_t(int brokers)> replication_factor;
    config::ConfigMap configs;
};

// How an internal topic's configs translate into compaction: Kafka never
// cleans the active segment (so less than a segment stays as written), and
// live data is rewritten before the topic's retention.ms could age it out.
CompactionPolicy compaction_policy_for(const config::TopicConfig& topic);

// Where a key's coordinator is, for FindCoordinator.
struct Location {
    ErrorCode error = ErrorCode::none;
    std::string message;
    std::int32_t node_id = -1;
    std::string host;
    std::int32_t port = -1;
};

class CoordinatorRuntime {
public:
    using Clock = std::function<TimeMs()>;
    using Partitioner = std::function<std::int32_t(std::string_view key, std::int32_t partitions)>;
    struct Options {
        TopicSpec topic;
        Partitioner partitioner;
        std::size_t load_buffer_bytes = 5 * 1024 * 1024;
        std::chrono::milliseconds write_timeout{5000};
        std::function<CompactionPolicy()> compaction_policy;  // asked at every compaction check
        Clock clock;
        std::function<bool()> stopping;  // the broker is shutting down: writes do not wait
    };

    // An append done, maybe still waiting for the high watermark.
    struct Appended {
        ErrorCode error = ErrorCode::none;
        std::shared_ptr<partitions::Partition> target;
        std::int64_t base_offset = -1;  // the first record's offset; the others follow in order
        std::int64_t end_offset = -1;   // high watermark needed for the write to count
        // True if nothing is left to wait for (failed, or already covered).
        [[nodiscard]] bool complete() const;
    };

    CoordinatorRuntime(metadata::MetadataStore& metadata, partitions::ReplicaManager& partitions,
                       boost::asio::any_io_executor executor, Options options, Shard& shard);
    ~CoordinatorRuntime();
    CoordinatorRuntime(const CoordinatorRuntime&) = delete;
    CoordinatorRuntime& operator=(const CoordinatorRuntime&) = delete;

    // Starts following the metadata and loads the partitions led now.
    void start();
    // Stops its timers; loads in flight are abandoned and writes fail.
    void stop();
    // After stop(): resolves once its loads and periodic tasks have ended.
    boost::asio::awaitable<void> stopped();
    [[nodiscard]] bool active() const { return active_; }

    // ---- ownership (coordinator_runtime.cc, partition_loader.cc) ----
    [[nodiscard]] const std::string& topic() const { return options_.topic.name; }
    [[nodiscard]] std::int32_t partition_for(std::string_view key) const;
    // nullopt if requests for `partition` can be served, else
    // COORDINATOR_NOT_AVAILABLE (stopped), NOT_COORDINATOR or COORDINATOR_LOAD_IN_PROGRESS.
    [[nodiscard]] std::optional<ErrorCode> status(std::int32_t partition) const;
    // True while some led partition is still being replayed.
    [[nodiscard]] bool loading() const;
    [[nodiscard]] std::vector<std::int32_t> owned_partitions() const;
    // The leader of the key's partition on `listener`; creates the topic if missing.
    Task<Location> locate(std::string key, std::string listener);

    // ---- writes (runtime_writes.cc) ----
    // Appends as leader of a loaded partition (else NOT_LEADER_OR_FOLLOWER);
    // does not wait.
    Appended append(std::int32_t partition, const std::vector<KeyValue>& records);
    // none once the high watermark covers the append, REQUEST_TIMED_OUT after
    // the write timeout, or the partition's error.
    Task<ErrorCode> await_replicated(Appended appended);
    Task<ErrorCode> write(std::int32_t partition, std::vector<KeyValue> records);
    // Appends `records` as part of `producer`'s transaction (a transactional
    // batch, as Kafka's group coordinator writes TxnOffsetCommit); they count
    // for compaction once end_transaction says it committed.
    Appended append_transactional(std::int32_t partition, TxnProducer producer, const std::vector<KeyValue>& records);
    // The transaction's COMMIT or ABORT marker is in `partition`.
    void end_transaction(std::int32_t partition, std::int64_t producer_id, bool commit);

    // ---- compaction (runtime_writes.cc) ----
    // Compacts `partition` if its policy says so (or `force`), and moves a log
    // start waiting for the high watermark once it may.
    void maybe_compact(std::int32_t partition, bool force);
    void compact_now(bool force);

    // ---- timers, stopped with the runtime ----
    DeadlineTimer& add_deadline_timer(std::function<void()> on_deadline);
    // Started with the runtime (or now, if it runs).
    PeriodicTask& add_periodic_task(std::chrono::milliseconds interval, PeriodicTask::Body body);

private:
    struct OwnedPartition {
        bool loaded = false;
        std::uint64_t epoch = 0;  // a replay of an older epoch is abandoned
        LiveRecords live;
        // A compaction's log start move, waiting for the high watermark to cover its snapshot.
        struct PendingStart {
            std::int64_t log_start = 0;
            std::int64_t snapshot_end = 0;
        };
        std::optional<PendingStart> pending_start;
    };

    [[nodiscard]] TimeMs now() const { return options_.clock(); }
    Appended append_batch(std::int32_t partition, const std::vector<KeyValue>& records, std::optional<TxnProducer> txn);
    [[nodiscard]] std::shared_ptr<partitions::Partition> partition(std::int32_t partition) const;
    // This broker hosts the partition in a failed log dir.
    [[nodiscard]] bool offline_here(std::int32_t partition) const;
    void refresh_ownership();
    void on_metadata_change(const metadata::MetadataChange& change);
    Task<metadata::TopicPtr> ensure_topic();
    // partition_loader.cc
    void begin_load(std::int32_t partition);
    Task<void> load(std::int32_t partition, std::uint64_t epoch);
    void unload(std::int32_t partition);

    metadata::MetadataStore& metadata_;
    partitions::ReplicaManager& partitions_;
    boost::asio::any_io_executor executor_;
    Options options_;
    Shard& shard_;
    bool active_ = false;
    std::int32_t num_partitions_;
    std::map<std::int32_t, OwnedPartition> owned_;
    std::uint64_t next_epoch_ = 1;
    std::vector<std::unique_ptr<DeadlineTimer>> deadline_timers_;
    std::vector<std::unique_ptr<PeriodicTask>> periodic_tasks_;
    std::optional<metadata::MetadataStore::ListenerId> listener_;
    std::optional<partitions::ChangeListeners::Id> offline_listener_;
    // Last: posted callbacks and loads notice the runtime is gone.
    common::TaskGate gate_;
};

}  // namespace weir::coordinator::runtime
