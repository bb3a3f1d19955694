// OffsetCommit, OffsetFetch and OffsetDelete at every version.
#include "coordinator/group/coordinator_service.h"
#include "coordinator/group/error_mapping.h"
#include "coordinator/group/offset_checks.h"

namespace weir::coordinator {

namespace {

// Committed offsets grouped by topic, in the order given.
template <typename Topic>
std::vector<Topic> by_topic(const std::vector<FetchedOffset>& offsets) {
    std::vector<Topic> topics;
    for (const auto& o : offsets) {
        if (topics.empty() || topics.back().name != o.tp.topic) {
            topics.emplace_back();
            topics.back().name = o.tp.topic;
        }
        auto& p = topics.back().partitions.emplace_back();
        p.partition_index = o.tp.partition;
        p.committed_offset = o.offset;
        p.committed_leader_epoch = o.leader_epoch;
        p.metadata = o.metadata;
        p.error_code = to_int(o.error);
    }
    return topics;
}

}  // namespace

Task<msg::OffsetCommitResponse> CoordinatorService::offset_commit(const Ctx& ctx, msg::OffsetCommitRequest r) {
    const auto v = ctx.version();
    const auto t = now();
    msg::OffsetCommitResponse resp;
    std::vector<std::pair<TopicPartition, OffsetAndMetadata>> valid;
    std::vector<std::int16_t*> valid_errors;
    // Expiry per commit only exists in v2-v4 (retention_time_ms).
    std::optional<TimeMs> expire;
    if (v >= 2 && v <= 4 && r.retention_time_ms != -1) expire = t + r.retention_time_ms;
    for (auto& topic : r.topics) {
        auto& out_topic = resp.topics.emplace_back();
        out_topic.name = topic.name;
        out_topic.partitions.reserve(topic.partitions.size());
        for (auto& p : topic.partitions) {
            auto& out = out_topic.partitions.emplace_back();
            out.partition_index = p.partition_index;
            std::string metadata = p.committed_metadata.value_or("");
            if (!partition_exists(broker_.metadata, topic.name, p.partition_index)) {
                out.error_code = to_int(ErrorCode::unknown_topic_or_partition);
            } else if (metadata.size() > kMaxOffsetMetadataBytes) {
                out.error_code = to_int(ErrorCode::offset_metadata_too_large);
            } else {
                OffsetAndMetadata o;
                o.offset = p.committed_offset;
                o.leader_epoch = v >= 6 ? p.committed_leader_epoch : -1;
                o.metadata = std::move(metadata);
                o.commit_timestamp = v == 1 && p.commit_timestamp != -1 ? p.commit_timestamp : t;
                o.expire_timestamp = expire;
                valid.emplace_back(TopicPartition{topic.name, p.partition_index}, std::move(o));
            }
        }
    }
    // Pointers are taken once the response no longer grows.
    {
        std::size_t i = 0;
        for (auto& topic : resp.topics)
            for (auto& p : topic.partitions)
                if (p.error_code == 0 && i < valid.size()) valid_errors.push_back(&p.error_code), ++i;
    }
    auto fail_valid = [&](ErrorCode e) {
        for (auto* code : valid_errors) *code = to_int(e);
    };
    if (valid.empty()) co_return resp;
    if (auto error = group_status(r.group_id, Api::offset_commit)) {
        fail_valid(*error);
        co_return resp;
    }
    auto error =
        core_.validate_offset_commit(t, r.group_id, r.member_id, r.group_instance_id, r.generation_id_or_member_epoch);
    arm_deadline();
    if (error != ErrorCode::none) {
        fail_valid(error);
        co_return resp;
    }
    std::vector<TopicPartition> tps;
    tps.reserve(valid.size());
    for (const auto& [tp, o] : valid) tps.push_back(tp);
    core_.prepare_offset_commit(r.group_id, tps);
    auto appended = runtime_.append(partition_for(r.group_id), store::offset_records(r.group_id, valid));
    place_offsets(valid, appended.base_offset);
    auto written = co_await runtime_.await_replicated(std::move(appended));
    core_.complete_offset_commit(r.group_id, valid, written == ErrorCode::none);
    fail_valid(map_offset_store_error(written));
    co_return resp;
}

Task<msg::OffsetFetchResponse> CoordinatorService::offset_fetch(const Ctx& ctx, msg::OffsetFetchRequest r) {
    const auto v = ctx.version();
    msg::OffsetFetchResponse resp;
    auto fetch = [&](const std::string& group, const auto& topics, bool require_stable, ErrorCode& error) {
        std::optional<std::vector<TopicPartition>> tps;
        if (topics) {
            tps.emplace();
            for (const auto& topic : *topics)
                for (auto p : topic.partition_indexes) tps->push_back({topic.name, p});
        }
        if (auto e = group_status(group, Api::offset_fetch)) {
            error = *e;
            return std::vector<FetchedOffset>{};
        }
        error = ErrorCode::none;
        return core_.fetch_offsets(group, require_stable, tps);
    };

    if (v >= 8) {
        for (const auto& g : r.groups) {
            ErrorCode error = ErrorCode::none;
            auto offsets = fetch(g.group_id, g.topics, r.require_stable, error);
            auto& out = resp.groups.emplace_back();
            out.group_id = g.group_id;
            out.error_code = to_int(error);
            out.topics = by_topic<msg::OffsetFetchResponse::OffsetFetchResponseTopics>(offsets);
        }
        co_return resp;
    }
    ErrorCode error = ErrorCode::none;
    auto offsets = fetch(r.group_id, r.topics, v >= 7 && r.require_stable, error);
    if (error != ErrorCode::none && v < 2) {
        // No group-level error before v2: every requested partition carries it.
        if (r.topics)
            for (const auto& topic : *r.topics)
                for (auto p : topic.partition_indexes) offsets.push_back({{topic.name, p}, -1, -1, "", error});
    }
    resp.error_code = to_int(error);
    resp.topics = by_topic<msg::OffsetFetchResponse::OffsetFetchResponseTopic>(offsets);
    co_return resp;
}

Task<msg::OffsetDeleteResponse> CoordinatorService::offset_delete(const Ctx&, msg::OffsetDeleteRequest r) {
    msg::OffsetDeleteResponse resp;
    if (auto error = group_status(r.group_id, Api::offset_delete)) {
        resp.error_code = to_int(*error);
        co_return resp;
    }
    std::map<TopicPartition, ErrorCode> errors;
    std::vector<TopicPartition> known;
    for (const auto& topic : r.topics) {
        for (const auto& p : topic.partitions) {
            TopicPartition tp{topic.name, p.partition_index};
            if (partition_exists(broker_.metadata, topic.name, p.partition_index))
                known.push_back(tp);
            else
                errors[tp] = ErrorCode::unknown_topic_or_partition;
        }
    }
    auto result = core_.delete_offsets(now(), r.group_id, known);
    if (result.error != ErrorCode::none) {
        resp.error_code = to_int(result.error);
        co_return resp;
    }
    for (const auto& [tp, e] : result.partitions) errors[tp] = e;
    if (!result.tombstones.offsets.empty() || result.tombstones.group_tombstone) {
        std::vector<Tombstones> batch;
        batch.push_back(std::move(result.tombstones));
        co_await write_tombstones(std::move(batch));
    }
    for (const auto& topic : r.topics) {
        auto& out_topic = resp.topics.emplace_back();
        out_topic.name = topic.name;
        for (const auto& p : topic.partitions) {
            auto& out = out_topic.partitions.emplace_back();
            out.partition_index = p.partition_index;
            out.error_code = to_int(errors[{topic.name, p.partition_index}]);
        }
    }
    co_return resp;
}

}  // namespace weir::coordinator
