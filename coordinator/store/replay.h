#pragma once
// Rebuilding the coordinator's state from a __consumer_offsets partition:
// records in log order, the latest value per key wins, tombstones delete.
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "coordinator/store/records.h"

namespace weir::coordinator::store {

struct LoadedGroup {
    std::optional<msg::GroupMetadataValue> metadata;  // nullopt: offsets only
    std::map<TopicPartition, OffsetAndMetadata> offsets;
};

class Replayer {
public:
    // One record in log order; `value` nullopt is a tombstone. Throws
    // wire::DecodeError for a record it cannot read (the caller skips it).
    void apply(wire::ByteSpan key, std::optional<wire::ByteSpan> value);
    [[nodiscard]] const std::map<std::string, LoadedGroup>& groups() const { return groups_; }
    std::map<std::string, LoadedGroup> take() { return std::move(groups_); }

private:
    std::map<std::string, LoadedGroup> groups_;
};

using runtime::for_each_record;
using runtime::StoredRecord;

}  // namespace weir::coordinator::store
