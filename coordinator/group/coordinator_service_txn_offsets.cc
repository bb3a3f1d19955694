// Transactional offset commits (Kafka's GroupCoordinator.handleTxnCommitOffsets):
// TxnOffsetCommit appends the offsets as a transactional batch of the
// producer; they stay pending, invisible to OffsetFetch, until the
// transaction's marker reaches their __consumer_offsets partition.
#include <map>

#include "coordinator/group/coordinator_service.h"
#include "coordinator/group/error_mapping.h"
#include "coordinator/group/offset_checks.h"

namespace weir::coordinator {

Task<msg::TxnOffsetCommitResponse> CoordinatorService::txn_offset_commit(const Ctx& ctx,
                                                                         msg::TxnOffsetCommitRequest r) {
    const auto v = ctx.version();
    const auto t = now();
    msg::TxnOffsetCommitResponse resp;
    std::vector<std::pair<TopicPartition, OffsetAndMetadata>> valid;
    for (auto& topic : r.topics) {
        auto& out_topic = resp.topics.emplace_back();
        out_topic.name = topic.name;
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
                o.leader_epoch = v >= 2 ? p.committed_leader_epoch : -1;
                o.metadata = std::move(metadata);
                o.commit_timestamp = t;
                valid.emplace_back(TopicPartition{topic.name, p.partition_index}, std::move(o));
            }
        }
    }
    auto set_valid = [&](ErrorCode e) {
        for (auto& topic : resp.topics)
            for (auto& p : topic.partitions)
                if (p.error_code == 0) p.error_code = to_int(e);
    };
    if (valid.empty()) co_return resp;
    if (auto error = group_status(r.group_id, Api::txn_offset_commit)) {
        set_valid(*error);
        co_return resp;
    }
    auto error = core_.validate_txn_offset_commit(t, r.group_id, r.member_id, r.group_instance_id, r.generation_id);
    if (error != ErrorCode::none) {
        set_valid(error);
        co_return resp;
    }
    const auto partition = partition_for(r.group_id);
    auto appended = runtime_.append_transactional(partition, runtime::TxnProducer{r.producer_id, r.producer_epoch},
                                                  store::offset_records(r.group_id, valid));
    // Pending from the moment they are in the log, as a reload would find
    // them: the marker may come before this write is acknowledged.
    if (appended.error == ErrorCode::none) {
        place_offsets(valid, appended.base_offset);
        // A partition named twice: the later record wins, as on replay.
        std::map<TopicPartition, OffsetAndMetadata> pending;
        for (const auto& [tp, o] : valid) pending[tp] = o;
        core_.add_pending_txn_offsets(r.group_id, r.producer_id, pending);
    }
    auto written = co_await runtime_.await_replicated(std::move(appended));
    set_valid(map_offset_store_error(written));
    co_return resp;
}

void CoordinatorService::complete_transaction(std::int32_t offsets_partition, std::int64_t producer_id, bool commit) {
    runtime_.end_transaction(offsets_partition, producer_id, commit);
    core_.complete_txn_offsets(producer_id, commit,
                               [&](const std::string& group) { return partition_for(group) == offsets_partition; });
}

}  // namespace weir::coordinator
