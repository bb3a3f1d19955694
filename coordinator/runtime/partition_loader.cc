// Replaying a partition of the internal topic into the shard when this broker
// starts leading it, and dropping it when it stops.
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>

#include "broker/common/logging.h"
#include "broker/partitions/replica_manager.h"
#include "coordinator/runtime/coordinator_runtime.h"

namespace weir::coordinator::runtime {

namespace asio = boost::asio;

void CoordinatorRuntime::begin_load(std::int32_t p) {
    auto& owned = owned_[p];
    owned = OwnedPartition{};
    owned.epoch = next_epoch_++;
    // The broker created the partition when the metadata assigned it.
    auto log = partition(p);
    if (!log || log->log_start_offset() >= log->log_end_offset()) {
        owned.loaded = true;  // nothing to replay
        shard_.loaded(p);
        return;
    }
    gate_.spawn(load(p, owned.epoch));
}

Task<void> CoordinatorRuntime::load(std::int32_t p, std::uint64_t epoch) {
    auto started = std::chrono::steady_clock::now();
    auto pass = gate_.pass();
    auto current = [&] {
        if (!pass.open()) return false;
        auto it = owned_.find(p);
        return it != owned_.end() && it->second.epoch == epoch && active_;
    };
    LiveRecords live;
    std::size_t records = 0;
    std::size_t bad_records = 0;
    const auto& name = options_.topic.name;
    if (auto log = partition(p)) {
        std::int64_t offset = log->log_start_offset();
        // The end is read again after every pause: what was appended meanwhile
        // (a transaction marker, which WriteTxnMarkers may write while this
        // partition loads) must be replayed too, or it would never count.
        while (offset < log->log_end_offset()) {
            partitions::ReadOptions read_options;
            read_options.max_bytes = std::max<std::size_t>(options_.load_buffer_bytes, 1);
            // Kafka's coordinator loader reads to the log end, not the high watermark.
            read_options.isolation = partitions::FetchIsolation::log_end;
            auto read = log->read(offset, read_options);
            if (read.error == ErrorCode::offset_out_of_range && offset < read.log_start_offset) {
                offset = read.log_start_offset;  // the start moved (compaction) under us
                continue;
            }
            // A stopped partition (deleted, no longer hosted) is about to be
            // unloaded: what was replayed must not be served meanwhile.
            if (log->stopped()) co_return;
            if (read.error != ErrorCode::none || read.records.empty()) break;
            try {
                offset = for_each_record(
                    read.records.bytes(), offset,
                    [&](const StoredRecord& r) {
                        ++records;
                        try {
                            shard_.replay(p, r);
                        } catch (const wire::DecodeError&) {
                            ++bad_records;
                        }
                        if (r.txn_producer_id)
                            live.apply_transactional(*r.txn_producer_id, r.key, r.value, r.timestamp, r.offset);
                        else
                            live.apply(r.key, r.value, r.timestamp, r.offset);
                    },
                    [&](const StoredMarker& m) {
                        shard_.replay_marker(p, m);
                        live.end_transaction(m.producer_id, m.commit, m.timestamp);
                    });
            } catch (const wire::DecodeError& e) {
                logging::error("{}-{}: unreadable batch at offset {}: {}; loaded what came before", name, p, offset,
                               e.what());
                break;
            }
            // Let other requests run between chunks (they get COORDINATOR_LOAD_IN_PROGRESS);
            // not after the last one, so that a small partition is served without
            // waiting for the other partitions' loads.
            if (offset >= log->log_end_offset()) break;
            co_await asio::post(executor_, asio::use_awaitable);
            if (!current()) co_return;
        }
    }
    if (!current()) co_return;
    auto& owned = owned_[p];
    owned.live = std::move(live);
    owned.loaded = true;
    if (bad_records > 0) logging::warn("{}-{}: skipped {} unreadable records", name, p, bad_records);
    auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    logging::info("replayed {} records of {}-{} in {:.1f} ms", records, name, p, ms);
    shard_.loaded(p);
}

void CoordinatorRuntime::unload(std::int32_t p) {
    owned_.erase(p);
    shard_.unloaded(p);
}

}  // namespace weir::coordinator::runtime
