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

}  // namespace weir::coordinator::store
