#include "protocol/records/control_record.h"

#include "protocol/wire/reader.h"

namespace weir::records {

namespace {

constexpr std::int16_t kControlKeyVersion = 0;
constexpr std::int16_t kMarkerValueVersion = 0;

void put16(Bytes& out, std::int16_t v) {
    out.push_back(static_cast<std::uint8_t>(static_cast<std::uint16_t>(v) >> 8));
    out.push_back(static_cast<std::uint8_t>(v));
}

void put32(Bytes& out, std::int32_t v) {
    const auto u = static_cast<std::uint32_t>(v);
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<std::uint8_t>(u >> shift));
}

std::int16_t get16(const Bytes& in, std::size_t at) {
    return static_cast<std::int16_t>((std::uint16_t{in[at]} << 8) | in[at + 1]);
}

}  // namespace

Bytes end_txn_marker_key(ControlRecordType type) {
    Bytes key;
    put16(key, kControlKeyVersion);
    put16(key, static_cast<std::int16_t>(type));
    return key;
}

Bytes end_txn_marker_value(std::int32_t coordinator_epoch) {
    Bytes value;
    put16(value, kMarkerValueVersion);
    put32(value, coordinator_epoch);
    return value;
}

Bytes build_end_txn_marker_batch(std::int64_t producer_id, std::int16_t producer_epoch, const EndTxnMarker& marker,
                                 std::int64_t timestamp_ms) {
    BatchBuilderOptions options;
    options.base_timestamp = timestamp_ms;
    options.producer_id = producer_id;
    options.producer_epoch = producer_epoch;
    options.base_sequence = -1;
    options.transactional = true;
    options.control = true;
    Record record;
    record.key = end_txn_marker_key(marker.type);
    record.value = end_txn_marker_value(marker.coordinator_epoch);
    return build_batch(options, std::span<const Record>(&record, 1));
}

std::optional<EndTxnMarker> parse_end_txn_marker(ByteSpan batch) {
    auto records = decode_records(batch);
    if (records.empty()) return std::nullopt;
    const auto& r = records.front();
    // ControlRecordType.parse: keys shorter than version and type are invalid.
    if (!r.key || r.key->size() < 4) throw wire::DecodeError("control record key too short");
    if (get16(*r.key, 0) < 0) throw wire::DecodeError("negative control record key version");
    const auto type = get16(*r.key, 2);
    if (type != static_cast<std::int16_t>(ControlRecordType::abort) &&
        type != static_cast<std::int16_t>(ControlRecordType::commit))
        return std::nullopt;
    // EndTransactionMarker.deserializeValue: newer value versions are read as version 0.
    if (!r.value || r.value->size() < 6) throw wire::DecodeError("end transaction marker value too short");
    EndTxnMarker marker;
    marker.type = static_cast<ControlRecordType>(type);
    const auto& v = *r.value;
    marker.coordinator_epoch = static_cast<std::int32_t>((std::uint32_t{v[2]} << 24) | (std::uint32_t{v[3]} << 16) |
                                                         (std::uint32_t{v[4]} << 8) | std::uint32_t{v[5]});
    return marker;
}

}  // namespace weir::records
