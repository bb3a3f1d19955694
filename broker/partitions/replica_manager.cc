#include "broker/partitions/replica_manager.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "broker/common/logging.h"
#include "broker/storage/checkpoint_file.h"
#include "broker/storage/log_manager.h"

namespace weir::partitions {

namespace asio = boost::asio;

ReplicaManager::ReplicaManager(asio::any_io_executor executor, storage::LogManager& logs, ConfigLookup config_for_topic,
                               std::int32_t local_broker_id)
    : executor_(std::move(executor)),
      logs_(logs),
      config_for_topic_(std::move(config_for_topic)),
      local_broker_id_(local_broker_id) {
    // Retention and the cleaner stay below what the partitions made visible.
    logs_.set_visible_offsets([this](const TopicPartition& tp) -> std::optional<storage::VisibleOffsets> {
        auto partition = get(tp);
        if (!partition) return std::nullopt;
        return storage::VisibleOffsets{partition->high_watermark(), partition->last_stable_offset()};
    });
}

ReplicaManager::~ReplicaManager() {
    logs_.wait_for_syncs();  // the high watermark writes' completions refer to this
    logs_.set_visible_offsets({});
}

std::shared_ptr<Partition> ReplicaManager::get(const TopicPartition& tp) const {
    auto it = partitions_.find(tp);
    return it == partitions_.end() ? nullptr : it->second;
}

std::shared_ptr<Partition> ReplicaManager::get_or_create(const TopicPartition& tp) {
    if (auto existing = get(tp)) return existing;
    auto log = logs_.get(tp);
    if (!log) log = logs_.get_or_create(tp, config_for_topic_(tp.topic));
    auto partition = std::make_shared<Partition>(tp, local_broker_id_, std::move(log), executor_);
    partitions_.emplace(tp, partition);
    auto& restored = restored_high_watermarks(partition->dir().parent_path());
    if (auto entry = restored.find(tp); entry != restored.end()) {
        partition->restore_high_watermark(entry->second);
        restored.erase(entry);
    }
    return partition;
}

std::shared_ptr<Partition> ReplicaManager::apply(const TopicPartition& tp, const LeaderAndIsr& state) {
    const bool hosted =
        std::find(state.replicas.begin(), state.replicas.end(), local_broker_id_) != state.replicas.end();
    // Moving a replica off this broker (reassignment) comes with cluster mode.
    if (!hosted) return nullptr;
    auto partition = get_or_create(tp);
    // An error here is a stale state (an older epoch): the partition keeps its own.
    if (state.leader == local_broker_id_)
        partition->make_leader(state);
    else
        partition->make_follower(state);
    return partition;
}

bool ReplicaManager::remove(const TopicPartition& tp) {
    auto it = partitions_.find(tp);
    if (it != partitions_.end()) {
        it->second->stop(ErrorCode::unknown_topic_or_partition);
        partitions_.erase(it);
    }
    return logs_.remove(tp);
}

void ReplicaManager::remove_topic(const std::string& topic) {
    // Logs without a partition (not hosted any more) go too.
    for (const auto& tp : logs_.partitions())
        if (tp.topic == topic) remove(tp);
}

void ReplicaManager::topic_config_changed(const std::string& topic) {
    logs_.set_topic_config(topic, config_for_topic_(topic));
}

ProduceResult ReplicaManager::produce(const TopicPartition& tp, wire::ByteSpan records, const ProduceLimits& limits) {
    auto partition = get(tp);
    if (!partition) return {.error = ErrorCode::unknown_topic_or_partition};
    return partition->append_records_as_leader(records, limits);
}

AppendResult ReplicaManager::append_txn_marker(const TopicPartition& tp, std::int64_t producer_id,
                                               std::int16_t producer_epoch, std::int32_t coordinator_epoch,
                                               bool commit) {
    auto partition = get(tp);
    if (!partition) return {.error = ErrorCode::unknown_topic_or_partition};
    return partition->append_txn_marker(producer_id, producer_epoch, coordinator_epoch, commit);
}

asio::awaitable<ErrorCode> ReplicaManager::wait_for_high_watermark(TopicPartition tp, std::int64_t offset,
                                                                   std::chrono::steady_clock::time_point deadline) {
    co_return co_await wait_for_high_watermark(get(tp), offset, deadline);
}

asio::awaitable<ErrorCode> ReplicaManager::wait_for_high_watermark(std::shared_ptr<Partition> partition,
                                                                   std::int64_t offset,
                                                                   std::chrono::steady_clock::time_point deadline) {
    if (!partition) co_return ErrorCode::unknown_topic_or_partition;
    if (stopping_ && partition->high_watermark() < offset) co_return ErrorCode::request_timed_out;
    co_return co_await partition->wait_for_high_watermark(offset, deadline);
}

void ReplicaManager::set_isr_proposer(IsrProposer proposer, std::chrono::milliseconds replica_lag_max) {
    isr_proposer_ = std::move(proposer);
    replica_lag_max_ = replica_lag_max;
}

void ReplicaManager::follower_fetched(Partition& partition, std::int32_t replica, std::int64_t fetch_offset) {
    if (!partition.update_follower_position(replica, fetch_offset) || !isr_proposer_) return;
    // Every follower fetch passes here: only one from outside the ISR can
    // change it (shrinking is maintain_isrs' job).
    const auto& in_sync = partition.isr();
    if (std::find(in_sync.begin(), in_sync.end(), replica) != in_sync.end()) return;
    if (auto isr = partition.isr_change(std::chrono::steady_clock::now(), replica_lag_max_, replica))
        isr_proposer_(partition.topic_partition(), partition.leader_epoch(), std::move(*isr));
}

void ReplicaManager::maintain_isrs() {
    if (!isr_proposer_) return;
    const auto now = std::chrono::steady_clock::now();
    for (const auto& [tp, partition] : partitions_)
        if (auto isr = partition->isr_change(now, replica_lag_max_))
            isr_proposer_(tp, partition->leader_epoch(), std::move(*isr));
}

std::vector<std::shared_ptr<Partition>> ReplicaManager::hosted() const {
    std::vector<std::shared_ptr<Partition>> out;
    out.reserve(partitions_.size());
    for (const auto& [tp, partition] : partitions_) out.push_back(partition);
    return out;
}

void ReplicaManager::remove_expired_producers(std::int64_t expiration_ms) {
    const auto now =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    for (const auto& [tp, partition] : partitions_) partition->remove_expired_producers(now, expiration_ms);
}

void ReplicaManager::write_producer_snapshots() {
    for (const auto& [tp, partition] : partitions_)
        if (!partition->stopped()) partition->write_producer_snapshot();
}

storage::OffsetCheckpoint& ReplicaManager::restored_high_watermarks(const std::filesystem::path& dir) {
    auto found = restored_high_watermarks_.find(dir);
    if (found != restored_high_watermarks_.end()) return found->second;
    bool ok = true;
    auto offsets = storage::read_checkpoint_file(dir / storage::kHighWatermarkCheckpointFile, &ok);
    if (!ok) logging::warn("{}: unreadable high watermark checkpoint, ignored", dir.string());
    return restored_high_watermarks_.emplace(dir, std::move(offsets)).first->second;
}

void ReplicaManager::checkpoint_high_watermarks() {
    std::map<std::filesystem::path, storage::OffsetCheckpoint> by_dir;
    for (const auto& [tp, partition] : partitions_)
        if (!partition->stopped() && !partition->offline())
            by_dir[partition->dir().parent_path()][tp] = partition->high_watermark();
    for (auto& [dir, restored] : restored_high_watermarks_) {
        std::erase_if(restored, [&](const auto& entry) { return !logs_.get(entry.first); });
        for (const auto& [tp, offset] : restored) by_dir[dir].emplace(tp, offset);
    }
    const auto offline = logs_.offline_dirs();
    for (auto& [dir, offsets] : by_dir) {
        if (std::ranges::any_of(offline, [&](const auto& o) { return o.first == dir; })) continue;
        // An unchanged file is not rewritten (each write waits on two fsyncs), unless it is gone:
        // Kafka rewrites it every interval, and that write is what finds the disk of an idle dir
        // removed from under the broker.
        auto written = high_watermarks_written_.find(dir);
        std::error_code missing;
        if (written != high_watermarks_written_.end() && written->second == offsets &&
            std::filesystem::exists(dir / storage::kHighWatermarkCheckpointFile, missing))
            continue;
        high_watermarks_written_[dir] = offsets;  // forgotten if the write fails
        logs_.submit_write(
            [path = dir / storage::kHighWatermarkCheckpointFile, offsets = std::move(offsets)] {
                storage::write_checkpoint_file(path, offsets);
            },
            [this, dir](std::exception_ptr error) {
                if (!error) return;
                high_watermarks_written_.erase(dir);
                try {
                    std::rethrow_exception(error);
                } catch (const storage::StorageError& e) {
                    if (!logs_.io_failed(dir, e))  // else said once, by the dir going offline
                        logging::error("{}: writing the high watermark checkpoint failed: {}", dir.string(), e.what());
                } catch (const std::exception& e) {
                    logging::error("{}: writing the high watermark checkpoint failed: {}", dir.string(), e.what());
                }
            });
    }
}

void ReplicaManager::log_dir_failed() {
    for (const auto& [tp, partition] : partitions_)
        if (partition->offline()) partition->abort_waiters(ErrorCode::kafka_storage_error);
    offline_listeners_.notify();
}

void ReplicaManager::wake_all() {
    stopping_ = true;
    for (const auto& [tp, partition] : partitions_) partition->abort_waiters(ErrorCode::request_timed_out);
}

}  // namespace weir::partitions
