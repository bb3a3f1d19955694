#include "coordinator/txn/records.h"

#include <map>
#include <vector>

#include "messages/transaction_coordinator_records.h"
#include "protocol/wire/writer.h"

namespace weir::coordinator::txn {

namespace {

constexpr std::int16_t kKeyVersion = 0;
// transaction.version below 2: the highest non-flexible version.
constexpr std::int16_t kValueVersion = 0;

}  // namespace

wire::Bytes txn_log_key(std::string_view transactional_id) {
    msg::TransactionLogKey k;
    k.transactional_id = transactional_id;
    return runtime::encode_versioned(k, kKeyVersion);
}

wire::Bytes txn_log_value(const TxnTransit& transit) {
    msg::TransactionLogValue v;
    v.producer_id = transit.producer_id;
    v.producer_epoch = transit.producer_epoch;
    v.transaction_timeout_ms = transit.timeout_ms;
    v.transaction_status = static_cast<std::int8_t>(transit.state);
    v.transaction_last_update_timestamp_ms = transit.last_update_timestamp;
    v.transaction_start_timestamp_ms = transit.start_timestamp;
    if (transit.state == TxnState::empty) {
        v.transaction_partitions = std::nullopt;
    } else {
        // Grouped by topic, partitions in order.
        std::vector<msg::TransactionLogValue::PartitionsSchema> topics;
        for (const auto& tp : transit.partitions) {
            if (topics.empty() || topics.back().topic != tp.topic) topics.emplace_back().topic = tp.topic;
            topics.back().partition_ids.push_back(tp.partition);
        }
        v.transaction_partitions = std::move(topics);
    }
    return runtime::encode_versioned(v, kValueVersion);
}

std::optional<std::string> parse_txn_log_key(wire::ByteSpan key) {
    wire::Reader r(key);
    auto version = r.int16();
    if (version != kKeyVersion) return std::nullopt;
    return msg::TransactionLogKey::decode(r, version).transactional_id;
}

TxnTransit parse_txn_log_value(wire::ByteSpan value) {
    wire::Reader r(value);
    auto version = r.int16();
    if (version < msg::TransactionLogValue::min_version || version > msg::TransactionLogValue::max_version)
        throw wire::DecodeError("unknown transaction log value version " + std::to_string(version));
    auto v = msg::TransactionLogValue::decode(r, version);
    auto state = state_from_id(v.transaction_status);
    if (!state) throw wire::DecodeError("unknown transaction state " + std::to_string(v.transaction_status));
    TxnTransit t;
    t.producer_id = v.producer_id;
    t.previous_producer_id = v.previous_producer_id;
    t.producer_epoch = v.producer_epoch;
    t.timeout_ms = v.transaction_timeout_ms;
    t.state = *state;
    t.start_timestamp = v.transaction_start_timestamp_ms;
    t.last_update_timestamp = v.transaction_last_update_timestamp_ms;
    if (*state != TxnState::empty && v.transaction_partitions) {
        for (const auto& topic : *v.transaction_partitions)
            for (auto p : topic.partition_ids) t.partitions.insert(TopicPartition{topic.topic, p});
    }
    return t;
}

}  // namespace weir::coordinator::txn
