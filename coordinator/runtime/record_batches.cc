#include "coordinator/runtime/record_batches.h"

#include <algorithm>

#include "protocol/records/record_batch.h"

namespace weir::coordinator::runtime {

wire::Bytes build_batch(const std::vector<KeyValue>& records, TimeMs timestamp) {
    records::BatchBuilderOptions options;
    options.base_timestamp = timestamp;
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

std::int64_t for_each_record(wire::ByteSpan data, std::int64_t from,
                             const std::function<void(const StoredRecord&)>& fn) {
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

}  // namespace weir::coordinator::runtime
