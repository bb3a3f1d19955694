#include "coordinator/runtime/record_batches.h"

#include <algorithm>
#include <chrono>

#include "protocol/records/record_batch.h"

namespace weir::coordinator::runtime {

TimeMs wall_clock_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

wire::Bytes build_batch(const std::vector<KeyValue>& records, TimeMs timestamp, std::optional<TxnProducer> txn) {
    records::BatchBuilderOptions options;
    options.base_timestamp = timestamp;
    if (txn) {
        options.producer_id = txn->producer_id;
        options.producer_epoch = txn->producer_epoch;
        options.transactional = true;
    }
    std::vector<records::Record> out;
    out.reserve(records.size());
    for (std::size_t i = 0; i < records.size(); ++i) {
        records::Record r;
        r.offset_delta = static_cast<std::int32_t>(i);
        r.key = records[i].key;
        r.value = records[i].value;
        out.push_back(std::move(r));
    }
    return records::build_batch(options, out);
}

std::int64_t for_each_record(wire::ByteSpan data, std::int64_t from, const std::function<void(const StoredRecord&)>& fn,
                             const std::function<void(const StoredMarker&)>& on_marker) {
    std::int64_t next = from;
    records::for_each_batch(data, false, [&](const records::BatchHeader& header, wire::ByteSpan batch) {
        next = std::max(next, header.last_offset() + 1);
        if (header.last_offset() < from) return;
        for (auto& r : records::decode_records(batch)) {
            const std::int64_t offset = header.base_offset + r.offset_delta;
            if (offset < from || !r.key) continue;
            const TimeMs timestamp = header.base_timestamp + r.timestamp_delta;
            if (header.is_control()) {
                // ControlRecordType: int16 version, int16 type (0 ABORT, 1 COMMIT).
                wire::Reader key(*r.key);
                key.int16();
                const auto type = key.int16();
                if (on_marker && (type == 0 || type == 1))
                    on_marker(StoredMarker{offset, timestamp, header.producer_id, type == 1});
                continue;
            }
            StoredRecord sr;
            sr.offset = offset;
            sr.timestamp = timestamp;
            sr.key = *r.key;
            if (r.value) sr.value = wire::ByteSpan(*r.value);
            if (header.is_transactional()) sr.txn_producer_id = header.producer_id;
            fn(sr);
        }
    });
    return next;
}

}  // namespace weir::coordinator::runtime
