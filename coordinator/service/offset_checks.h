#pragma once
// The per-partition checks OffsetCommit and TxnOffsetCommit share.
#include <cstddef>
#include <cstdint>
#include <string>

#include "broker/metadata/metadata_store.h"

namespace weir::coordinator {

// offset.metadata.max.bytes
inline constexpr std::size_t kMaxOffsetMetadataBytes = 4096;

inline bool partition_exists(const metadata::MetadataStore& store, const std::string& topic, std::int32_t partition) {
    auto t = store.topic(topic);
    return t && partition >= 0 && static_cast<std::size_t>(partition) < t->partitions.size();
}

}  // namespace weir::coordinator
