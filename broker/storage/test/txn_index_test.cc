// Transaction indexes (Kafka's TransactionIndex): the 34-byte entry format,
// lazy creation, reopening (a torn tail cut), truncation with the log,
// collection across segments as read_committed fetches do, deletion with
// the segment, and the cleaner: aborted records never shadow committed ones,
// markers stay, and a cleaned segment keeps the entries of those it replaced.
#include "broker/storage/txn_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <string>

#include "broker/storage/cleaned_segment.h"
#include "broker/storage/log_cleaner_manager.h"
#include "broker/storage/partition_log.h"
#include "broker/storage/test/storage_test_util.h"
#include "protocol/records/control_record.h"

namespace weir::storage {
namespace {

using test::TempDir;

TEST(TxnIndexFile, EntriesAreKafkasAbortedTxnLayout) {
    std::uint8_t entry[TxnIndex::kEntrySize];
    TxnIndex::encode({0x0102030405060708, 10, 20, 21}, entry);
    const std::uint8_t expected[TxnIndex::kEntrySize] = {0,  0, 1, 2, 3, 4, 5, 6, 7,  8, 0, 0, 0, 0, 0, 0, 0,
                                                         10, 0, 0, 0, 0, 0, 0, 0, 20, 0, 0, 0, 0, 0, 0, 0, 21};
    EXPECT_TRUE(std::equal(std::begin(entry), std::end(entry), std::begin(expected)));
    EXPECT_EQ(TxnIndex::decode(entry), (AbortedTxn{0x0102030405060708, 10, 20, 21}));
}

TEST(TxnIndexFile, CreatedLazilyReopenedAndTruncated) {
    TempDir tmp;
    auto path = tmp.path() / "00000000000000000000.txnindex";
    {
        TxnIndex index(path, 1024);
        EXPECT_FALSE(std::filesystem::exists(path));
        index.append({1, 0, 5, 6});
        index.append({2, 3, 9, 10});
        EXPECT_THROW(index.append({3, 4, 9, 10}), StorageError);  // markers come in order
        EXPECT_EQ(std::filesystem::file_size(path), 2 * TxnIndex::kEntrySize);
    }
    {
        TxnIndex index(path, 1024);
        ASSERT_EQ(index.entries().size(), 2u);
        EXPECT_EQ(index.entries()[1], (AbortedTxn{2, 3, 9, 10}));
        index.truncate_to(9);
        EXPECT_EQ(index.entries().size(), 1u);
        EXPECT_EQ(std::filesystem::file_size(path), TxnIndex::kEntrySize);
    }
    // A crash mid-append leaves a torn entry: cut off on open.
    std::ofstream(path, std::ios::app | std::ios::binary) << "torn";
    TxnIndex index(path, 1024);
    EXPECT_EQ(index.entries().size(), 1u);
    EXPECT_EQ(std::filesystem::file_size(path), TxnIndex::kEntrySize);
    index.remove();
    EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(TxnIndexFile, CollectStopsOnceAnEntryCoversTheBound) {
    TempDir tmp;
    TxnIndex index(tmp.path() / "x.txnindex", 1024);
    index.append({1, 0, 5, 6});
    index.append({2, 7, 9, 10});
    index.append({3, 8, 12, 20});
    std::vector<AbortedTxn> out;
    EXPECT_FALSE(index.collect(6, 100, out));  // may continue in a later segment
    EXPECT_EQ(out.size(), 2u);                 // the first ended before the fetch offset
    out.clear();
    EXPECT_TRUE(index.collect(0, 8, out));
    EXPECT_EQ(out.size(), 2u);  // the third starts at the bound
}

TEST(TxnIndexFile, ItsCapRollsTheSegment) {
    TempDir tmp;
    LogConfig config;
    config.segment_index_bytes = 2 * TxnIndex::kEntrySize;
    PartitionLog log(tmp.path() / "t-0", {"t", 0}, config);
    for (int i = 0; i < 2; ++i) {
        test::append_batch(log, test::make_batch(1));
        log.append_aborted_txn({1, log.log_end_offset() - 1, log.log_end_offset() - 1, log.log_end_offset()});
    }
    EXPECT_EQ(log.segment_count(), 1u);
    test::append_batch(log, test::make_batch(1));
    EXPECT_EQ(log.segment_count(), 2u);
}

struct TxnLog : ::testing::Test {
    TempDir tmp;
    std::filesystem::path dir = tmp.path() / "t-0";
    std::unique_ptr<PartitionLog> log = open();

    std::unique_ptr<PartitionLog> open(LogConfig config = test::small_segments(), LoadOptions load = {}) {
        return std::make_unique<PartitionLog>(dir, TopicPartition{"t", 0}, config, load);
    }
    // An ABORT marker of `pid` at the log end, ending a transaction from `first`.
    AbortedTxn abort(std::int64_t pid, std::int64_t first) {
        auto m = records::build_end_txn_marker_batch(pid, 0, {records::ControlRecordType::abort, 0}, 1000);
        auto at = log->append(m).base_offset;
        AbortedTxn txn{pid, first, at, at + 1};
        log->append_aborted_txn(txn);
        return txn;
    }
    std::filesystem::path txnindex(std::int64_t base) const { return dir / segment_file_name(base, kTxnIndexSuffix); }
};

TEST_F(TxnLog, EntriesGoToTheMarkersSegmentAndAreCollectedAcrossSegments) {
    test::append_batches(*log, 3);
    auto first = abort(7, 0);
    test::append_batches(*log, 6);
    auto second = abort(8, 14);
    auto bases = log->segment_base_offsets();
    ASSERT_GE(bases.size(), 3u);
    // Only the segments holding the markers have a file.
    auto floor_base = [&](std::int64_t offset) {
        return *std::prev(std::upper_bound(bases.begin(), bases.end(), offset));
    };
    ASSERT_NE(floor_base(first.last_offset), floor_base(second.last_offset));
    for (auto base : bases)
        EXPECT_EQ(std::filesystem::exists(txnindex(base)),
                  base == floor_base(first.last_offset) || base == floor_base(second.last_offset))
            << base;
    EXPECT_EQ(log->collect_aborted_txns(0, log->log_end_offset()), (std::vector<AbortedTxn>{first, second}));
    EXPECT_EQ(log->collect_aborted_txns(first.last_offset + 1, log->log_end_offset()),
              (std::vector<AbortedTxn>{second}));
    EXPECT_EQ(log->collect_aborted_txns(0, 14), (std::vector<AbortedTxn>{first}));
}

TEST_F(TxnLog, TruncationDropsEntriesAtOrAfterTheOffset) {
    test::append_batches(*log, 1);
    auto first = abort(7, 0);
    test::append_batches(*log, 1);
    abort(8, 5);
    log->truncate_to(first.last_offset + 1);
    EXPECT_EQ(log->collect_aborted_txns(0, 100), (std::vector<AbortedTxn>{first}));
    log->truncate_to(first.last_offset);
    EXPECT_TRUE(log->collect_aborted_txns(0, 100).empty());
}

TEST_F(TxnLog, RecoveryCutsEntriesBeyondTheValidData) {
    test::append_batches(*log, 1);
    auto first = abort(7, 0);
    test::append_batches(*log, 1);
    auto second = abort(8, 5);
    const auto base = log->segment_base_offsets().back();
    const auto log_file = dir / segment_file_name(base, kLogSuffix);
    log->release();
    log.reset();
    // A torn last batch: the second marker is lost.
    std::filesystem::resize_file(log_file, std::filesystem::file_size(log_file) - 3);
    log = open();
    EXPECT_LT(log->log_end_offset(), second.last_offset + 1);
    EXPECT_EQ(log->collect_aborted_txns(0, 100), (std::vector<AbortedTxn>{first}));
}

TEST_F(TxnLog, ASegmentDeletedBelowTheLogStartTakesItsTxnIndex) {
    test::append_batches(*log, 1);
    abort(7, 0);
    test::append_batches(*log, 6);
    ASSERT_TRUE(std::filesystem::exists(txnindex(0)));
    auto bases = log->segment_base_offsets();
    ASSERT_GE(bases.size(), 2u);
    ASSERT_EQ(log->delete_records_before(bases[1]), ErrorCode::none);
    EXPECT_FALSE(std::filesystem::exists(txnindex(0)));
    EXPECT_TRUE(log->collect_aborted_txns(0, 100).empty());
}

// ---- the cleaner ----

TEST_F(TxnLog, ASwapInterruptedByACrashKeepsTheReplacedSegmentsEntries) {
    test::append_batches(*log, 4);
    auto entry = abort(7, 2);
    test::append_batches(*log, 6);
    log->flush();
    auto bases = log->segment_base_offsets();
    ASSERT_GE(bases.size(), 4u);
    const auto marker_base = *std::prev(std::upper_bound(bases.begin(), bases.end(), entry.last_offset));
    ASSERT_NE(marker_base, bases[0]);
    ASSERT_LT(marker_base, bases[2]);
    // The first two segments copied as they are into one replacement, swapped
    // in up to the commit point, then a kill.
    CleanedSegment out(dir, bases[0], SegmentOptions{1 << 20, 100});
    for (std::int64_t offset = 0; offset < bases[2];) {
        auto r = log->read(offset);
        for (auto b : records::split_batches(r.records, false)) {
            out.append(b);
            offset = records::parse_batch_header(b).last_offset() + 1;
        }
    }
    std::vector<AbortedTxn> entries;
    for (auto base : {bases[0], bases[1]}) {
        const auto& e = log->segments().at(base).txn_index().entries();
        entries.insert(entries.end(), e.begin(), e.end());
    }
    ASSERT_EQ(entries, std::vector<AbortedTxn>{entry});
    out.add_aborted_txns(entries);
    out.finish(std::nullopt);
    out.mark_swap();
    log->release();
    log.reset();
    log = open(test::small_segments(), LoadOptions{.clean_shutdown = false, .recovery_point = 0});
    EXPECT_FALSE(std::filesystem::exists(txnindex(marker_base)));
    EXPECT_TRUE(std::filesystem::exists(txnindex(bases[0])));
    EXPECT_EQ(log->collect_aborted_txns(0, log->log_end_offset()), std::vector<AbortedTxn>{entry});
}

wire::Bytes keyed(std::string_view key, std::string_view value, std::int64_t pid = -1, bool transactional = false) {
    records::BatchBuilderOptions options;
    options.base_timestamp = 1000;
    options.producer_id = pid;
    options.producer_epoch = pid >= 0 ? 0 : -1;
    options.base_sequence = pid >= 0 ? 0 : -1;
    options.transactional = transactional;
    records::Record r;
    r.key = wire::Bytes(key.begin(), key.end());
    r.value = wire::Bytes(value.begin(), value.end());
    return records::build_batch(options, std::span<const records::Record>(&r, 1));
}

TEST(TxnCleaning, AbortedRecordsNeverShadowCommittedOnesAndMarkersStay) {
    TempDir tmp;
    LogConfig config;
    config.segment_bytes = 300;
    config.index_interval_bytes = 100;
    config.cleanup_compact = true;
    config.cleanup_delete = false;
    config.min_cleanable_dirty_ratio = 0.01;
    auto log = std::make_shared<PartitionLog>(tmp.path() / "c-0", TopicPartition{"c", 0}, config);
    auto append = [&](wire::Bytes b) { return log->append(b).base_offset; };
    const auto committed = append(keyed("k", "committed", 1, true));
    auto commit = records::build_end_txn_marker_batch(1, 0, {records::ControlRecordType::commit, 0}, 1000);
    const auto commit_at = append(commit);
    const auto aborted = append(keyed("k", "aborted", 2, true));
    auto abort = records::build_end_txn_marker_batch(2, 0, {records::ControlRecordType::abort, 0}, 1000);
    const auto abort_at = append(abort);
    const AbortedTxn entry{2, aborted, abort_at, abort_at + 1};
    log->append_aborted_txn(entry);
    for (int i = 0; i < 20; ++i) append(keyed("other", std::to_string(i)));
    ASSERT_GT(log->segment_count(), 3u);

    CleanerOptions options;
    Clock clock = [] { return std::int64_t{10'000'000}; };
    LogCleanerManager cleaner(options, clock);
    ASSERT_TRUE(cleaner.start_filthiest({log}));
    for (int i = 0; i < 100000 && cleaner.busy(); ++i) cleaner.step();
    ASSERT_FALSE(cleaner.busy());
    EXPECT_EQ(cleaner.totals().cleanings, 1u);

    std::map<std::int64_t, std::string> values;
    std::vector<std::int64_t> controls;
    for (std::int64_t offset = 0; offset < log->log_end_offset();) {
        auto r = log->read(offset);
        if (r.records.empty()) break;
        for (auto batch : records::split_batches(r.records, false)) {
            auto h = records::parse_batch_header(batch);
            if (h.is_control()) controls.push_back(h.base_offset);
            for (const auto& rec : records::decode_records(batch))
                if (!h.is_control())
                    values[h.base_offset + rec.offset_delta] = std::string(rec.value->begin(), rec.value->end());
            offset = h.last_offset() + 1;
        }
    }
    EXPECT_EQ(values[committed], "committed");
    EXPECT_EQ(controls, (std::vector<std::int64_t>{commit_at, abort_at}));
    // The cleaned segment took over the replaced segments' entries.
    EXPECT_EQ(log->collect_aborted_txns(0, log->log_end_offset()), (std::vector<AbortedTxn>{entry}));
    EXPECT_LT(values.size(), 22u);  // it did clean
}

}  // namespace
}  // namespace weir::storage
