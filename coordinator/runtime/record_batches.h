#pragma once
// The records a coordinator keeps in its internal topic, as key/value bytes:
// batches to append and the records of batches read back. What the bytes mean
// is the state machine's business.
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "protocol/wire/reader.h"
#include "protocol/wire/writer.h"

namespace weir::coordinator::runtime {

// Milliseconds since the epoch.
using TimeMs = std::int64_t;

// The wall clock in ms, the coordinators' default clock.
TimeMs wall_clock_ms();

// A coordinator record's key or value in Kafka's layout: an int16 version,
// then the generated message at that version.
template <typename Message>
wire::Bytes encode_versioned(const Message& m, std::int16_t version) {
    wire::Bytes out;
    out.reserve(2 + m.size(version));
    wire::Writer w(out);
    w.int16(version);
    m.encode(w, version);
    return out;
}

// One record to append: a key and its value (nullopt: tombstone).
struct KeyValue {
    wire::Bytes key;
    std::optional<wire::Bytes> value;
};

// The producer of a transactional batch (TxnOffsetCommit's offsets).
struct TxnProducer {
    std::int64_t producer_id = -1;
    std::int16_t producer_epoch = -1;
};

// One v2 batch, CreateTime `timestamp` on every record (as Kafka's coordinator
// writes them); transactional and without sequence numbers when `txn` is given.
wire::Bytes build_batch(const std::vector<KeyValue>& records, TimeMs timestamp,
                        std::optional<TxnProducer> txn = std::nullopt);

struct StoredRecord {
    std::int64_t offset = 0;
    TimeMs timestamp = 0;
    wire::ByteSpan key;
    std::optional<wire::ByteSpan> value;
    // Set for a record of a transactional batch: it counts once its
    // producer's COMMIT marker follows, never after an ABORT.
    std::optional<std::int64_t> txn_producer_id;
};

// A COMMIT or ABORT marker (a control batch) read back.
struct StoredMarker {
    std::int64_t offset = 0;
    TimeMs timestamp = 0;
    std::int64_t producer_id = -1;
    bool commit = false;
};

// Calls `fn` for every record of the concatenated v2 batches in `data` at
// offset >= `from` (records without a key are skipped), and `on_marker` for
// every transaction marker. Returns the offset after the last batch seen.
// Throws wire::DecodeError on a malformed batch.
std::int64_t for_each_record(wire::ByteSpan data, std::int64_t from, const std::function<void(const StoredRecord&)>& fn,
                             const std::function<void(const StoredMarker&)>& on_marker = {});

}  // namespace weir::coordinator::runtime
