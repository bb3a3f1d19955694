// The group coordinator as the runtime's shard: __consumer_offsets records
// replayed into groups while a partition loads, handed to the core once it
// has loaded, dropped when this broker stops leading it.

#include "broker/common/logging.h"
#include "coordinator/group/coordinator_service.h"

namespace weir::coordinator {

namespace asio = boost::asio;

void CoordinatorService::replay(std::int32_t partition, const store::StoredRecord& record) {
    replaying_[partition].apply(record.key, record.value, record.offset, record.txn_producer_id);
}

void CoordinatorService::replay_marker(std::int32_t partition, const runtime::StoredMarker& marker) {
    replaying_[partition].end_transaction(marker.producer_id, marker.commit);
}

void CoordinatorService::loaded(std::int32_t partition) {
    auto node = replaying_.extract(partition);
    if (node.empty()) return;  // nothing was replayed
    auto groups = node.mapped().take();
    Effects fx;
    auto t = now();
    std::size_t offsets = 0;
    for (auto& [id, group] : groups) {
        offsets += group.offsets.size();
        core_.load_group(t, id, group.metadata ? &*group.metadata : nullptr, std::move(group.offsets), fx,
                         group.pending_txn_offsets);
    }
    logging::info("loaded {} groups ({} offsets) from {}-{}", groups.size(), offsets, store::kOffsetsTopic, partition);
    run(std::move(fx));
}

void CoordinatorService::unloaded(std::int32_t partition) {
    replaying_.erase(partition);
    Effects fx;
    core_.unload_groups([&](const std::string& group) { return partition_for(group) == partition; }, fx);
    run(std::move(fx));
    logging::info("no longer coordinating the groups of {}-{}", store::kOffsetsTopic, partition);
}

void CoordinatorService::on_metadata_change(const metadata::MetadataChange& change) {
    if (!runtime_.active() || change.kind != metadata::MetadataChange::Kind::topic_deleted ||
        change.topic == store::kOffsetsTopic)
        return;
    // Offsets of a deleted topic would only confuse a recreated one.
    auto tombstones = core_.remove_topic_offsets(now(), change.topic);
    if (!tombstones.empty()) gate_.spawn(write_tombstones(std::move(tombstones)));
}

}  // namespace weir::coordinator
