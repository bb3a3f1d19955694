// The producer checks of Kafka's ProducerAppendInfo and ProducerStateEntry:
// duplicates of the last five batches, sequence gaps, epochs, wrap-around,
// and the snapshot round trip.
#include "broker/partitions/producer_state.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace weir::partitions {
namespace {

constexpr std::int64_t kProducer = 42;
constexpr std::int32_t kMaxSeq = std::numeric_limits<std::int32_t>::max();

records::BatchHeader batch(std::int16_t epoch, std::int32_t first_seq, std::int32_t count, std::int64_t offset,
                           std::int64_t pid = kProducer) {
    records::BatchHeader h;
    h.base_offset = offset;
    h.last_offset_delta = count - 1;
    h.record_count = count;
    h.producer_id = pid;
    h.producer_epoch = epoch;
    h.base_sequence = first_seq;
    h.max_timestamp = 1000 + offset;
    return h;
}

struct ProducerStateTest : ::testing::Test {
    ProducerStateManager state{TopicPartition{"t", 0}};
    std::int64_t next_offset = 0;

    // Appends as a leader would; the check's outcome.
    ProducerAppend append(std::int16_t epoch, std::int32_t first_seq, std::int32_t count = 1,
                          AppendOrigin origin = AppendOrigin::client) {
        std::vector<records::BatchHeader> headers{batch(epoch, first_seq, count, next_offset)};
        auto result = state.prepare(headers, origin);
        if (result.error == ErrorCode::none && !result.duplicate) {
            state.commit(result);
            next_offset += count;
        }
        return result;
    }
};

TEST_F(ProducerStateTest, AnUnknownProducerMayStartAtAnySequence) {
    EXPECT_EQ(append(0, 17, 3).error, ErrorCode::none);
    ASSERT_NE(state.find(kProducer), nullptr);
    EXPECT_EQ(state.find(kProducer)->last_sequence(), 19);
    EXPECT_EQ(append(0, 20).error, ErrorCode::none);
}

TEST_F(ProducerStateTest, AGapIsOutOfOrder) {
    ASSERT_EQ(append(0, 0, 5).error, ErrorCode::none);
    auto r = append(0, 6);
    EXPECT_EQ(r.error, ErrorCode::out_of_order_sequence_number);
    EXPECT_NE(r.error_message.find("Out of order sequence number"), std::string::npos);
    EXPECT_EQ(next_offset, 5);
}

TEST_F(ProducerStateTest, ARetryOfOneOfTheLastFiveBatchesIsADuplicateWithItsOffsets) {
    for (int i = 0; i < 6; ++i) ASSERT_EQ(append(0, i * 2, 2).error, ErrorCode::none);
    // Batches 1..5 (sequences 2..11, offsets 2..11) are remembered.
    auto r = append(0, 4, 2);
    ASSERT_TRUE(r.duplicate);
    EXPECT_EQ(r.duplicate->first_offset, 4);
    EXPECT_EQ(r.duplicate->last_offset, 5);
    EXPECT_TRUE(r.updated.empty());
    // The oldest (sequences 0-1) has been forgotten: out of sequence now.
    auto forgotten = append(0, 0, 2);
    EXPECT_FALSE(forgotten.duplicate);
    EXPECT_EQ(forgotten.error, ErrorCode::out_of_order_sequence_number);
    // Same first sequence, other length: no duplicate.
    EXPECT_EQ(append(0, 4, 3).error, ErrorCode::out_of_order_sequence_number);
}

TEST_F(ProducerStateTest, AnOlderEpochIsRefused) {
    ASSERT_EQ(append(3, 0).error, ErrorCode::none);
    EXPECT_EQ(append(2, 1).error, ErrorCode::invalid_producer_epoch);
}

TEST_F(ProducerStateTest, ANewEpochStartsAtSequenceZero) {
    ASSERT_EQ(append(0, 0, 3).error, ErrorCode::none);
    EXPECT_EQ(append(1, 3).error, ErrorCode::out_of_order_sequence_number);
    ASSERT_EQ(append(1, 0).error, ErrorCode::none);
    EXPECT_EQ(state.find(kProducer)->epoch, 1);
    EXPECT_EQ(state.find(kProducer)->batches.size(), 1u);  // the old epoch's batches are gone
    // A retry of the old epoch's batch is no duplicate any more: fenced.
    EXPECT_EQ(append(0, 0, 3).error, ErrorCode::invalid_producer_epoch);
}

TEST_F(ProducerStateTest, SequencesWrapAroundAtIntMax) {
    EXPECT_EQ(increment_sequence(kMaxSeq - 1, 3), 1);
    EXPECT_EQ(decrement_sequence(1, 3), kMaxSeq - 1);
    ASSERT_EQ(append(0, kMaxSeq - 2, 3).error, ErrorCode::none);
    EXPECT_EQ(state.find(kProducer)->last_sequence(), kMaxSeq);
    ASSERT_EQ(append(0, 0, 2).error, ErrorCode::none);
    // A batch across the wrap.
    ASSERT_EQ(append(0, 2, 1).error, ErrorCode::none);
    ProducerStateManager other{TopicPartition{"t", 1}};
    std::vector<records::BatchHeader> across{batch(0, kMaxSeq - 1, 4, 0)};
    other.commit(other.prepare(across, AppendOrigin::client));
    EXPECT_EQ(other.find(kProducer)->last_sequence(), 1);
    std::vector<records::BatchHeader> next{batch(0, 2, 1, 4)};
    EXPECT_EQ(other.prepare(next, AppendOrigin::client).error, ErrorCode::none);
}

TEST_F(ProducerStateTest, ReplicationChecksNoSequencesAndTakesOlderEpochs) {
    ASSERT_EQ(append(2, 0).error, ErrorCode::none);
    EXPECT_EQ(append(2, 7, 1, AppendOrigin::replication).error, ErrorCode::none);
    EXPECT_EQ(append(1, 9, 1, AppendOrigin::replication).error, ErrorCode::none);
    EXPECT_EQ(state.find(kProducer)->epoch, 1);
}

TEST_F(ProducerStateTest, SeveralBatchesOfOneAppendFollowEachOther) {
    std::vector<records::BatchHeader> headers{batch(0, 0, 2, 0), batch(0, 2, 2, 2), batch(0, 4, 1, 4, 7)};
    auto r = state.prepare(headers, AppendOrigin::client);
    ASSERT_EQ(r.error, ErrorCode::none);
    state.commit(r);
    EXPECT_EQ(state.find(kProducer)->batches.size(), 2u);
    EXPECT_EQ(state.find(7)->last_sequence(), 4);
    std::vector<records::BatchHeader> gap{batch(0, 4, 1, 5), batch(0, 6, 1, 6)};
    EXPECT_EQ(state.prepare(gap, AppendOrigin::client).error, ErrorCode::out_of_order_sequence_number);
}

TEST_F(ProducerStateTest, BatchesWithoutAProducerAreNotTracked) {
    std::vector<records::BatchHeader> headers{batch(-1, -1, 3, 0, -1)};
    auto r = state.prepare(headers, AppendOrigin::client);
    EXPECT_EQ(r.error, ErrorCode::none);
    EXPECT_TRUE(r.updated.empty());
}

TEST_F(ProducerStateTest, IdleProducersExpire) {
    ASSERT_EQ(append(0, 0).error, ErrorCode::none);  // timestamp 1000
    state.remove_expired(1999, 1000);
    EXPECT_EQ(state.size(), 1u);
    state.remove_expired(2000, 1000);
    EXPECT_EQ(state.size(), 0u);
}

TEST_F(ProducerStateTest, ASnapshotKeepsTheLastBatchOfEachProducer) {
    ASSERT_EQ(append(0, 0, 2).error, ErrorCode::none);
    ASSERT_EQ(append(0, 2, 3).error, ErrorCode::none);
    auto entries = state.to_snapshot();
    ASSERT_EQ(entries.size(), 1u);
    EXPECT_EQ(entries[0].last_sequence, 4);
    EXPECT_EQ(entries[0].last_offset, 4);
    EXPECT_EQ(entries[0].offset_delta, 2);
    EXPECT_EQ(entries[0].timestamp, 1002);

    ProducerStateManager loaded{TopicPartition{"t", 0}};
    loaded.load_snapshot(storage::decode_producer_snapshot(storage::encode_producer_snapshot(entries)));
    std::vector<records::BatchHeader> retry{batch(0, 2, 3, 5)};
    auto r = loaded.prepare(retry, AppendOrigin::client);
    ASSERT_TRUE(r.duplicate);
    EXPECT_EQ(r.duplicate->first_offset, 2);
    std::vector<records::BatchHeader> next{batch(0, 5, 1, 5)};
    EXPECT_EQ(loaded.prepare(next, AppendOrigin::client).error, ErrorCode::none);
}

}  // namespace
}  // namespace weir::partitions
