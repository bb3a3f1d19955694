// End-transaction markers as Kafka's EndTransactionMarker and
// ControlRecordType write and read them.
#include "protocol/records/control_record.h"

#include <gtest/gtest.h>

namespace weir::records {
namespace {

Bytes control_batch(std::optional<Bytes> key, std::optional<Bytes> value) {
    BatchBuilderOptions options;
    options.producer_id = 9;
    options.producer_epoch = 2;
    options.transactional = true;
    options.control = true;
    Record r;
    r.key = std::move(key);
    r.value = std::move(value);
    return build_batch(options, std::span<const Record>(&r, 1));
}

TEST(EndTxnMarker, BatchAsKafkaWritesIt) {
    auto batch = build_end_txn_marker_batch(9, 2, {ControlRecordType::commit, 0x01020304}, 1234);
    auto h = parse_batch_header(batch);
    EXPECT_TRUE(h.is_control());
    EXPECT_TRUE(h.is_transactional());
    EXPECT_EQ(h.producer_id, 9);
    EXPECT_EQ(h.producer_epoch, 2);
    EXPECT_EQ(h.base_sequence, -1);
    EXPECT_EQ(h.record_count, 1);
    EXPECT_EQ(h.base_timestamp, 1234);
    EXPECT_TRUE(crc_valid(batch));
    auto recs = decode_records(batch);
    ASSERT_EQ(recs.size(), 1u);
    EXPECT_EQ(*recs[0].key, (Bytes{0, 0, 0, 1}));
    EXPECT_EQ(*recs[0].value, (Bytes{0, 0, 1, 2, 3, 4}));
    EXPECT_EQ(parse_end_txn_marker(batch), (EndTxnMarker{ControlRecordType::commit, 0x01020304}));
    auto abort = build_end_txn_marker_batch(9, 2, {ControlRecordType::abort, 7}, 1234);
    EXPECT_EQ(parse_end_txn_marker(abort), (EndTxnMarker{ControlRecordType::abort, 7}));
}

TEST(EndTxnMarker, NewerValueVersionsAreReadAsVersionZero) {
    auto batch = control_batch(Bytes{0, 0, 0, 0}, Bytes{0, 1, 0, 0, 0, 5, 0xff});
    EXPECT_EQ(parse_end_txn_marker(batch), (EndTxnMarker{ControlRecordType::abort, 5}));
}

TEST(EndTxnMarker, OtherControlRecordsAndEmptyBatchesHoldNoMarker) {
    EXPECT_FALSE(parse_end_txn_marker(control_batch(Bytes{0, 0, 0, 5}, Bytes{})));
    BatchBuilderOptions options;
    options.control = true;
    options.transactional = true;
    EXPECT_FALSE(parse_end_txn_marker(build_batch(options, {})));
}

TEST(EndTxnMarker, MalformedKeysAndValuesAreDecodeErrors) {
    EXPECT_THROW(parse_end_txn_marker(control_batch(Bytes{0, 0, 0}, Bytes{0, 0, 0, 0, 0, 1})), wire::DecodeError);
    EXPECT_THROW(parse_end_txn_marker(control_batch(std::nullopt, Bytes{0, 0, 0, 0, 0, 1})), wire::DecodeError);
    EXPECT_THROW(parse_end_txn_marker(control_batch(Bytes{0, 0, 0, 1}, Bytes{0, 0, 0})), wire::DecodeError);
    EXPECT_THROW(parse_end_txn_marker(control_batch(Bytes{0, 0, 0, 1}, std::nullopt)), wire::DecodeError);
}

}  // namespace
}  // namespace weir::records
