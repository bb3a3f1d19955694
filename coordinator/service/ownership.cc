// Which __consumer_offsets partitions this broker leads, replaying them when
// it starts leading one and dropping their groups when it stops.
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>

#include "broker/common/logging.h"
#include "broker/partitions/replica_manager.h"
#include "coordinator/service/coordinator_service.h"
#include "coordinator/store/partitioner.h"
#include "coordinator/store/replay.h"

namespace weir::coordinator {

namespace asio = boost::asio;

namespace {

TopicPartition offsets_tp(std::int32_t partition) { return {std::string(store::kOffsetsTopic), partition}; }

}  // namespace

Task<metadata::TopicPtr> CoordinatorService::ensure_offsets_topic() {
    if (auto topic = broker_.metadata.topic(store::kOffsetsTopic)) co_return topic;
    // Created on first use, like Kafka: compacted, offsets.topic.* sized.
    const auto& c = broker_.config;
    metadata::NewTopic t;
    t.name = std::string(store::kOffsetsTopic);
    t.num_partitions = std::max(c.offsets_topic_num_partitions, 1);
    t.replication_factor = c.internal_topic_replication_factor(static_cast<int>(broker_.metadata.brokers().size()));
    t.configs = {{"cleanup.policy", "compact"},
                 {"compression.type", "producer"},
                 {"segment.bytes", std::to_string(c.offsets_topic_segment_bytes)}};
    auto result = co_await broker_.metadata.create_topic(t, false);
    if (!result.ok() && result.error != ErrorCode::topic_already_exists) {
        logging::warn("cannot create {}: {}", store::kOffsetsTopic, result.message);
        co_return nullptr;
    }
    if (result.ok())
        logging::info("created {} with {} partitions, replication factor {}", store::kOffsetsTopic, t.num_partitions,
                      t.replication_factor);
    refresh_ownership();
    co_return broker_.metadata.topic(store::kOffsetsTopic);
}

void CoordinatorService::refresh_ownership() {
    if (!active_) return;
    auto topic = broker_.metadata.topic(store::kOffsetsTopic);
    std::set<std::int32_t> led;
    if (topic) {
        num_partitions_ = std::max<std::int32_t>(static_cast<std::int32_t>(topic->partitions.size()), 1);
        auto me = broker_.metadata.local_broker_id();
        for (const auto& p : topic->partitions)
            if (p.leader == me) led.insert(p.partition);
    }
    std::vector<std::int32_t> lost;
    for (const auto& [p, owned] : owned_)
        if (!led.contains(p)) lost.push_back(p);
    for (auto p : lost) unload(p);
    for (auto p : led)
        if (!owned_.contains(p)) begin_load(p);
}

void CoordinatorService::begin_load(std::int32_t partition) {
    auto& owned = owned_[partition];
    owned = OwnedPartition{};
    owned.epoch = next_epoch_++;
    // The broker created the partition when the metadata assigned it.
    auto log = broker_.partitions.get(offsets_tp(partition));
    if (!log || log->log_start_offset() >= log->log_end_offset()) {
        owned.loaded = true;  // nothing to replay
        return;
    }
    asio::co_spawn(broker_.executor, load(partition, owned.epoch), asio::detached);
}

Task<void> CoordinatorService::load(std::int32_t partition, std::uint64_t epoch) {
    auto started = std::chrono::steady_clock::now();
    auto current = [&] {
        auto it = owned_.find(partition);
        return it != owned_.end() && it->second.epoch == epoch && active_;
    };
    store::Replayer replay;
    store::LiveRecords live;
    std::size_t bad_records = 0;
    auto log = broker_.partitions.get(offsets_tp(partition));
    if (log) {
        std::int64_t offset = log->log_start_offset();
        const std::int64_t end = log->log_end_offset();
        while (offset < end) {
            partitions::ReadOptions options;
            options.max_bytes = static_cast<std::size_t>(std::max(broker_.config.offsets_load_buffer_size, 1));
            // Kafka's coordinator loader reads to the log end, not the high watermark.
            options.isolation = partitions::FetchIsolation::log_end;
            auto read = log->read(offset, options);
            if (read.error == ErrorCode::offset_out_of_range && offset < read.log_start_offset) {
                offset = read.log_start_offset;  // the start moved (compaction) under us
                continue;
            }
            if (read.error != ErrorCode::none || read.records.empty()) break;
            try {
                offset = store::for_each_record(read.records, offset, [&](const store::StoredRecord& r) {
                    try {
                        replay.apply(r.key, r.value);
                    } catch (const wire::DecodeError&) {
                        ++bad_records;
                    }
                    live.apply(r.key, r.value, r.timestamp);
                });
            } catch (const wire::DecodeError& e) {
                logging::error("{}-{}: unreadable batch at offset {}: {}; loaded what came before",
                               store::kOffsetsTopic, partition, offset, e.what());
                break;
            }
            // Let other requests run between chunks (they get COORDINATOR_LOAD_IN_PROGRESS);
            // not after the last one, so that a small partition is served without
            // waiting for the other partitions' loads.
            if (offset >= end) break;
            co_await asio::post(broker_.executor, asio::use_awaitable);
            if (!current()) co_return;
        }
    }
    if (!current()) co_return;
    auto groups = replay.take();
    Effects fx;
    auto t = now();
    std::size_t offsets = 0;
    for (auto& [id, loaded] : groups) {
        offsets += loaded.offsets.size();
        core_.load_group(t, id, loaded.metadata ? &*loaded.metadata : nullptr, std::move(loaded.offsets), fx);
    }
    auto& owned = owned_[partition];
    owned.live = std::move(live);
    owned.loaded = true;
    if (bad_records > 0)
        logging::warn("{}-{}: skipped {} unreadable records", store::kOffsetsTopic, partition, bad_records);
    auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    logging::info("loaded {} groups ({} offsets) from {}-{} in {:.1f} ms", groups.size(), offsets,
                  store::kOffsetsTopic, partition, ms);
    run(std::move(fx));
}

void CoordinatorService::unload(std::int32_t partition) {
    owned_.erase(partition);
    Effects fx;
    core_.unload_groups([&](const std::string& group) { return partition_for(group) == partition; }, fx);
    run(std::move(fx));
    logging::info("no longer coordinating the groups of {}-{}", store::kOffsetsTopic, partition);
}

void CoordinatorService::on_metadata_change(const metadata::MetadataChange& change) {
    if (!active_) return;
    using Kind = metadata::MetadataChange::Kind;
    if (change.topic == store::kOffsetsTopic || change.kind == Kind::brokers_changed) {
        refresh_ownership();
        return;
    }
    if (change.kind == Kind::topic_deleted) {
        // Offsets of a deleted topic would only confuse a recreated one.
        auto tombstones = core_.remove_topic_offsets(now(), change.topic);
        if (!tombstones.empty())
            asio::co_spawn(broker_.executor, write_tombstones(std::move(tombstones)), asio::detached);
    }
}

Task<CoordinatorService::Located> CoordinatorService::locate(const std::string& key, std::int8_t key_type,
                                                             std::string_view listener) {
    Located out;
    if (key_type == 1) {
        out.error = ErrorCode::coordinator_not_available;
        out.message = "transactions are not supported";
        co_return out;
    }
    if (key_type != 0) {
        out.error = ErrorCode::invalid_request;
        out.message = "unknown coordinator key type " + std::to_string(key_type);
        co_return out;
    }
    auto topic = co_await ensure_offsets_topic();
    if (!topic || topic->partitions.empty()) {
        out.error = ErrorCode::coordinator_not_available;
        co_return out;
    }
    auto p = store::partition_for(key, static_cast<std::int32_t>(topic->partitions.size()));
    auto leader = topic->partitions[static_cast<std::size_t>(p)].leader;
    auto snapshot = broker_.metadata.snapshot();
    const auto* b = leader >= 0 ? snapshot->broker(leader) : nullptr;
    const auto* endpoint = b ? b->endpoint(listener) : nullptr;
    if (!endpoint) {
        out.error = ErrorCode::coordinator_not_available;
        co_return out;
    }
    out.node_id = leader;
    out.host = endpoint->host;
    out.port = endpoint->port;
    co_return out;
}

}  // namespace weir::coordinator
