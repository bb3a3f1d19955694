#pragma once
// The records a coordinator keeps in its internal topic, as key/value bytes:
// batches to append and the records of batches read back. What the bytes mean
// is the state machine's business.
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "protocol/wire/reader.h"

namespace weir::coordinator::runtime {

// Milliseconds since the epoch.
using TimeMs = std::int64_t;

// One record to append: a key and its value (nullopt: tombstone).
struct KeyValue {
    wire::Bytes key;
    std::optional<wire::Bytes> value;
};

// One v2 batch, CreateTime `timestamp` on every record (as Kafka's coordinator writes them).
wire::Bytes build_batch(const std::vector<KeyValue>& records, TimeMs timestamp);

struct StoredRecord {
    std::int64_t offset = 0;
    TimeMs timestamp = 0;
    wire::ByteSpan key;
    std::optional<wire::ByteSpan> value;
};

// Calls `fn` for every record of the concatenated v2 batches in `data` at
// offset >= `from` (control batches and records without a key are skipped).
// Returns the offset after the last batch seen. Throws wire::DecodeError on a
// malformed batch.
std::int64_t for_each_record(wire::ByteSpan data, std::int64_t from,
                             const std::function<void(const StoredRecord&)>& fn);

}  // namespace weir::coordinator::runtime
