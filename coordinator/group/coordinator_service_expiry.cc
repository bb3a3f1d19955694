// Tombstones: offsets past offsets.retention.minutes, deleted groups and
// offsets, and the offsets of deleted topics.
#include <map>

#include "broker/common/logging.h"
#include "coordinator/group/coordinator_service.h"

namespace weir::coordinator {

Task<void> CoordinatorService::write_tombstones(std::vector<Tombstones> tombstones) {
    std::map<std::int32_t, std::vector<store::KeyValue>> by_partition;
    for (const auto& t : tombstones) {
        auto records = store::tombstone_records(t);
        auto& out = by_partition[partition_for(t.group_id)];
        out.insert(out.end(), std::make_move_iterator(records.begin()), std::make_move_iterator(records.end()));
    }
    for (auto& [partition, records] : by_partition) {
        auto error = co_await runtime_.write(partition, std::move(records));
        if (error != ErrorCode::none)
            logging::warn("writing tombstones to {}-{} failed: {}", store::kOffsetsTopic, partition, error_name(error));
    }
}

Task<void> CoordinatorService::expire_offsets_now() {
    if (!runtime_.active()) co_return;
    auto retention_ms = std::int64_t{broker_.config.offsets_retention_minutes} * 60 * 1000;
    auto expired = core_.expire_offsets(now(), retention_ms);
    if (expired.empty()) co_return;
    std::size_t offsets = 0;
    for (const auto& t : expired) offsets += t.offsets.size();
    logging::info("expired {} offsets of {} groups", offsets, expired.size());
    co_await write_tombstones(std::move(expired));
}

}  // namespace weir::coordinator
