#include "protocol/records/conversion.h"

#include <algorithm>
#include <string>

#include "protocol/records/compression.h"

namespace weir::records {

using wire::DecodeError;

Bytes up_convert(ByteSpan message_set, const UpConvertOptions& options) {
    auto top = parse_message_set(message_set);
    if (top.empty()) return {};
    Compression codec = Compression::none;
    TimestampType timestamp_type = TimestampType::create_time;
    for (const auto& m : top) {
        if (codec == Compression::none) codec = m.compression();
        if (m.timestamp_type() == TimestampType::log_append_time) timestamp_type = TimestampType::log_append_time;
    }
    auto messages = decode_message_set(message_set, {.max_decompressed_size = options.max_decompressed_size});
    if (messages.empty()) return {};

    BatchBuilderOptions b;
    b.base_offset = options.base_offset;
    b.compression = codec;
    b.timestamp_type = timestamp_type;
    b.base_timestamp = messages.front().timestamp;
    std::vector<Record> records;
    records.reserve(messages.size());
    for (std::size_t i = 0; i < messages.size(); ++i) {
        auto& m = messages[i];
        Record r;
        r.offset_delta = static_cast<std::int32_t>(i);
        r.timestamp_delta = m.timestamp - b.base_timestamp;
        r.key = std::move(m.key);
        r.value = std::move(m.value);
        records.push_back(std::move(r));
    }
    return build_batch(b, records);
}

DownConverted down_convert(ByteSpan batches, const DownConvertOptions& options) {
    if (options.magic != 0 && options.magic != 1)
        throw std::invalid_argument("down-conversion target must be magic 0 or 1");
    DownConverted out;
    for (ByteSpan batch : split_batches(batches, true)) {
        BatchHeader h = parse_batch_header(batch);
        if (!crc_valid(batch)) throw DecodeError("batch CRC mismatch");
        if (h.record_count < 0) throw DecodeError("negative record count");
        out.next_offset = h.last_offset() + 1;
        if (h.is_control() || h.record_count == 0) continue;
        Compression codec = h.compression();
        if (codec == Compression::zstd)
            throw UnsupportedCompressionError("zstd batch cannot be down-converted to magic " +
                                              std::to_string(options.magic));
        // Each batch is decompressed, converted and released in turn, so a
        // per-batch bound is enough to bound memory.
        auto records = decode_records(batch, options.max_decompressed_size);

        bool log_append = h.timestamp_type() == TimestampType::log_append_time;
        std::vector<LegacyMessage> messages;
        messages.reserve(records.size());
        for (auto& r : records) {
            LegacyMessage m;
            m.offset = h.base_offset + r.offset_delta;
            m.timestamp =
                options.magic == 0 ? -1 : (log_append ? h.max_timestamp : h.base_timestamp + r.timestamp_delta);
            m.key = std::move(r.key);
            m.value = std::move(r.value);
            messages.push_back(std::move(m));
        }
        Bytes set = build_message_set(
            {.magic = options.magic, .compression = codec, .timestamp_type = h.timestamp_type()}, messages);
        out.records.insert(out.records.end(), set.begin(), set.end());
    }
    return out;
}

}  // namespace weir::records
