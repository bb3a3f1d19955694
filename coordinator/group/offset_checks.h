#pragma once
// What OffsetCommit and TxnOffsetCommit share: the per-partition checks and
// the placing of the offsets they write.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "broker/metadata/metadata_store.h"
#include "coordinator/group/types.h"

namespace weir::coordinator {

// offset.metadata.max.bytes
inline constexpr std::size_t kMaxOffsetMetadataBytes = 4096;

inline bool partition_exists(const metadata::MetadataStore& store, const std::string& topic, std::int32_t partition) {
    auto t = store.topic(topic);
    return t && partition >= 0 && static_cast<std::size_t>(partition) < t->partitions.size();
}

// The offsets of one write, in the order store::offset_records wrote them
// from `base_offset` on: where each record lies decides which of two commits
// of a partition is the later one.
inline void place_offsets(std::vector<std::pair<TopicPartition, OffsetAndMetadata>>& offsets,
                          std::int64_t base_offset) {
    if (base_offset < 0) return;
    for (auto& [tp, o] : offsets) o.record_offset = base_offset++;
}

}  // namespace weir::coordinator
