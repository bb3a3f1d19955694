#include "coordinator/group/replay.h"

namespace weir::coordinator::store {

void Replayer::apply(wire::ByteSpan key, std::optional<wire::ByteSpan> value, std::int64_t offset,
                     std::optional<std::int64_t> txn_producer_id) {
    auto parsed = parse_key(key);
    if (!parsed) return;
    if (auto* ok = std::get_if<OffsetKey>(&*parsed); ok && txn_producer_id) {
        // Kafka's loader: transactional offsets wait for the marker (a
        // transaction only ever writes offsets, never tombstones).
        if (value) {
            auto parsed_value = parse_offset_value(*value);
            parsed_value.record_offset = offset;
            pending_[*txn_producer_id][ok->group][ok->tp] = std::move(parsed_value);
        }
        return;
    }
    if (auto* ok = std::get_if<OffsetKey>(&*parsed)) {
        if (value) {
            auto parsed_value = parse_offset_value(*value);
            parsed_value.record_offset = offset;
            groups_[ok->group].offsets[ok->tp] = std::move(parsed_value);
        } else {
            // A deleted offset takes the open transactions' offsets of that
            // partition with it, as Group::remove_offsets does in memory
            // (Kafka's OffsetMetadataManager.replay).
            for (auto& [producer_id, groups] : pending_)
                if (auto g = groups.find(ok->group); g != groups.end()) g->second.erase(ok->tp);
            if (auto it = groups_.find(ok->group); it != groups_.end()) {
                it->second.offsets.erase(ok->tp);
                if (!it->second.metadata && it->second.offsets.empty()) groups_.erase(it);
            }
        }
        return;
    }
    const auto& gk = std::get<GroupKey>(*parsed);
    if (value) {
        groups_[gk.group].metadata = parse_group_value(*value);
    } else if (auto it = groups_.find(gk.group); it != groups_.end()) {
        it->second.metadata.reset();
        if (it->second.offsets.empty()) groups_.erase(it);
    }
}

void Replayer::end_transaction(std::int64_t producer_id, bool commit) {
    auto node = pending_.extract(producer_id);
    if (node.empty() || !commit) return;
    for (auto& [group, offsets] : node.mapped())
        for (auto& [tp, offset] : offsets) {
            auto [it, inserted] = groups_[group].offsets.try_emplace(tp, offset);
            if (!inserted && it->second.superseded_by(offset)) it->second = std::move(offset);
        }
}

std::map<std::string, LoadedGroup> Replayer::take() {
    for (auto& [producer_id, groups] : pending_)
        for (auto& [group, offsets] : groups) groups_[group].pending_txn_offsets[producer_id] = std::move(offsets);
    pending_.clear();
    return std::move(groups_);
}

}  // namespace weir::coordinator::store
