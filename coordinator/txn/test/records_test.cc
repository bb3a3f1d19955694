// __transaction_state records byte for byte as Kafka's TransactionLog writes them.
#include "coordinator/txn/records.h"

#include <gtest/gtest.h>

#include "messages/transaction_coordinator_records.h"
#include "protocol/wire/writer.h"

namespace weir::coordinator::txn {
namespace {

void put16(wire::Bytes& b, std::int16_t v) {
    for (int i = 1; i >= 0; --i) b.push_back(static_cast<std::uint8_t>(static_cast<std::uint16_t>(v) >> (8 * i)));
}
void put32(wire::Bytes& b, std::int32_t v) {
    for (int i = 3; i >= 0; --i) b.push_back(static_cast<std::uint8_t>(static_cast<std::uint32_t>(v) >> (8 * i)));
}
void put64(wire::Bytes& b, std::int64_t v) {
    for (int i = 7; i >= 0; --i) b.push_back(static_cast<std::uint8_t>(static_cast<std::uint64_t>(v) >> (8 * i)));
}
void put_string(wire::Bytes& b, std::string_view s) {
    put16(b, static_cast<std::int16_t>(s.size()));
    b.insert(b.end(), s.begin(), s.end());
}

TEST(TxnRecordsTest, KeyIsVersionZeroWithTheTransactionalId) {
    wire::Bytes expected;
    put16(expected, 0);
    put_string(expected, "my-txn");
    EXPECT_EQ(txn_log_key("my-txn"), expected);
    EXPECT_EQ(parse_txn_log_key(expected), "my-txn");
}

TEST(TxnRecordsTest, OngoingValueMatchesKafkasVersionZeroLayout) {
    TxnTransit t;
    t.producer_id = 4000;
    t.producer_epoch = 7;
    t.timeout_ms = 60000;
    t.state = TxnState::ongoing;
    t.partitions = {{"a", 1}, {"a", 0}, {"b", 3}};
    t.start_timestamp = 1700000000000;
    t.last_update_timestamp = 1700000000500;

    wire::Bytes expected;
    put16(expected, 0);  // value version
    put64(expected, 4000);
    put16(expected, 7);
    put32(expected, 60000);
    expected.push_back(1);  // Ongoing
    put32(expected, 2);     // topics
    put_string(expected, "a");
    put32(expected, 2);
    put32(expected, 0);
    put32(expected, 1);
    put_string(expected, "b");
    put32(expected, 1);
    put32(expected, 3);
    put64(expected, 1700000000500);  // last update
    put64(expected, 1700000000000);  // start
    EXPECT_EQ(txn_log_value(t), expected);

    auto back = parse_txn_log_value(expected);
    EXPECT_EQ(back.producer_id, 4000);
    EXPECT_EQ(back.producer_epoch, 7);
    EXPECT_EQ(back.timeout_ms, 60000);
    EXPECT_EQ(back.state, TxnState::ongoing);
    EXPECT_EQ(back.partitions, t.partitions);
    EXPECT_EQ(back.start_timestamp, t.start_timestamp);
    EXPECT_EQ(back.last_update_timestamp, t.last_update_timestamp);
    EXPECT_EQ(back.previous_producer_id, kNoProducerId);  // not in v0
}

TEST(TxnRecordsTest, EmptyStateStoresANullPartitionList) {
    TxnTransit t;
    t.producer_id = 9;
    t.producer_epoch = 0;
    t.timeout_ms = 1000;
    t.state = TxnState::empty;
    t.start_timestamp = -1;
    t.last_update_timestamp = 5;
    wire::Bytes expected;
    put16(expected, 0);
    put64(expected, 9);
    put16(expected, 0);
    put32(expected, 1000);
    expected.push_back(0);
    put32(expected, -1);  // null array
    put64(expected, 5);
    put64(expected, -1);
    EXPECT_EQ(txn_log_value(t), expected);
    EXPECT_TRUE(parse_txn_log_value(expected).partitions.empty());
}

TEST(TxnRecordsTest, ReadsFlexibleVersionOneWithTaggedProducerIds) {
    msg::TransactionLogValue v;
    v.producer_id = 12;
    v.previous_producer_id = 11;
    v.next_producer_id = 13;
    v.producer_epoch = 2;
    v.transaction_timeout_ms = 100;
    v.transaction_status = static_cast<std::int8_t>(TxnState::prepare_commit);
    auto& topic = v.transaction_partitions->emplace_back();
    topic.topic = "t";
    topic.partition_ids = {4};
    v.transaction_last_update_timestamp_ms = 20;
    v.transaction_start_timestamp_ms = 10;
    v.client_transaction_version = 2;
    wire::Bytes bytes;
    wire::Writer w(bytes);
    w.int16(1);
    v.encode(w, 1);

    auto t = parse_txn_log_value(bytes);
    EXPECT_EQ(t.producer_id, 12);
    EXPECT_EQ(t.previous_producer_id, 11);
    EXPECT_EQ(t.state, TxnState::prepare_commit);
    EXPECT_EQ(t.partitions, (PartitionSet{{"t", 4}}));
}

TEST(TxnRecordsTest, UnknownVersionsAndStates) {
    wire::Bytes key;
    put16(key, 1);
    put_string(key, "x");
    EXPECT_FALSE(parse_txn_log_key(key).has_value());

    TxnTransit t;
    t.producer_id = 1;
    t.state = TxnState::empty;
    auto value = txn_log_value(t);
    value[2 + 8 + 2 + 4] = 9;  // status
    EXPECT_THROW(parse_txn_log_value(value), wire::DecodeError);
    value = txn_log_value(t);
    value[1] = 7;  // version 7
    EXPECT_THROW(parse_txn_log_value(value), wire::DecodeError);
}

TEST(TxnStateTest, NamesAndTransitionsAreKafkas) {
    EXPECT_EQ(state_name(TxnState::prepare_epoch_fence), "PrepareEpochFence");
    EXPECT_EQ(state_from_name("CompleteAbort"), TxnState::complete_abort);
    EXPECT_FALSE(state_from_name("completeabort").has_value());
    EXPECT_TRUE(valid_transition(TxnState::prepare_epoch_fence, TxnState::prepare_abort));
    EXPECT_FALSE(valid_transition(TxnState::empty, TxnState::prepare_commit));
    EXPECT_FALSE(valid_transition(TxnState::ongoing, TxnState::complete_commit));
    EXPECT_TRUE(expiration_allowed(TxnState::complete_commit));
    EXPECT_FALSE(expiration_allowed(TxnState::ongoing));
}

}  // namespace
}  // namespace weir::coordinator::txn
