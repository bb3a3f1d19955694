// Writes to the internal topic: appends that count once replicated, and
// compaction (rewrite the live records, then move the log start once the
// rewrite is replicated).
#include "broker/common/logging.h"
#include "broker/partitions/replica_manager.h"
#include "coordinator/runtime/coordinator_runtime.h"

namespace weir::coordinator::runtime {

namespace {

// Snapshot batches stay well below max.message.bytes.
constexpr std::size_t kSnapshotBatchBytes = 512 * 1024;

}  // namespace

bool CoordinatorRuntime::Appended::complete() const {
    return error != ErrorCode::none || !target || target->high_watermark() >= end_offset;
}

CoordinatorRuntime::Appended CoordinatorRuntime::append(std::int32_t p, const std::vector<KeyValue>& records) {
    return append_batch(p, records, std::nullopt);
}

CoordinatorRuntime::Appended CoordinatorRuntime::append_transactional(std::int32_t p, TxnProducer producer,
                                                                      const std::vector<KeyValue>& records) {
    return append_batch(p, records, producer);
}

void CoordinatorRuntime::end_transaction(std::int32_t p, std::int64_t producer_id, bool commit) {
    auto owned = owned_.find(p);
    if (owned == owned_.end() || !owned->second.loaded) return;
    owned->second.live.end_transaction(producer_id, commit, now());
    maybe_compact(p, false);
}

CoordinatorRuntime::Appended CoordinatorRuntime::append_batch(std::int32_t p, const std::vector<KeyValue>& records,
                                                              std::optional<TxnProducer> txn) {
    Appended a;
    auto owned = owned_.find(p);
    if (!active_ || owned == owned_.end() || !owned->second.loaded) {
        a.error = ErrorCode::not_leader_or_follower;
        return a;
    }
    a.target = partition(p);
    if (!a.target) {
        a.error = ErrorCode::unknown_topic_or_partition;
        return a;
    }
    auto timestamp = now();
    auto batch = build_batch(records, timestamp, txn);
    // The coordinator's own transactional writes carry no sequence numbers.
    auto result =
        a.target->append(batch, txn ? partitions::AppendOrigin::coordinator : partitions::AppendOrigin::client);
    if (result.error != ErrorCode::none) {
        logging::error("append to {}-{} failed: {} {}", options_.topic.name, p, error_name(result.error),
                       result.error_message);
        a.error = result.error;
        return a;
    }
    a.base_offset = result.base_offset;
    a.end_offset = result.last_offset + 1;
    auto position = a.base_offset;
    for (const auto& r : records) {
        std::optional<wire::ByteSpan> value;
        if (r.value) value = wire::ByteSpan(*r.value);
        if (txn)
            owned->second.live.apply_transactional(txn->producer_id, r.key, value, timestamp, position++);
        else
            owned->second.live.apply(r.key, value, timestamp, position++);
    }
    maybe_compact(p, false);
    return a;
}

// Kafka's coordinator runtime completes a write once the high watermark
// covers it: here through the partition's acks=all waiter.
Task<ErrorCode> CoordinatorRuntime::await_replicated(Appended appended) {
    if (appended.error != ErrorCode::none || !appended.target) co_return appended.error;
    if (appended.target->high_watermark() >= appended.end_offset) co_return ErrorCode::none;
    if (options_.stopping && options_.stopping()) co_return ErrorCode::request_timed_out;
    auto deadline = std::chrono::steady_clock::now() + std::max(options_.write_timeout, std::chrono::milliseconds(1));
    co_return co_await appended.target->wait_for_high_watermark(appended.end_offset, deadline);
}

Task<ErrorCode> CoordinatorRuntime::write(std::int32_t p, std::vector<KeyValue> records) {
    if (records.empty()) co_return ErrorCode::none;
    auto appended = append(p, records);
    co_return co_await await_replicated(std::move(appended));
}

void CoordinatorRuntime::compact_now(bool force) {
    for (auto p : owned_partitions()) maybe_compact(p, force);
}

void CoordinatorRuntime::maybe_compact(std::int32_t p, bool force) {
    auto it = owned_.find(p);
    if (it == owned_.end() || !it->second.loaded || !active_) return;
    OwnedPartition& owned = it->second;
    auto log = partition(p);
    if (!log) return;
    const auto& name = options_.topic.name;
    // The records a snapshot replaces go only once the snapshot is replicated:
    // a leader that lost an unreplicated snapshot would have lost them too.
    if (owned.pending_start) {
        if (log->high_watermark() < owned.pending_start->snapshot_end) return;
        log->delete_records_before(owned.pending_start->log_start);
        owned.pending_start.reset();
    }
    // Records of open transactions must stay above the log start, even when forced.
    if (owned.live.has_open_transactions()) return;
    auto policy = options_.compaction_policy ? options_.compaction_policy() : CompactionPolicy{};
    auto t = now();
    if (!force && !owned.live.should_compact(t, policy)) return;

    auto before = owned.live.total_bytes();
    auto records = owned.live.snapshot(t, policy.delete_retention_ms);
    wire::Bytes batches;
    std::vector<KeyValue> chunk;
    std::size_t chunk_bytes = 0;
    auto flush = [&] {
        if (chunk.empty()) return;
        auto batch = build_batch(chunk, t);
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
    std::int64_t snapshot_end = new_start;
    if (!batches.empty()) {
        auto appended = log->append(batches);
        if (appended.error != ErrorCode::none) {
            logging::error("compaction of {}-{} failed: {} {}", name, p, error_name(appended.error),
                           appended.error_message);
            return;
        }
        new_start = appended.base_offset;
        snapshot_end = appended.last_offset + 1;
    }
    owned.live.compacted(t);
    if (log->high_watermark() >= snapshot_end)
        log->delete_records_before(new_start);
    else
        owned.pending_start = OwnedPartition::PendingStart{new_start, snapshot_end};
    logging::info("compacted {}-{}: {} bytes of records since the log start, {} live ({} records)", name, p, before,
                  owned.live.total_bytes(), records.size());
}

}  // namespace weir::coordinator::runtime
