#pragma once
// A decoded Kafka message as JSON, field by field under Kafka's own field
// names (the generated visit_fields), so two brokers' answers can be compared
// and a difference named by its path. Record data is decoded: a batch's
// framing fields and each record's offset, timestamp, key and value.
#include <boost/json.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "protocol/records/record_batch.h"
#include "protocol/uuid.h"
#include "protocol/wire/records_data.h"

namespace weir::differential {

namespace json = boost::json;

template <typename T>
json::value to_json(const T& value, std::int16_t version);

inline json::value bytes_to_json(wire::ByteSpan b) {
    // Printable keys and values read as text; anything else as its size.
    std::string s(b.begin(), b.end());
    for (const char c : s)
        if (c < 32 || c > 126) return json::value(json::string("<" + std::to_string(b.size()) + " bytes>"));
    return json::value(json::string(s));
}

inline json::value records_to_json(const wire::RecordsData& data) {
    json::array batches;
    try {
        records::for_each_batch(data.bytes(), true, [&](const records::BatchHeader& h, wire::ByteSpan batch) {
            json::object b;
            b["BaseOffset"] = h.base_offset;
            b["LastOffsetDelta"] = h.last_offset_delta;
            b["PartitionLeaderEpoch"] = h.partition_leader_epoch;
            b["Attributes"] = h.attributes;
            b["BaseTimestamp"] = h.base_timestamp;
            b["MaxTimestamp"] = h.max_timestamp;
            b["ProducerId"] = h.producer_id;
            b["ProducerEpoch"] = h.producer_epoch;
            b["BaseSequence"] = h.base_sequence;
            json::array rs;
            for (const auto& r : records::decode_records(batch)) {
                json::object o;
                o["Offset"] = h.base_offset + r.offset_delta;
                o["Timestamp"] = h.base_timestamp + r.timestamp_delta;
                o["Key"] = r.key ? bytes_to_json(*r.key) : json::value(nullptr);
                o["Value"] = r.value ? bytes_to_json(*r.value) : json::value(nullptr);
                o["Headers"] = r.headers.size();
                rs.push_back(std::move(o));
            }
            b["Records"] = std::move(rs);
            batches.push_back(std::move(b));
        });
    } catch (const std::exception& e) {
        batches.push_back(json::string(std::string("<undecodable: ") + e.what() + ">"));
    }
    return batches;
}

template <typename T>
struct IsVector : std::false_type {};
template <typename T>
struct IsVector<std::vector<T>> : std::true_type {};
template <typename T>
struct IsOptional : std::false_type {};
template <typename T>
struct IsOptional<std::optional<T>> : std::true_type {};

template <typename T>
json::value to_json(const T& value, std::int16_t version) {
    if constexpr (std::is_same_v<T, bool>) {
        return json::value(value);
    } else if constexpr (std::is_integral_v<T> || std::is_floating_point_v<T>) {
        return json::value(value);
    } else if constexpr (std::is_same_v<T, std::string>) {
        return json::value(json::string(value));
    } else if constexpr (std::is_same_v<T, Uuid>) {
        return json::value(json::string(value.to_string()));
    } else if constexpr (std::is_same_v<T, wire::Bytes>) {
        return bytes_to_json(value);
    } else if constexpr (std::is_same_v<T, wire::RecordsData>) {
        return records_to_json(value);
    } else if constexpr (IsOptional<T>::value) {
        return value ? to_json(*value, version) : json::value(nullptr);
    } else if constexpr (IsVector<T>::value) {
        json::array out;
        for (const auto& e : value) out.push_back(to_json(e, version));
        return out;
    } else {
        json::object out;
        value.visit_fields([&](const char* name, const auto& field) { out[name] = to_json(field, version); }, version);
        return out;
    }
}

}  // namespace weir::differential
