// DescribeLogDirs (kafka-log-dirs.sh, AdminClient.describeLogDirs): every log
// dir of this broker with the size of each partition in it and the space of
// its file system, as Kafka's ReplicaManager.describeLogDirs answers; a dir
// whose disk failed answers KAFKA_STORAGE_ERROR. No ACLs are enforced, so the
// CLUSTER DESCRIBE check always passes.
#include <sys/statvfs.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "broker/handlers/handlers.h"
#include "broker/partitions/replica_manager.h"
#include "broker/storage/log_manager.h"
#include "protocol/errors.h"

namespace weir::handlers {

namespace {

using Response = msg::DescribeLogDirsResponse;

void add_space(Response::DescribeLogDirsResult& result, const std::filesystem::path& dir) {
    struct statvfs fs {};
    if (::statvfs(dir.c_str(), &fs) != 0) return;  // -1 (unknown), as the field's default
    result.total_bytes = static_cast<std::int64_t>(fs.f_blocks * fs.f_frsize);
    result.usable_bytes = static_cast<std::int64_t>(fs.f_bavail * fs.f_frsize);
}

}  // namespace

Task<msg::DescribeLogDirsResponse> handle(BrokerContext& broker, const RequestContext&,
                                          msg::DescribeLogDirsRequest request) {
    const auto& logs = broker.partitions.logs();
    // Null asks for every partition; named topics for the partitions listed.
    std::optional<std::set<TopicPartition>> wanted;
    if (request.topics) {
        wanted.emplace();
        for (const auto& t : *request.topics)
            for (auto p : t.partitions) wanted->insert({t.topic, p});
    }
    // Per dir, per topic: every topic with a log there is listed, its
    // partitions only if asked for (Kafka groups before it filters).
    std::map<std::filesystem::path, std::map<std::string, std::vector<Response::DescribeLogDirsPartition>>> by_dir;
    for (const auto& tp : logs.partitions()) {
        auto& partitions = by_dir[logs.dir_of(tp)][tp.topic];
        if (wanted && !wanted->contains(tp)) continue;
        auto log = logs.get(tp);
        if (!log || log->offline()) continue;
        Response::DescribeLogDirsPartition p;
        p.partition_index = tp.partition;
        p.partition_size = static_cast<std::int64_t>(log->size_bytes());
        // The current log's lag behind the high watermark (a follower's),
        // never below 0; -1 for a log no partition hosts (Kafka's getLogEndOffsetLag).
        const auto hosted = broker.partitions.get(tp);
        p.offset_lag = hosted ? std::max<std::int64_t>(hosted->high_watermark() - log->log_end_offset(), 0) : -1;
        p.is_future_key = false;
        partitions.push_back(p);
    }
    const auto offline = logs.offline_dirs();
    Response response;
    for (const auto& dir : logs.log_dirs()) {
        auto& result = response.results.emplace_back();
        result.log_dir = std::filesystem::absolute(dir).lexically_normal().string();
        if (std::ranges::any_of(offline, [&](const auto& o) { return o.first == dir; })) {
            result.error_code = to_int(ErrorCode::kafka_storage_error);
            continue;
        }
        add_space(result, dir);
        for (auto& [topic, partitions] : by_dir[dir]) {
            auto& t = result.topics.emplace_back();
            t.name = topic;
            t.partitions = std::move(partitions);
        }
    }
    co_return response;
}

}  // namespace weir::handlers
