// DescribeLogDirs (kafka-log-dirs.sh, AdminClient.describeLogDirs): every log
// dir of this broker with the size of each partition in it and the space of
// its file system, as Kafka's ReplicaManager.describeLogDirs answers; a dir
// whose disk failed answers KAFKA_STORAGE_ERROR. No ACLs are enforced, so the
// CLUSTER DESCRIBE check always passes.
#include <sys/statvfs.h>

#include <filesystem>
#include <optional>
#include <set>

#include "broker/handlers/handlers.h"
#include "broker/partitions/replica_manager.h"
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
    // Null asks for every partition; named topics for the partitions listed.
    std::optional<std::set<TopicPartition>> wanted;
    if (request.topics) {
        wanted.emplace();
        for (const auto& t : *request.topics)
            for (auto p : t.partitions) wanted->insert({t.topic, p});
    }
    Response response;
    for (auto& dir : broker.partitions.describe_log_dirs(wanted)) {
        auto& result = response.results.emplace_back();
        result.log_dir = std::filesystem::absolute(dir.dir).lexically_normal().string();
        if (dir.offline) {
            result.error_code = to_int(ErrorCode::kafka_storage_error);
            continue;
        }
        add_space(result, dir.dir);
        for (auto& [topic, partitions] : dir.topics) {
            auto& t = result.topics.emplace_back();
            t.name = topic;
            for (const auto& in : partitions) {
                auto& p = t.partitions.emplace_back();
                p.partition_index = in.partition;
                p.partition_size = in.size_bytes;
                p.offset_lag = in.offset_lag;
                p.is_future_key = false;
            }
        }
    }
    co_return response;
}

}  // namespace weir::handlers
