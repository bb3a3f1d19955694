// Transactions on a partition (Kafka's ProducerStateManager, UnifiedLog and
// LocalLog): transactional batches open a transaction, markers end it with
// the epoch and coordinator epoch checks, the last stable offset holds at the
// first unstable transaction until the high watermark passes its marker,
// ABORT markers enter the transaction index, read_committed reads stop at
// the LSO and report the aborted transactions they overlap, and all of it is
// rebuilt after a restart, clean or not.
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <optional>

#include "broker/partitions/producer_state.h"
#include "broker/partitions/replica_manager.h"
#include "broker/partitions/test/local_replicas.h"
#include "broker/storage/log_names.h"
#include "broker/storage/producer_snapshot_file.h"
#include "broker/storage/test/storage_test_util.h"
#include "broker/storage/txn_index.h"
#include "protocol/records/control_record.h"

namespace weir::partitions {
namespace {

using test::single_node_leader;

using test::kLocal;
constexpr std::int32_t kOther = 2;
constexpr std::int64_t kTxnPid = 1000;
constexpr std::int64_t kPid2 = 2000;

// Markers carry the wall clock; data far older would roll a segment by time.
std::int64_t now_ms() {
    using namespace std::chrono;
    return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

wire::Bytes txn_batch(std::int64_t pid, std::int32_t first_seq, int count, std::int16_t epoch = 0,
                      bool transactional = true) {
    records::BatchBuilderOptions options;
    options.base_timestamp = now_ms();
    options.producer_id = pid;
    options.producer_epoch = epoch;
    options.base_sequence = first_seq;
    options.transactional = transactional;
    std::vector<records::Record> recs;
    for (int i = 0; i < count; ++i) {
        records::Record r;
        r.offset_delta = i;
        r.key = wire::Bytes{static_cast<std::uint8_t>('k'), static_cast<std::uint8_t>('0' + i)};
        r.value = wire::Bytes(8, static_cast<std::uint8_t>('a' + i));
        recs.push_back(std::move(r));
    }
    return records::build_batch(options, recs);
}

// ---- the producer state alone ----

records::BatchHeader header(std::int64_t pid, std::int16_t epoch, std::int64_t offset, int count, bool transactional,
                            std::int32_t first_seq = 0) {
    records::BatchHeader h;
    h.base_offset = offset;
    h.last_offset_delta = count - 1;
    h.record_count = count;
    h.producer_id = pid;
    h.producer_epoch = epoch;
    h.base_sequence = first_seq;
    h.max_timestamp = 1000 + offset;
    if (transactional) h.attributes |= 0x10;
    return h;
}

ProducerBatchView marker(std::int64_t pid, std::int16_t epoch, std::int64_t offset, bool commit,
                         std::int32_t coordinator_epoch = 0) {
    auto h = header(pid, epoch, offset, 1, true, -1);
    h.attributes |= 0x20;
    return {h, records::EndTxnMarker{commit ? records::ControlRecordType::commit : records::ControlRecordType::abort,
                                     coordinator_epoch}};
}

struct TxnStateTest : ::testing::Test {
    ProducerStateManager state{TopicPartition{"t", 0}};

    ProducerAppend data(std::int64_t pid, std::int16_t epoch, std::int64_t offset, int count, bool transactional,
                        std::int32_t first_seq, AppendOrigin origin = AppendOrigin::client) {
        std::vector<ProducerBatchView> views{{header(pid, epoch, offset, count, transactional, first_seq), {}}};
        auto r = state.prepare(views, origin);
        if (r.error == ErrorCode::none) state.commit(r);
        return r;
    }
    std::pair<ErrorCode, std::vector<CompletedTxn>> end(const ProducerBatchView& m,
                                                        AppendOrigin origin = AppendOrigin::coordinator) {
        std::vector<ProducerBatchView> views{m};
        auto r = state.prepare(views, origin);
        if (r.error != ErrorCode::none) return {r.error, {}};
        return {ErrorCode::none, state.commit(r)};
    }
};

TEST_F(TxnStateTest, ATransactionalBatchOpensATransactionAndAMarkerEndsIt) {
    ASSERT_EQ(data(kTxnPid, 0, 5, 2, true, 0).error, ErrorCode::none);
    ASSERT_EQ(data(kTxnPid, 0, 7, 1, true, 2).error, ErrorCode::none);
    EXPECT_EQ(state.find(kTxnPid)->current_txn_first_offset, 5);
    EXPECT_EQ(state.first_unstable_offset(), 5);
    EXPECT_EQ(state.first_undecided_offset(), 5);

    auto [error, completed] = end(marker(kTxnPid, 0, 8, false, 3));
    ASSERT_EQ(error, ErrorCode::none);
    ASSERT_EQ(completed.size(), 1u);
    EXPECT_EQ(completed[0], (CompletedTxn{kTxnPid, 5, 8, true, 9}));
    EXPECT_EQ(state.find(kTxnPid)->current_txn_first_offset, -1);
    EXPECT_EQ(state.find(kTxnPid)->coordinator_epoch, 3);
    // Decided, but unstable until the high watermark passes the marker.
    EXPECT_FALSE(state.first_undecided_offset());
    EXPECT_EQ(state.first_unstable_offset(), 5);
    state.on_high_watermark(8);
    EXPECT_EQ(state.first_unstable_offset(), 5);
    state.on_high_watermark(9);
    EXPECT_FALSE(state.first_unstable_offset());
}

TEST_F(TxnStateTest, AMarkerWithoutDataHereCompletesNothing) {
    auto [error, completed] = end(marker(kTxnPid, 0, 0, true));
    EXPECT_EQ(error, ErrorCode::none);
    EXPECT_TRUE(completed.empty());
    EXPECT_FALSE(state.first_unstable_offset());
}

TEST_F(TxnStateTest, TheLastStableOffsetOfACompletedTransactionIsTheNextOpenOneOfAnotherProducer) {
    ASSERT_EQ(data(kTxnPid, 0, 0, 1, true, 0).error, ErrorCode::none);
    ASSERT_EQ(data(kPid2, 0, 1, 1, true, 0).error, ErrorCode::none);
    auto [error, completed] = end(marker(kTxnPid, 0, 2, false));
    ASSERT_EQ(error, ErrorCode::none);
    ASSERT_EQ(completed.size(), 1u);
    EXPECT_EQ(completed[0].last_stable_offset, 1);
    state.on_high_watermark(3);
    EXPECT_EQ(state.first_unstable_offset(), 1);
}

TEST_F(TxnStateTest, AnOlderProducerEpochOnAMarkerIsInvalidProducerEpoch) {
    ASSERT_EQ(data(kTxnPid, 1, 0, 1, true, 0).error, ErrorCode::none);
    EXPECT_EQ(end(marker(kTxnPid, 0, 1, true)).first, ErrorCode::invalid_producer_epoch);
    EXPECT_EQ(state.find(kTxnPid)->current_txn_first_offset, 0);
    // Replication takes it (the leader did).
    EXPECT_EQ(end(marker(kTxnPid, 0, 1, true), AppendOrigin::replication).first, ErrorCode::none);
}

TEST_F(TxnStateTest, ANewerProducerEpochOnAMarkerBumpsTheEntry) {
    ASSERT_EQ(data(kTxnPid, 0, 0, 2, true, 0).error, ErrorCode::none);
    auto [error, completed] = end(marker(kTxnPid, 1, 2, false));
    ASSERT_EQ(error, ErrorCode::none);
    EXPECT_EQ(completed.size(), 1u);
    EXPECT_EQ(state.find(kTxnPid)->epoch, 1);
    EXPECT_TRUE(state.find(kTxnPid)->batches.empty());
}

TEST_F(TxnStateTest, AnOlderCoordinatorEpochIsFenced) {
    ASSERT_EQ(data(kTxnPid, 0, 0, 1, true, 0).error, ErrorCode::none);
    ASSERT_EQ(end(marker(kTxnPid, 0, 1, true, 5)).first, ErrorCode::none);
    ASSERT_EQ(data(kTxnPid, 0, 2, 1, true, 1).error, ErrorCode::none);
    EXPECT_EQ(end(marker(kTxnPid, 0, 3, true, 4)).first, ErrorCode::transaction_coordinator_fenced);
    EXPECT_EQ(state.find(kTxnPid)->current_txn_first_offset, 2);
    EXPECT_EQ(end(marker(kTxnPid, 0, 3, true, 5)).first, ErrorCode::none);
}

TEST_F(TxnStateTest, APlainBatchInsideATransactionIsInvalidTxnState) {
    ASSERT_EQ(data(kTxnPid, 0, 0, 1, true, 0).error, ErrorCode::none);
    EXPECT_EQ(data(kTxnPid, 0, 1, 1, false, 1).error, ErrorCode::invalid_txn_state);
}

TEST_F(TxnStateTest, OpenTransactionsSurviveASnapshotAndHoldOffExpiry) {
    ASSERT_EQ(data(kTxnPid, 0, 4, 1, true, 0).error, ErrorCode::none);
    ASSERT_EQ(data(kPid2, 0, 5, 1, false, 0).error, ErrorCode::none);
    auto snapshot = state.to_snapshot();
    ProducerStateManager reloaded{TopicPartition{"t", 0}};
    reloaded.load_snapshot(snapshot);
    EXPECT_EQ(reloaded.first_unstable_offset(), 4);
    EXPECT_EQ(reloaded.ongoing_transactions().at(4), kTxnPid);
    reloaded.remove_expired(1'000'000, 1);
    EXPECT_NE(reloaded.find(kTxnPid), nullptr);
    EXPECT_EQ(reloaded.find(kPid2), nullptr);
}

// ---- through a Partition ----

struct TransactionsTest : ::testing::Test {
    storage::test::TempDir tmp;
    boost::asio::io_context io;
    std::optional<test::LocalReplicas> local;
    TopicPartition tp{"t", 0};
    LogConfig config;

    void SetUp() override { open(); }
    void open() {
        local.emplace(
            io.get_executor(), std::vector{tmp.path()}, [this](const std::string&) { return config; }, kLocal);
    }
    std::shared_ptr<Partition> lead(std::int32_t epoch = 0) {
        return local->replicas().apply(tp, single_node_leader(kLocal, epoch));
    }
    static AppendResult append(Partition& p, std::int64_t pid, std::int32_t first_seq, int count,
                               bool transactional = true) {
        auto batch = txn_batch(pid, first_seq, count, 0, transactional);
        return p.append(batch);
    }
    std::filesystem::path dir() const { return tmp.path() / "t-0"; }
    // What a kill leaves: no snapshot at the log end, no clean-shutdown marker.
    void crash_and_reopen() {
        local.reset();
        auto snapshots = storage::list_producer_snapshots(dir());
        if (!snapshots.empty()) storage::delete_producer_snapshot(dir(), snapshots.back());
        std::filesystem::remove(tmp.path() / std::string(storage::kCleanShutdownFile));
        open();
    }
    static std::vector<std::int64_t> offsets_of(wire::ByteSpan records) {
        std::vector<std::int64_t> out;
        for (auto batch : records::split_batches(records, false)) {
            auto h = records::parse_batch_header(batch);
            for (auto o = h.base_offset; o <= h.last_offset(); ++o) out.push_back(o);
        }
        return out;
    }
    static ReadResult read_committed(const Partition& p, std::int64_t offset) {
        ReadOptions options;
        options.isolation = FetchIsolation::txn_committed;
        return p.read(offset, options);
    }
};

TEST_F(TransactionsTest, TheLastStableOffsetHoldsAtTheFirstOpenTransaction) {
    auto p = lead();
    auto plain = storage::test::make_batch(2, 16, now_ms());
    ASSERT_EQ(p->append(plain).error, ErrorCode::none);
    EXPECT_EQ(p->last_stable_offset(), 2);
    ASSERT_EQ(append(*p, kTxnPid, 0, 3).base_offset, 2);
    append(*p, kPid2, 0, 1, false);
    EXPECT_EQ(p->high_watermark(), 6);
    EXPECT_EQ(p->last_stable_offset(), 2);
    auto m = p->append_txn_marker(kTxnPid, 0, 0, true);
    ASSERT_EQ(m.error, ErrorCode::none) << m.error_message;
    EXPECT_EQ(m.base_offset, 6);
    EXPECT_EQ(p->last_stable_offset(), 7);
    EXPECT_EQ(p->high_watermark(), 7);
}

TEST_F(TransactionsTest, TheProducePathAcceptsTransactionalBatches) {
    auto p = lead();
    ProduceLimits limits;
    limits.produce_version = 9;
    auto batch = txn_batch(kTxnPid, 0, 2);
    auto r = local->replicas().produce(tp, batch, limits);
    ASSERT_EQ(r.error, ErrorCode::none) << r.error_message;
    EXPECT_EQ(p->last_stable_offset(), 0);
    // A plain batch of the same producer while its transaction is open.
    auto plain = txn_batch(kTxnPid, 2, 1, 0, false);
    EXPECT_EQ(local->replicas().produce(tp, plain, limits).error, ErrorCode::invalid_txn_state);
    EXPECT_EQ(p->log_end_offset(), 2);
}

TEST_F(TransactionsTest, AMarkerIsAControlBatchWithTheMarkerRecord) {
    auto p = lead();
    append(*p, kTxnPid, 0, 1);
    ASSERT_EQ(p->append_txn_marker(kTxnPid, 0, 7, false).error, ErrorCode::none);
    auto read = p->read(1);
    auto batches = records::split_batches(read.records.bytes(), false);
    ASSERT_EQ(batches.size(), 1u);
    auto h = records::parse_batch_header(batches[0]);
    EXPECT_TRUE(h.is_control());
    EXPECT_TRUE(h.is_transactional());
    EXPECT_EQ(h.base_sequence, -1);
    EXPECT_EQ(h.producer_id, kTxnPid);
    EXPECT_EQ(h.record_count, 1);
    EXPECT_TRUE(records::crc_valid(batches[0]));
    auto recs = records::decode_records(batches[0]);
    EXPECT_EQ(*recs[0].key, (wire::Bytes{0, 0, 0, 0}));
    EXPECT_EQ(*recs[0].value, (wire::Bytes{0, 0, 0, 0, 0, 7}));
}

TEST_F(TransactionsTest, MarkerFencingAsKafka) {
    auto p = lead();
    auto batch = txn_batch(kTxnPid, 0, 1, 2);
    ASSERT_EQ(p->append(batch).error, ErrorCode::none);
    EXPECT_EQ(p->append_txn_marker(kTxnPid, 1, 0, true).error, ErrorCode::invalid_producer_epoch);
    ASSERT_EQ(p->append_txn_marker(kTxnPid, 2, 4, true).error, ErrorCode::none);
    auto again = txn_batch(kTxnPid, 1, 1, 2);
    ASSERT_EQ(p->append(again).error, ErrorCode::none);
    EXPECT_EQ(p->append_txn_marker(kTxnPid, 2, 3, false).error, ErrorCode::transaction_coordinator_fenced);
    EXPECT_EQ(p->log_end_offset(), 3);
    EXPECT_EQ(p->last_stable_offset(), 2);
}

TEST_F(TransactionsTest, AFollowerKeepsTheLsoBelowTheLeadersHighWatermark) {
    auto p = local->replicas().apply(tp, {kOther, 0, {kOther, kLocal}, {kOther, kLocal}});
    auto data = txn_batch(kTxnPid, 0, 2);
    records::set_base_offset(data, 0);
    auto m = records::build_end_txn_marker_batch(kTxnPid, 0, {records::ControlRecordType::abort, 0}, now_ms());
    records::set_base_offset(m, 2);
    ASSERT_EQ(p->append_as_follower(data).error, ErrorCode::none);
    ASSERT_EQ(p->append_as_follower(m).error, ErrorCode::none);
    p->follow_high_watermark(2);
    EXPECT_EQ(p->last_stable_offset(), 0);  // decided, the marker not yet below the high watermark
    p->follow_high_watermark(3);
    EXPECT_EQ(p->last_stable_offset(), 3);
    // The follower wrote the abort to its own index.
    ASSERT_TRUE(std::filesystem::exists(dir() / storage::segment_file_name(0, storage::kTxnIndexSuffix)));
}

TEST_F(TransactionsTest, TheLeaderHoldsTheLsoUntilFollowersHaveTheMarker) {
    auto p = local->replicas().apply(tp, {kLocal, 0, {kLocal, kOther}, {kLocal, kOther}});
    ASSERT_EQ(append(*p, kTxnPid, 0, 2).error, ErrorCode::none);
    ASSERT_TRUE(p->update_follower_position(kOther, 2));
    ASSERT_EQ(p->append_txn_marker(kTxnPid, 0, 0, true).error, ErrorCode::none);
    EXPECT_EQ(p->high_watermark(), 2);
    EXPECT_EQ(p->last_stable_offset(), 0);
    ASSERT_TRUE(p->update_follower_position(kOther, 3));
    EXPECT_EQ(p->last_stable_offset(), 3);
}

TEST_F(TransactionsTest, ReadCommittedStopsAtTheLsoAndReportsAbortedTransactions) {
    auto p = lead();
    append(*p, kTxnPid, 0, 2);                                                     // 0-1 aborted
    ASSERT_EQ(p->append_txn_marker(kTxnPid, 0, 0, false).error, ErrorCode::none);  // 2
    append(*p, kPid2, 0, 1, false);                                                // 3
    append(*p, kTxnPid, 2, 1);                                                     // 4 open
    append(*p, kPid2, 1, 1, false);                                                // 5
    EXPECT_EQ(p->last_stable_offset(), 4);

    auto r = read_committed(*p, 0);
    ASSERT_EQ(r.error, ErrorCode::none);
    EXPECT_EQ(offsets_of(r.records.bytes()), (std::vector<std::int64_t>{0, 1, 2, 3}));
    ASSERT_TRUE(r.aborted_transactions);
    EXPECT_EQ(*r.aborted_transactions, (std::vector<AbortedTransaction>{{kTxnPid, 0}}));
    // Past the aborted range: nothing to report, but a list all the same.
    auto after = read_committed(*p, 3);
    ASSERT_TRUE(after.aborted_transactions);
    EXPECT_TRUE(after.aborted_transactions->empty());
    EXPECT_EQ(offsets_of(after.records.bytes()), (std::vector<std::int64_t>{3}));
    // read_uncommitted gets everything and no list.
    auto uncommitted = p->read(0);
    EXPECT_FALSE(uncommitted.aborted_transactions);
    EXPECT_EQ(offsets_of(uncommitted.records.bytes()).size(), 6u);

    ASSERT_EQ(p->append_txn_marker(kTxnPid, 0, 0, false).error, ErrorCode::none);  // 6
    auto all = read_committed(*p, 0);
    EXPECT_EQ(offsets_of(all.records.bytes()).size(), 7u);
    EXPECT_EQ(*all.aborted_transactions, (std::vector<AbortedTransaction>{{kTxnPid, 0}, {kTxnPid, 4}}));
}

TEST_F(TransactionsTest, AbortedTransactionsAreFoundAcrossSegments) {
    config.segment_bytes = 300;
    auto p = lead();
    append(*p, kTxnPid, 0, 2);
    for (int i = 0; i < 4; ++i) append(*p, kPid2, i, 1, false);
    ASSERT_EQ(p->append_txn_marker(kTxnPid, 0, 0, false).error, ErrorCode::none);
    ASSERT_GT(p->segment_base_offsets().size(), 1u);
    auto r = read_committed(*p, 0);
    ASSERT_TRUE(r.aborted_transactions);
    // The first segment's records overlap the transaction whose marker is in a later one.
    EXPECT_EQ(*r.aborted_transactions, (std::vector<AbortedTransaction>{{kTxnPid, 0}}));
}

TEST_F(TransactionsTest, AnOpenTransactionSurvivesACleanRestart) {
    {
        auto p = lead();
        append(*p, kPid2, 0, 1, false);
        append(*p, kTxnPid, 0, 2);
    }
    local.reset();
    open();
    auto p = lead(1);
    EXPECT_EQ(p->producer_state().find(kTxnPid)->current_txn_first_offset, 1);
    EXPECT_EQ(p->last_stable_offset(), 1);
    ASSERT_EQ(p->append_txn_marker(kTxnPid, 0, 0, true).error, ErrorCode::none);
    EXPECT_EQ(p->last_stable_offset(), 4);
}

TEST_F(TransactionsTest, AfterACrashOpenTransactionsAndTheTxnIndexAreRebuiltFromTheLog) {
    {
        auto p = lead();
        append(*p, kTxnPid, 0, 2);
        ASSERT_EQ(p->append_txn_marker(kTxnPid, 0, 0, false).error, ErrorCode::none);
        append(*p, kPid2, 0, 1);
    }
    const auto txnindex = dir() / storage::segment_file_name(0, storage::kTxnIndexSuffix);
    ASSERT_TRUE(std::filesystem::exists(txnindex));
    EXPECT_EQ(std::filesystem::file_size(txnindex), storage::TxnIndex::kEntrySize);
    std::filesystem::remove(txnindex);
    crash_and_reopen();
    auto p = lead(1);
    EXPECT_EQ(p->producer_state().find(kPid2)->current_txn_first_offset, 3);
    EXPECT_EQ(p->last_stable_offset(), 3);
    ASSERT_TRUE(std::filesystem::exists(txnindex));
    EXPECT_EQ(std::filesystem::file_size(txnindex), storage::TxnIndex::kEntrySize);
    auto r = read_committed(*p, 0);
    EXPECT_EQ(*r.aborted_transactions, (std::vector<AbortedTransaction>{{kTxnPid, 0}}));
}

TEST_F(TransactionsTest, ACrashDoesNotDuplicateTxnIndexEntries) {
    {
        auto p = lead();
        append(*p, kTxnPid, 0, 2);
        ASSERT_EQ(p->append_txn_marker(kTxnPid, 0, 0, false).error, ErrorCode::none);
    }
    crash_and_reopen();
    auto p = lead(1);
    const auto txnindex = dir() / storage::segment_file_name(0, storage::kTxnIndexSuffix);
    EXPECT_EQ(std::filesystem::file_size(txnindex), storage::TxnIndex::kEntrySize);
    EXPECT_EQ(read_committed(*p, 0).aborted_transactions->size(), 1u);
}

TEST_F(TransactionsTest, TruncationForgetsMarkersAndReopensTheTransaction) {
    auto p = local->replicas().apply(tp, {kOther, 0, {kOther, kLocal}, {kOther, kLocal}});
    auto data = txn_batch(kTxnPid, 0, 2);
    records::set_base_offset(data, 0);
    auto m = records::build_end_txn_marker_batch(kTxnPid, 0, {records::ControlRecordType::abort, 0}, now_ms());
    records::set_base_offset(m, 2);
    ASSERT_EQ(p->append_as_follower(data).error, ErrorCode::none);
    ASSERT_EQ(p->append_as_follower(m).error, ErrorCode::none);
    const auto txnindex = dir() / storage::segment_file_name(0, storage::kTxnIndexSuffix);
    ASSERT_EQ(std::filesystem::file_size(txnindex), storage::TxnIndex::kEntrySize);
    p->truncate_to(2);
    EXPECT_EQ(std::filesystem::file_size(txnindex), 0u);
    EXPECT_EQ(p->producer_state().find(kTxnPid)->current_txn_first_offset, 0);
    p->follow_high_watermark(2);
    EXPECT_EQ(p->last_stable_offset(), 0);
}

TEST_F(TransactionsTest, ARetentionDeletedSegmentTakesItsTxnIndex) {
    config.segment_bytes = 300;
    config.retention_bytes = 0;
    auto p = lead();
    append(*p, kTxnPid, 0, 2);
    ASSERT_EQ(p->append_txn_marker(kTxnPid, 0, 0, false).error, ErrorCode::none);
    for (int i = 0; i < 6; ++i) append(*p, kPid2, i, 1, false);
    const auto txnindex = dir() / storage::segment_file_name(0, storage::kTxnIndexSuffix);
    ASSERT_TRUE(std::filesystem::exists(txnindex));
    ASSERT_GT(local->enforce_retention(), 0u);
    EXPECT_FALSE(std::filesystem::exists(txnindex));
}

}  // namespace
}  // namespace weir::partitions
