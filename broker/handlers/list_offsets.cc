// ListOffsets: every version. v0 answers Kafka's legacy segment-based offset
// list; v1+ one offset (and timestamp) per partition: -1 latest, -2 earliest,
// -3 max timestamp, -4 earliest local, -5 latest tiered, else the first
// offset whose timestamp is >= the one asked for.
#include <algorithm>
#include <chrono>
#include <set>

#include "broker/handlers/handlers.h"
#include "broker/partitions/partition_manager.h"
#include "protocol/errors.h"

namespace weir::handlers {

namespace {

using Response = msg::ListOffsetsResponse;
using PartitionResponse = Response::ListOffsetsPartitionResponse;

constexpr std::int64_t kLatest = -1;
constexpr std::int64_t kEarliest = -2;
constexpr std::int64_t kMaxTimestamp = -3;
constexpr std::int64_t kEarliestLocal = -4;
constexpr std::int64_t kLatestTiered = -5;
constexpr std::int32_t kConsumerReplicaId = -1;
constexpr std::int32_t kDebuggingReplicaId = -2;
constexpr std::int32_t kUnknownEpoch = -1;

struct Resolved {
    ErrorCode error = ErrorCode::none;
    std::shared_ptr<storage::PartitionLog> log;
    std::int32_t leader_epoch = 0;
};

// Partition.localLogWithEpochOrThrow: epoch check first, then leadership.
Resolved resolve(BrokerContext& broker, const metadata::MetadataSnapshot& snapshot, const std::string& topic,
                 std::int32_t partition, std::int32_t current_leader_epoch, bool only_leader) {
    Resolved r;
    auto info = snapshot.topic(topic);
    if (!info || partition < 0 || static_cast<std::size_t>(partition) >= info->partitions.size()) {
        r.error = ErrorCode::unknown_topic_or_partition;
        return r;
    }
    const auto& p = info->partitions[static_cast<std::size_t>(partition)];
    r.leader_epoch = p.leader_epoch;
    if (current_leader_epoch != kUnknownEpoch) {
        if (current_leader_epoch > p.leader_epoch) r.error = ErrorCode::unknown_leader_epoch;
        else if (current_leader_epoch < p.leader_epoch) r.error = ErrorCode::fenced_leader_epoch;
        if (r.error != ErrorCode::none) return r;
    }
    r.log = broker.partitions.find({topic, partition});
    if (!r.log || (only_leader && p.leader != broker.metadata.local_broker_id())) {
        r.error = ErrorCode::not_leader_or_follower;
        r.log.reset();
    }
    return r;
}

std::int64_t now_ms() {
    using namespace std::chrono;
    return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

// UnifiedLog.legacyFetchOffsetsBefore: one entry per segment (its base
// offset) plus the log end if the active segment holds data, newest first.
// Kafka picks the entries whose segment file was last modified at or before
// the timestamp; Weir uses the record timestamps instead (a segment's
// last write is its newest record).
std::vector<std::int64_t> legacy_offsets(const storage::PartitionLog& log, std::int64_t timestamp, std::int32_t max_num,
                                         bool from_consumer) {
    std::vector<std::int64_t> entries;
    const auto bases = log.segment_base_offsets();
    for (auto base : bases) entries.push_back(std::max(base, log.log_start_offset()));
    const bool active_has_data = !bases.empty() && log.log_end_offset() > bases.back();
    if (active_has_data) entries.push_back(log.log_end_offset());

    auto start = static_cast<std::int64_t>(entries.size()) - 1;
    if (timestamp == kEarliest) {
        start = 0;
    } else if (timestamp != kLatest) {
        if (auto found = log.offset_for_timestamp(timestamp)) {
            // Segments before the one holding the match ended before `timestamp`.
            auto segment = std::upper_bound(bases.begin(), bases.end(), found->offset) - bases.begin() - 1;
            start = static_cast<std::int64_t>(segment) - 1;
        } else if (active_has_data && now_ms() > timestamp) {
            start -= 1;  // the log end entry stands for "now"
        }
    }
    const auto count = std::min<std::int64_t>(max_num, start + 1);
    std::vector<std::int64_t> out;
    for (std::int64_t i = 0; i < count; ++i) out.push_back(entries[static_cast<std::size_t>(start - i)]);
    std::sort(out.begin(), out.end(), std::greater<>());
    if (from_consumer) {
        // Partition.legacyFetchOffsetsForTimestamp: consumers never see past the high watermark.
        const auto hw = log.high_watermark();
        if (std::any_of(out.begin(), out.end(), [&](auto o) { return o > hw; })) {
            std::erase_if(out, [&](auto o) { return o > hw; });
            out.insert(out.begin(), hw);
        }
    }
    return out;
}

void answer_v0(BrokerContext& broker, const metadata::MetadataSnapshot& snapshot, const msg::ListOffsetsRequest& request,
               const std::string& topic, const msg::ListOffsetsRequest::ListOffsetsPartition& in, PartitionResponse& out) {
    auto r = resolve(broker, snapshot, topic, in.partition_index, kUnknownEpoch, request.replica_id != kDebuggingReplicaId);
    if (r.error != ErrorCode::none) {
        out.error_code = to_int(r.error);
        return;
    }
    if (in.max_num_offsets < 0) {
        out.error_code = to_int(ErrorCode::unknown_server_error);  // Kafka fails allocating a negative array
        return;
    }
    out.old_style_offsets =
        legacy_offsets(*r.log, in.timestamp, in.max_num_offsets, request.replica_id == kConsumerReplicaId);
}

// Partition.fetchOffsetForTimestamp.
void answer(BrokerContext& broker, const metadata::MetadataSnapshot& snapshot, const msg::ListOffsetsRequest& request,
            std::int16_t version, const std::string& topic, const msg::ListOffsetsRequest::ListOffsetsPartition& in,
            PartitionResponse& out) {
    auto r = resolve(broker, snapshot, topic, in.partition_index, version >= 4 ? in.current_leader_epoch : kUnknownEpoch,
                     request.replica_id != kDebuggingReplicaId);
    if (r.error != ErrorCode::none) {
        out.error_code = to_int(r.error);
        return;
    }
    const auto& log = *r.log;
    const bool client = request.replica_id == kConsumerReplicaId;
    const std::int64_t last_fetchable =
        !client ? log.log_end_offset() : (request.isolation_level == 1 ? log.last_stable_offset() : log.high_watermark());

    std::optional<storage::FoundRecord> found;
    switch (in.timestamp) {
        case kLatest: found = storage::FoundRecord{last_fetchable, -1, r.leader_epoch}; break;
        case kEarliest:
        case kEarliestLocal: found = storage::FoundRecord{log.log_start_offset(), -1, r.leader_epoch}; break;
        case kLatestTiered: found = storage::FoundRecord{-1, -1, -1}; break;  // no tiered storage
        case kMaxTimestamp: found = log.max_timestamp(); break;
        default: found = log.offset_for_timestamp(in.timestamp); break;
    }
    if (found && in.timestamp != kLatest && in.timestamp != kEarliest && in.timestamp != kEarliestLocal &&
        found->offset >= last_fetchable)
        found.reset();
    if (!found) return;  // offset and timestamp stay -1
    out.offset = found->offset;
    out.timestamp = found->timestamp;
    // Kafka stamps every appended batch with the leader epoch; Weir's batches
    // keep the producer's -1, so the partition's epoch stands in.
    auto epoch = found->leader_epoch;
    if (epoch < 0 && in.timestamp != kLatestTiered) epoch = r.leader_epoch;
    if (version >= 4) out.leader_epoch = epoch;
}

}  // namespace

Task<msg::ListOffsetsResponse> handle(BrokerContext& broker, const RequestContext& ctx, msg::ListOffsetsRequest request) {
    const auto version = ctx.version();
    auto snapshot = broker.metadata.snapshot();

    std::set<std::pair<std::string, std::int32_t>> seen, duplicates;
    for (const auto& topic : request.topics)
        for (const auto& p : topic.partitions)
            if (!seen.emplace(topic.name, p.partition_index).second) duplicates.emplace(topic.name, p.partition_index);

    Response response;
    response.topics.reserve(request.topics.size());
    for (const auto& topic : request.topics) {
        auto& topic_out = response.topics.emplace_back();
        topic_out.name = topic.name;
        topic_out.partitions.reserve(topic.partitions.size());
        for (const auto& in : topic.partitions) {
            auto& out = topic_out.partitions.emplace_back();
            out.partition_index = in.partition_index;
            try {
                if (version == 0) {
                    answer_v0(broker, *snapshot, request, topic.name, in, out);
                } else if (duplicates.contains({topic.name, in.partition_index})) {
                    out.error_code = to_int(ErrorCode::invalid_request);
                } else {
                    answer(broker, *snapshot, request, version, topic.name, in, out);
                }
            } catch (const storage::StorageError&) {
                out = PartitionResponse{};
                out.partition_index = in.partition_index;
                out.error_code = to_int(ErrorCode::kafka_storage_error);
            }
        }
    }
    co_return response;
}

}  // namespace weir::handlers
