#pragma once
// Rebuilding the coordinator's state from a __consumer_offsets partition:
// records in log order, the latest value per key wins, tombstones delete.
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "coordinator/group/records.h"

namespace weir::coordinator::store {

// Offsets TxnOffsetCommit wrote, by producer id, whose transaction had no
// marker yet.
using PendingTxnOffsets = std::map<std::int64_t, std::map<TopicPartition, OffsetAndMetadata>>;

struct LoadedGroup {
    std::optional<msg::GroupMetadataValue> metadata;  // nullopt: offsets only
    std::map<TopicPartition, OffsetAndMetadata> offsets;
    PendingTxnOffsets pending_txn_offsets;
};

class Replayer {
public:
    // One record in log order; `value` nullopt is a tombstone. A record of a
    // transactional batch (`txn_producer_id`) waits for its producer's
    // marker. Throws wire::DecodeError for a record it cannot read (the
    // caller skips it). `offset` is the record's position in the log.
    void apply(wire::ByteSpan key, std::optional<wire::ByteSpan> value, std::int64_t offset,
               std::optional<std::int64_t> txn_producer_id = std::nullopt);
    // The producer's COMMIT (its offsets count unless a later record of the
    // same group and partition is stored) or ABORT marker.
    void end_transaction(std::int64_t producer_id, bool commit);
    // The groups, with the offsets of transactions still open.
    std::map<std::string, LoadedGroup> take();

private:
    std::map<std::string, LoadedGroup> groups_;
    // producer id -> group -> offsets, in the order Kafka's loader keeps them.
    std::map<std::int64_t, std::map<std::string, std::map<TopicPartition, OffsetAndMetadata>>> pending_;
};

using runtime::for_each_record;
using runtime::StoredMarker;
using runtime::StoredRecord;

}  // namespace weir::coordinator::store
