#pragma once
// Control records (KIP-98): the single record of a control batch, which ends
// a producer's transaction on one partition. Kafka's ControlRecordType and
// EndTransactionMarker (big-endian):
//   key:   version int16 (0) | type int16 (0 ABORT, 1 COMMIT)
//   value: version int16 (0) | coordinatorEpoch int32
// A control batch is transactional, has base sequence -1 and carries the
// producer id and epoch of the transaction it ends.
#include <cstdint>
#include <optional>

#include "protocol/records/record_batch.h"

namespace weir::records {

enum class ControlRecordType : std::int16_t { abort = 0, commit = 1 };

struct EndTxnMarker {
    ControlRecordType type = ControlRecordType::abort;
    std::int32_t coordinator_epoch = 0;
    bool operator==(const EndTxnMarker&) const = default;
};

// The record key and value of an end-transaction marker.
Bytes end_txn_marker_key(ControlRecordType type);
Bytes end_txn_marker_value(std::int32_t coordinator_epoch);

// Kafka's MemoryRecords.withEndTransactionMarker: one control batch at base
// offset 0 holding one marker record stamped `timestamp_ms`.
Bytes build_end_txn_marker_batch(std::int64_t producer_id, std::int16_t producer_epoch, const EndTxnMarker& marker,
                                 std::int64_t timestamp_ms);

// The marker a control batch holds: nullopt for an empty control batch (the
// cleaner may leave one) or a control record of another type. Throws
// wire::DecodeError if the batch or the marker's key or value is malformed.
std::optional<EndTxnMarker> parse_end_txn_marker(ByteSpan batch);

}  // namespace weir::records
