// A Partition's idempotent producers across restarts (Kafka's
// UnifiedLog.loadProducerState and its snapshots): rebuilt at start-up and
// after truncation from the newest snapshot at or below the log end and the
// log after it; snapshotted at each segment roll and at a clean shutdown.
#include <algorithm>

#include "broker/common/logging.h"
#include "broker/partitions/partition.h"
#include "broker/storage/partition_log.h"
#include "broker/storage/producer_snapshot_file.h"
#include "protocol/records/record_batch.h"

namespace weir::partitions {

void Partition::load_producer_state() {
    producer_state_.clear();
    snapshot_offset_ = -1;
    const auto end = log_->log_end_offset();
    std::int64_t from = log_->log_start_offset();
    auto snapshots = storage::list_producer_snapshots(log_->dir());
    while (!snapshots.empty()) {
        const auto offset = snapshots.back();
        snapshots.pop_back();
        if (offset > end) {
            storage::delete_producer_snapshot(log_->dir(), offset);
            continue;
        }
        try {
            producer_state_.load_snapshot(storage::read_producer_snapshot(log_->dir(), offset));
            snapshot_offset_ = offset;
            from = std::max(from, offset);
            break;
        } catch (const std::exception& e) {
            logging::warn("{}: ignoring producer state snapshot {}: {}", tp_.to_string(), offset, e.what());
            storage::delete_producer_snapshot(log_->dir(), offset);
            producer_state_.clear();
        }
    }
    replay_producer_state(from);
}

void Partition::replay_producer_state(std::int64_t from) {
    const auto end = log_->log_end_offset();
    // The transaction index is rebuilt from the same replay (Kafka's
    // LogSegment.recover), so entries from `from` on are recorded once.
    try {
        log_->truncate_txn_indexes(from);
    } catch (const std::exception& e) {
        logging::error("{}: resetting the transaction index from {} failed: {}", tp_.to_string(), from, e.what());
    }
    storage::ReadOptions options;
    options.max_bytes = std::size_t{1} << 20;
    options.max_offset = end;
    try {
        for (auto offset = from; offset < end;) {
            auto data = log_->read(offset, options);
            if (data.error != ErrorCode::none || data.records.empty()) break;
            std::vector<ProducerBatchView> views;
            auto next = offset;
            records::for_each_batch(data.records, true, [&](const records::BatchHeader& header, wire::ByteSpan batch) {
                if (header.last_offset() < offset) return;
                views.push_back({header, end_txn_marker_of(header, batch)});
                next = header.last_offset() + 1;
            });
            record_completed_txns(producer_state_.apply(views));
            if (next <= offset) break;
            offset = next;
        }
    } catch (const std::exception& e) {
        logging::error("{}: rebuilding the producer state from the log failed: {}", tp_.to_string(), e.what());
    }
    producer_state_.on_high_watermark(std::max(high_watermark_, log_->log_start_offset()));
}

void Partition::take_producer_snapshot(std::int64_t offset, storage::Durability durability) {
    // Kafka keeps one per segment; the newest few are all recovery reads.
    constexpr std::size_t kSnapshotsKept = 3;
    try {
        storage::write_producer_snapshot(log_->dir(), offset, producer_state_.to_snapshot(), durability);
        snapshot_offset_ = offset;
        auto snapshots = storage::list_producer_snapshots(log_->dir());
        for (std::size_t i = 0; i + kSnapshotsKept < snapshots.size(); ++i)
            storage::delete_producer_snapshot(log_->dir(), snapshots[i]);
    } catch (const storage::StorageError& e) {
        log_->io_failed(e);
        logging::error("{}: writing the producer state snapshot at {} failed: {}", tp_.to_string(), offset, e.what());
    } catch (const std::exception& e) {
        logging::error("{}: writing the producer state snapshot at {} failed: {}", tp_.to_string(), offset, e.what());
    }
}

void Partition::write_producer_snapshot() {
    if (!log_->is_open() || log_->offline()) return;
    // As Kafka's takeSnapshot: nothing was appended since the newest one, or
    // ever (Kafka's last snapshot offset starts at 0). A broker of 10,000 idle
    // or new partitions would otherwise write 10,000 files at every shutdown.
    const auto end = log_->log_end_offset();
    if (end == snapshot_offset_ || (snapshot_offset_ < 0 && end == log_->log_start_offset())) return;
    // Made durable with the logs by the log manager's shutdown (one syncfs
    // before the clean-shutdown marker); a torn one fails its CRC at load.
    take_producer_snapshot(log_->log_end_offset(), storage::Durability::deferred);
}

void Partition::remove_expired_producers(std::int64_t now_ms, std::int64_t expiration_ms) {
    producer_state_.remove_expired(now_ms, expiration_ms);
}

}  // namespace weir::partitions
