// Writes to __consumer_offsets: appends acknowledged once replicated, offset
// expiry tombstones and compaction.
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

#include "broker/common/logging.h"
#include "broker/partitions/replica_manager.h"
#include "coordinator/service/coordinator_service.h"
#include "coordinator/service/error_mapping.h"

namespace weir::coordinator {

namespace asio = boost::asio;

namespace {

// Snapshot batches stay well below max.message.bytes.
constexpr std::size_t kSnapshotBatchBytes = 512 * 1024;

TopicPartition offsets_tp(std::int32_t partition) { return {std::string(store::kOffsetsTopic), partition}; }

}  // namespace

CoordinatorService::Appended CoordinatorService::append(std::int32_t partition,
                                                        const std::vector<store::KeyValue>& records) {
    Appended a;
    a.partition = partition;
    auto owned = owned_.find(partition);
    if (!active_ || owned == owned_.end() || !owned->second.loaded) {
        a.error = ErrorCode::not_leader_or_follower;
        return a;
    }
    a.target = broker_.partitions.get(offsets_tp(partition));
    if (!a.target) {
        a.error = ErrorCode::unknown_topic_or_partition;
        return a;
    }
    auto timestamp = now();
    auto batch = store::build_batch(records, timestamp);
    auto result = a.target->append(batch);
    if (result.error != ErrorCode::none) {
        logging::error("append to {}-{} failed: {} {}", store::kOffsetsTopic, partition, error_name(result.error),
                       result.error_message);
        a.error = result.error;
        return a;
    }
    a.end_offset = result.last_offset + 1;
    for (const auto& r : records) {
        std::optional<wire::ByteSpan> value;
        if (r.value) value = wire::ByteSpan(*r.value);
        owned->second.live.apply(r.key, value, timestamp);
    }
    maybe_compact(partition, false);
    return a;
}

// Kafka's coordinator runtime completes a write once the high watermark
// covers it: here through the partition's acks=all waiter.
Task<ErrorCode> CoordinatorService::await_replicated(Appended appended) {
    if (appended.error != ErrorCode::none || !appended.target) co_return appended.error;
    if (appended.target->high_watermark() >= appended.end_offset) co_return ErrorCode::none;
    if (broker_.stopping()) co_return ErrorCode::request_timed_out;
    auto deadline = std::chrono::steady_clock::now() +
                    std::chrono::milliseconds(std::max(broker_.config.offsets_commit_timeout_ms, 1));
    co_return co_await appended.target->wait_for_high_watermark(appended.end_offset, deadline);
}

Task<ErrorCode> CoordinatorService::write(std::int32_t partition, std::vector<store::KeyValue> records) {
    if (records.empty()) co_return ErrorCode::none;
    auto appended = append(partition, records);
    co_return co_await await_replicated(std::move(appended));
}

Task<void> CoordinatorService::write_tombstones(std::vector<Tombstones> tombstones) {
    std::map<std::int32_t, std::vector<store::KeyValue>> by_partition;
    for (const auto& t : tombstones) {
        auto records = store::tombstone_records(t);
        auto& out = by_partition[partition_for(t.group_id)];
        out.insert(out.end(), std::make_move_iterator(records.begin()), std::make_move_iterator(records.end()));
    }
    for (auto& [partition, records] : by_partition) {
        auto error = co_await write(partition, std::move(records));
        if (error != ErrorCode::none)
            logging::warn("writing tombstones to {}-{} failed: {}", store::kOffsetsTopic, partition, error_name(error));
    }
}

Task<void> CoordinatorService::expire_offsets_now() {
    if (!active_) co_return;
    auto retention_ms = std::int64_t{broker_.config.offsets_retention_minutes} * 60 * 1000;
    auto expired = core_.expire_offsets(now(), retention_ms);
    if (expired.empty()) co_return;
    std::size_t offsets = 0;
    for (const auto& t : expired) offsets += t.offsets.size();
    logging::info("expired {} offsets of {} groups", offsets, expired.size());
    co_await write_tombstones(std::move(expired));
}

store::CompactionPolicy CoordinatorService::compaction_policy() const {
    auto topic = broker_.topic_config(store::kOffsetsTopic);
    store::CompactionPolicy p;
    p.min_cleanable_dirty_ratio = topic.min_cleanable_dirty_ratio;
    // Kafka never cleans the active segment, so less than a segment stays as written.
    p.min_dirty_bytes = static_cast<std::uint64_t>(std::max(topic.segment_bytes, 0));
    p.delete_retention_ms = topic.delete_retention_ms;
    // The log layer may apply retention.ms to this topic too: live data is
    // rewritten before it could age out.
    p.retention_ms = topic.retention_ms;
    return p;
}

void CoordinatorService::compact_now(bool force) {
    for (auto& [partition, owned] : owned_) maybe_compact(partition, force);
}

void CoordinatorService::maybe_compact(std::int32_t partition, bool force) {
    auto it = owned_.find(partition);
    if (it == owned_.end() || !it->second.loaded || !active_) return;
    OwnedPartition& owned = it->second;
    auto log = broker_.partitions.get(offsets_tp(partition));
    if (!log) return;
    // A compaction whose log start move waits for the snapshot to be replicated.
    if (owned.pending_log_start) {
        if (log->high_watermark() < *owned.pending_log_start) return;
        log->delete_records_before(*owned.pending_log_start);
        owned.pending_log_start.reset();
    }
    auto policy = compaction_policy();
    auto t = now();
    if (!force && !owned.live.should_compact(t, policy)) return;

    auto before = owned.live.total_bytes();
    auto records = owned.live.snapshot(t, policy.delete_retention_ms);
    wire::Bytes batches;
    std::vector<store::KeyValue> chunk;
    std::size_t chunk_bytes = 0;
    auto flush = [&] {
        if (chunk.empty()) return;
        auto batch = store::build_batch(chunk, t);
        batches.insert(batches.end(), batch.begin(), batch.end());
        chunk.clear();
        chunk_bytes = 0;
    };
    for (auto& r : records) {
        chunk_bytes += r.key.size() + (r.value ? r.value->size() : 0) + 24;
        chunk.push_back(std::move(r));
        if (chunk_bytes >= kSnapshotBatchBytes) flush();
    }
    flush();
    std::int64_t new_start = log->log_end_offset();
    if (!batches.empty()) {
        auto appended = log->append(batches);
        if (appended.error != ErrorCode::none) {
            logging::error("compaction of {}-{} failed: {} {}", store::kOffsetsTopic, partition,
                           error_name(appended.error), appended.error_message);
            return;
        }
        new_start = appended.base_offset;
    }
    owned.live.compacted(t);
    if (log->high_watermark() >= new_start) log->delete_records_before(new_start);
    else owned.pending_log_start = new_start;
    logging::info("compacted {}-{}: {} bytes of records since the log start, {} live ({} records)",
                  store::kOffsetsTopic, partition, before, owned.live.total_bytes(), records.size());
}

}  // namespace weir::coordinator
