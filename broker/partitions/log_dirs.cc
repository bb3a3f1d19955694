// The ReplicaManager's view of its log dirs for DescribeLogDirs: what the
// logs underneath hold, so that handlers need no storage types.
#include <algorithm>

#include "broker/partitions/replica_manager.h"
#include "broker/storage/log_manager.h"

namespace weir::partitions {

std::vector<LogDirDescription> ReplicaManager::describe_log_dirs(
    const std::optional<std::set<TopicPartition>>& wanted) const {
    std::map<std::filesystem::path, std::map<std::string, std::vector<LogDirPartition>>> by_dir;
    // As Kafka's describeLogDirs, a topic none of whose partitions is described is left out.
    for (const auto& tp : logs_.partitions()) {
        if (wanted && !wanted->contains(tp)) continue;
        auto log = logs_.get(tp);
        if (!log || log->offline()) continue;
        auto& partitions = by_dir[logs_.dir_of(tp)][tp.topic];
        LogDirPartition p;
        p.partition = tp.partition;
        p.size_bytes = static_cast<std::int64_t>(log->size_bytes());
        // Kafka's getLogEndOffsetLag.
        const auto hosted = get(tp);
        p.offset_lag = hosted ? std::max<std::int64_t>(hosted->high_watermark() - log->log_end_offset(), 0) : -1;
        partitions.push_back(p);
    }
    const auto offline = logs_.offline_dirs();
    std::vector<LogDirDescription> out;
    for (const auto& dir : logs_.log_dirs()) {
        auto& d = out.emplace_back();
        d.dir = dir;
        d.offline = std::ranges::any_of(offline, [&](const auto& o) { return o.first == dir; });
        if (!d.offline) d.topics = std::move(by_dir[dir]);
    }
    return out;
}

}  // namespace weir::partitions
