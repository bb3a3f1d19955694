#include "coordinator/store/replay.h"

namespace weir::coordinator::store {

void Replayer::apply(wire::ByteSpan key, std::optional<wire::ByteSpan> value) {
    auto parsed = parse_key(key);
    if (!parsed) return;
    if (auto* ok = std::get_if<OffsetKey>(&*parsed)) {
        if (value) {
            groups_[ok->group].offsets[ok->tp] = parse_offset_value(*value);
        } else if (auto it = groups_.find(ok->group); it != groups_.end()) {
            it->second.offsets.erase(ok->tp);
            if (!it->second.metadata && it->second.offsets.empty()) groups_.erase(it);
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

std::int64_t for_each_record(wire::ByteSpan data, std::int64_t from, const std::function<void(const StoredRecord&)>& fn) {
    std::int64_t next = from;
    for (auto batch : records::split_batches(data, false)) {
        auto header = records::parse_batch_header(batch);
        next = std::max(next, header.last_offset() + 1);
        if (header.is_control() || header.last_offset() < from) continue;
        for (auto& r : records::decode_records(batch)) {
            StoredRecord sr;
            sr.offset = header.base_offset + r.offset_delta;
            if (sr.offset < from || !r.key) continue;
            sr.timestamp = header.base_timestamp + r.timestamp_delta;
            sr.key = *r.key;
            if (r.value) sr.value = wire::ByteSpan(*r.value);
            fn(sr);
        }
    }
    return next;
}

}  // namespace weir::coordinator::store
