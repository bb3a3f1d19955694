#include "broker/storage/partition_log.h"

#include <gtest/gtest.h>

#include <tuple>

#include "broker/storage/test/storage_test_util.h"

namespace weir::storage {
namespace {

using test::TempDir;

struct Fixture : ::testing::Test {
    TempDir tmp;
    std::int64_t now = 1'700'000'000'000;
    std::filesystem::path dir = tmp.path() / "orders-0";

    LoadOptions load(bool clean = false, std::int64_t recovery_point = 0, std::int64_t log_start = 0) {
        LoadOptions o;
        o.clean_shutdown = clean;
        o.recovery_point = recovery_point;
        o.log_start_offset = log_start;
        o.clock = [this] { return now; };
        return o;
    }
    static LogConfig small_segments(std::int64_t bytes = 2000) {
        LogConfig c;
        c.segment_bytes = bytes;
        c.index_interval_bytes = 300;
        c.flush_on_roll = false;  // fsync per roll only slows these tests down
        return c;
    }
    std::unique_ptr<PartitionLog> open(LogConfig config = small_segments()) {
        return std::make_unique<PartitionLog>(dir, TopicPartition{"orders", 0}, config, load());
    }
    // Appends one batch of `n` records; returns the stored bytes.
    wire::Bytes append(PartitionLog& log, int n = 5, std::size_t value_size = 100, std::int64_t ts = -2) {
        auto batch = test::make_batch(n, value_size, ts == -2 ? now : ts);
        log.append(batch);
        return batch;
    }
};

TEST_F(Fixture, AppendAssignsOffsetsAndReadsBackAcrossRolls) {
    auto log = open();
    std::vector<wire::Bytes> stored;
    for (int i = 0; i < 40; ++i) {
        auto batch = test::make_batch(5, 100, now + i);
        auto r = log->append(batch);
        EXPECT_EQ(r.base_offset, i * 5);
        EXPECT_EQ(r.last_offset, i * 5 + 4);
        EXPECT_EQ(r.log_append_time, -1);
        EXPECT_EQ(r.record_count, 5);
        EXPECT_EQ(records::parse_batch_header(batch).base_offset, i * 5);  // rewritten in place
        EXPECT_TRUE(records::crc_valid(batch));
        stored.push_back(batch);
    }
    EXPECT_EQ(log->log_end_offset(), 200);
    EXPECT_GT(log->segment_count(), 5u);
    EXPECT_TRUE(std::filesystem::exists(dir / "00000000000000000000.log"));

    // Read everything back in a loop of fetches.
    wire::Bytes all, expected;
    for (auto& b : stored) expected.insert(expected.end(), b.begin(), b.end());
    std::int64_t offset = 0;
    for (int guard = 0; offset < log->log_end_offset() && guard < 1000; ++guard) {
        auto r = log->read(offset, {.max_bytes = 700});
        ASSERT_EQ(r.error, ErrorCode::none);
        ASSERT_FALSE(r.records.empty());
        auto headers = test::headers_of(r.records);
        EXPECT_EQ(headers.front().base_offset, offset);
        offset = headers.back().last_offset() + 1;
        all.insert(all.end(), r.records.begin(), r.records.end());
    }
    EXPECT_EQ(all, expected);
    // A fetch from the middle of a batch returns that batch.
    auto mid = log->read(77, {.max_bytes = 1});
    EXPECT_EQ(mid.records, stored[15]);
}

TEST_F(Fixture, ReadSpansSegmentsUpToMaxBytes) {
    auto log = open(small_segments(600));
    for (int i = 0; i < 10; ++i) append(*log);
    auto r = log->read(0, {.max_bytes = 1 << 20});
    // A read returns data of one segment at a time, as Kafka does.
    auto headers = test::headers_of(r.records);
    EXPECT_FALSE(headers.empty());
    EXPECT_EQ(headers.front().base_offset, 0);
}

TEST_F(Fixture, OffsetOutOfRange) {
    auto log = open();
    for (int i = 0; i < 4; ++i) append(*log);
    EXPECT_EQ(log->read(21).error, ErrorCode::offset_out_of_range);
    EXPECT_EQ(log->read(-1).error, ErrorCode::offset_out_of_range);
    auto at_end = log->read(20);
    EXPECT_EQ(at_end.error, ErrorCode::none);
    EXPECT_TRUE(at_end.records.empty());
    EXPECT_EQ(at_end.log_end_offset, 20);
    ASSERT_EQ(log->delete_records_before(10), ErrorCode::none);
    EXPECT_EQ(log->read(9).error, ErrorCode::offset_out_of_range);
    EXPECT_EQ(log->read(10).error, ErrorCode::none);
    EXPECT_EQ(log->read(10).log_start_offset, 10);
}

TEST_F(Fixture, MultipleBatchesInOneAppend) {
    auto log = open();
    append(*log, 3);
    auto a = test::make_batch(2), b = test::make_batch(4);
    wire::Bytes buffer = a;
    buffer.insert(buffer.end(), b.begin(), b.end());
    auto r = log->append(buffer);
    EXPECT_EQ(r.base_offset, 3);
    EXPECT_EQ(r.last_offset, 8);
    auto headers = test::headers_of(buffer);
    EXPECT_EQ(headers[0].base_offset, 3);
    EXPECT_EQ(headers[1].base_offset, 5);
    EXPECT_EQ(log->read(5).records, wire::Bytes(buffer.begin() + static_cast<std::ptrdiff_t>(a.size()), buffer.end()));
}

TEST_F(Fixture, MalformedAppendChangesNothing) {
    auto log = open();
    append(*log, 3);
    auto batch = test::make_batch(2);
    batch.resize(batch.size() - 1);
    EXPECT_THROW(log->append(batch), wire::DecodeError);
    EXPECT_EQ(log->log_end_offset(), 3);
    EXPECT_EQ(log->size_bytes(), test::make_batch(3, 100).size());
}

TEST_F(Fixture, LogAppendTimeStampsBatches) {
    auto config = small_segments();
    config.message_timestamp_type = records::TimestampType::log_append_time;
    auto log = open(config);
    auto batch = test::make_batch(3, 10, 5);
    auto r = log->append(batch);
    EXPECT_EQ(r.log_append_time, now);
    auto stored = log->read(0).records;
    auto h = records::parse_batch_header(stored);
    EXPECT_EQ(h.timestamp_type(), records::TimestampType::log_append_time);
    EXPECT_EQ(h.max_timestamp, now);
    EXPECT_TRUE(records::crc_valid(stored));
    EXPECT_EQ(log->offset_for_timestamp(now), (FoundRecord{0, now, 0}));
}

TEST_F(Fixture, AppendStampsTheLeaderEpoch) {
    auto log = open();
    auto batch = test::make_batch(3, 10, now);
    ASSERT_EQ(records::parse_batch_header(batch).partition_leader_epoch, -1);  // as producers send it
    log->append(batch);
    log->set_leader_epoch(7);
    append(*log);
    auto first = log->read(0).records;
    EXPECT_EQ(records::parse_batch_header(first).partition_leader_epoch, 0);
    EXPECT_TRUE(records::crc_valid(first));  // the epoch is outside the CRC
    EXPECT_EQ(records::parse_batch_header(log->read(3).records).partition_leader_epoch, 7);
}

TEST_F(Fixture, OffsetForTimestampAcrossSegments) {
    auto log = open(small_segments(1000));
    for (int i = 0; i < 30; ++i) append(*log, 5, 100, 10'000 + i * 100);  // batch i: ts 10000+100i+j
    ASSERT_GT(log->segment_count(), 3u);
    EXPECT_EQ(log->offset_for_timestamp(0), (FoundRecord{0, 10'000, 0}));
    EXPECT_EQ(log->offset_for_timestamp(12'003), (FoundRecord{103, 12'003, 0}));
    EXPECT_EQ(log->offset_for_timestamp(12'050), (FoundRecord{105, 12'100, 0}));
    EXPECT_FALSE(log->offset_for_timestamp(20'000));
    EXPECT_EQ(log->max_timestamp(), (FoundRecord{149, 12'904, 0}));
    // Records below the log start offset are not returned.
    ASSERT_EQ(log->delete_records_before(52), ErrorCode::none);
    EXPECT_EQ(log->offset_for_timestamp(0), (FoundRecord{52, 11'002, 0}));
}

TEST_F(Fixture, OffsetForTimestampInsideCompressedBatches) {
    auto log = open();
    for (auto codec : {records::Compression::gzip, records::Compression::snappy, records::Compression::lz4,
                       records::Compression::zstd}) {
        auto base = log->log_end_offset();
        auto batch = test::make_batch(10, 50, 100'000 + base * 10, codec);
        log->append(batch);
        EXPECT_EQ(log->offset_for_timestamp(100'000 + base * 10 + 7),
                  (FoundRecord{base + 7, 100'000 + base * 10 + 7, 0}))
            << static_cast<int>(codec);
    }
    EXPECT_EQ(log->max_timestamp(), (FoundRecord{39, 100'000 + 300 + 9, 0}));
}

TEST_F(Fixture, MaxTimestampPicksFirstRecordWithLargestTimestamp) {
    auto log = open();
    append(*log, 3, 10, 500);
    append(*log, 3, 10, 900);  // 900..902
    append(*log, 3, 10, 100);
    EXPECT_EQ(log->max_timestamp(), (FoundRecord{5, 902, 0}));
}

TEST_F(Fixture, ReadsStopAtTheGivenBound) {
    // The partition layer bounds consumer reads by its high watermark.
    auto log = open();
    append(*log);  // 0..4
    append(*log);  // 5..9
    EXPECT_TRUE(log->read(0, {.max_offset = 0}).records.empty());
    EXPECT_EQ(test::headers_of(log->read(0, {.max_offset = 5}).records).size(), 1u);
    EXPECT_EQ(test::headers_of(log->read(0).records).size(), 2u);
    EXPECT_TRUE(log->read(7, {.max_offset = 5}).records.empty());  // above the bound: empty, not an error
    EXPECT_EQ(log->read(7, {.max_offset = 5}).error, ErrorCode::none);
    EXPECT_EQ(log->delete_records_before(11), ErrorCode::offset_out_of_range);
}

TEST_F(Fixture, RetentionKeepsSegmentsAtOrAboveTheHighWatermark) {
    auto config = small_segments(1000);
    config.retention_ms = 60'000;
    auto log = open(config);
    for (int i = 0; i < 10; ++i) append(*log, 5, 100, now - 120'000);
    auto bases = log->segment_base_offsets();
    ASSERT_GT(bases.size(), 3u);
    EXPECT_EQ(log->enforce_retention(bases[2]), 2u);
    EXPECT_EQ(log->log_start_offset(), bases[2]);
}

TEST_F(Fixture, DeleteRecordsBeforeDeletesWholeSegmentsOnly) {
    auto log = open(small_segments(1000));
    for (int i = 0; i < 20; ++i) append(*log);
    auto bases = log->segment_base_offsets();
    ASSERT_GT(bases.size(), 4u);
    auto target = bases[2] + 2;
    ASSERT_EQ(log->delete_records_before(target), ErrorCode::none);
    EXPECT_EQ(log->log_start_offset(), target);
    EXPECT_EQ(log->segment_base_offsets().front(), bases[2]);
    auto r = log->read(target);
    EXPECT_EQ(test::headers_of(r.records).front().base_offset, bases[2]);  // the batch containing it
    EXPECT_EQ(log->delete_records_before(target - 1), ErrorCode::none);    // no going back
    EXPECT_EQ(log->log_start_offset(), target);
    // Up to the log end: the active segment stays, reads at the end are empty.
    ASSERT_EQ(log->delete_records_before(log->log_end_offset()), ErrorCode::none);
    EXPECT_EQ(log->segment_count(), 1u);
    EXPECT_TRUE(log->read(log->log_end_offset()).records.empty());
    EXPECT_FALSE(append(*log).empty());
    EXPECT_EQ(log->read(100).error, ErrorCode::none);
}

TEST_F(Fixture, RetentionByTimeNeverDeletesActiveSegment) {
    auto config = small_segments(1000);
    config.retention_ms = 60'000;
    auto log = open(config);
    for (int i = 0; i < 10; ++i) append(*log, 5, 100, now - 120'000);  // old
    for (int i = 0; i < 10; ++i) append(*log, 5, 100, now);            // fresh
    auto before = log->segment_count();
    auto deleted = log->enforce_retention(log->log_end_offset());
    EXPECT_GT(deleted, 0u);
    EXPECT_EQ(log->segment_count(), before - deleted);
    EXPECT_GT(log->log_start_offset(), 0);
    EXPECT_EQ(log->log_start_offset(), log->segment_base_offsets().front());
    EXPECT_EQ(log->read(0).error, ErrorCode::offset_out_of_range);
    EXPECT_EQ(log->enforce_retention(log->log_end_offset()), 0u);
    // Everything old: all but the active segment go.
    now += 3'600'000;
    log->enforce_retention(log->log_end_offset());
    EXPECT_EQ(log->segment_count(), 1u);
    EXPECT_EQ(log->log_end_offset(), 100);
}

TEST_F(Fixture, RetentionBySize) {
    auto config = small_segments(1000);
    config.retention_ms = -1;
    config.retention_bytes = 2500;
    auto log = open(config);
    for (int i = 0; i < 20; ++i) append(*log);
    log->enforce_retention(log->log_end_offset());
    EXPECT_LE(log->size_bytes(), 2500u + 1000u);
    EXPECT_GE(log->size_bytes(), 1500u);
    std::uint64_t on_disk = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir))
        if (e.path().extension() == ".log") on_disk += e.file_size();
    EXPECT_EQ(on_disk, log->size_bytes());
}

TEST_F(Fixture, TruncateToAndStartAt) {
    auto log = open(small_segments(1000));
    for (int i = 0; i < 20; ++i) append(*log);
    log->truncate_to(52);  // inside batch 50..54: the whole batch goes
    EXPECT_EQ(log->log_end_offset(), 50);
    EXPECT_EQ(log->segment_base_offsets().back(), 50);  // emptied, kept as the active segment
    EXPECT_EQ(log->segment_count(), 11u);
    auto r = test::append_batch(*log, test::make_batch(5));
    EXPECT_EQ(r.base_offset, 50);
    EXPECT_EQ(test::headers_of(log->read(50).records).front().base_offset, 50);
    // Exactly at a segment boundary.
    auto bases = log->segment_base_offsets();
    log->truncate_to(bases[1]);
    EXPECT_EQ(log->log_end_offset(), bases[1]);
    EXPECT_EQ(log->segment_count(), 1u);
    log->truncate_fully_and_start_at(500);
    EXPECT_EQ(log->log_start_offset(), 500);
    EXPECT_EQ(log->log_end_offset(), 500);
    EXPECT_EQ(test::append_batch(*log, test::make_batch(1)).base_offset, 500);
    EXPECT_TRUE(std::filesystem::exists(dir / "00000000000000000500.log"));
    EXPECT_FALSE(std::filesystem::exists(dir / "00000000000000000000.log"));
}

TEST_F(Fixture, FlushPolicyAdvancesRecoveryPoint) {
    auto config = small_segments(1 << 20);
    config.flush_interval_messages = 10;
    auto log = open(config);
    append(*log, 5);
    EXPECT_EQ(log->recovery_point(), 0);
    append(*log, 5);
    EXPECT_EQ(log->recovery_point(), 10);
    config.flush_interval_messages = kNever;
    config.flush_interval_ms = 1000;
    log->set_config(config);
    append(*log, 5);
    EXPECT_EQ(log->recovery_point(), 10);
    now += 1000;
    log->flush_if_due();
    EXPECT_EQ(log->recovery_point(), 15);
}

TEST_F(Fixture, RollFlushesOldSegmentsAndNotifiesCheckpoint) {
    auto config = small_segments(1000);
    config.flush_on_roll = true;
    auto log = open(config);
    int checkpoints = 0;
    log->set_checkpoint_hook([&](PartitionLog::CheckpointNeed) { ++checkpoints; });
    for (int i = 0; i < 6; ++i) append(*log);
    ASSERT_GT(log->segment_count(), 1u);
    EXPECT_EQ(log->recovery_point(), log->segment_base_offsets().back());
    EXPECT_GT(checkpoints, 0);
}

// With a sync hook the roll leaves its fsync to the owner: the recovery point
// moves only once the owner reports the sync done, and not at all if the log
// was truncated in the meantime.
TEST_F(Fixture, RollHandsItsSyncToTheHook) {
    auto config = small_segments(1000);
    config.flush_on_roll = true;
    auto log = open(config);
    std::vector<std::tuple<SyncRequest, std::int64_t, std::uint64_t>> handed;
    log->set_sync_hook([&](SyncRequest request, std::int64_t up_to, std::uint64_t generation) {
        handed.emplace_back(std::move(request), up_to, generation);
    });
    while (log->segment_count() < 3) append(*log);
    ASSERT_EQ(handed.size(), 2u);
    EXPECT_EQ(log->recovery_point(), 0);
    const auto bases = log->segment_base_offsets();
    auto& [first, first_up_to, first_generation] = handed[0];
    EXPECT_EQ(first_up_to, bases[1]);
    ASSERT_EQ(first.files.size(), 1u);  // the finished segment's log
    EXPECT_EQ(first.dir, log->dir());
    // Its three indexes, then the producer snapshot of the new segment (not
    // written here: run() skips files that are not there).
    ASSERT_EQ(first.paths.size(), 4u);
    EXPECT_EQ(first.paths.back().filename(), segment_file_name(bases[1], ".snapshot"));
    first.run();
    log->synced_up_to(first_up_to, first_generation);
    EXPECT_EQ(log->recovery_point(), bases[1]);

    auto& [second, second_up_to, second_generation] = handed[1];
    EXPECT_EQ(second_up_to, bases[2]);
    EXPECT_EQ(second.files.size(), 1u);  // only what the first request did not cover
    log->truncate_to(bases[2] - 1);
    second.run();
    log->synced_up_to(second_up_to, second_generation);
    EXPECT_EQ(log->recovery_point(), bases[1]);
}

// A log rolling many times before any sync lands asks each time only for the
// segment it finished; after a truncation, the segment it cut is asked for again.
TEST_F(Fixture, EachRollAsksOnlyForWhatNoEarlierSyncCovers) {
    auto config = small_segments(1000);
    config.flush_on_roll = true;
    auto log = open(config);
    std::vector<SyncRequest> handed;
    log->set_sync_hook([&](SyncRequest request, std::int64_t, std::uint64_t) { handed.push_back(std::move(request)); });
    while (log->segment_count() < 8) append(*log);
    ASSERT_EQ(handed.size(), 7u);
    for (const auto& request : handed) EXPECT_EQ(request.files.size(), 1u);
    const auto bases = log->segment_base_offsets();
    log->truncate_to(bases[5] + 1);  // into the sixth segment, which becomes the active one
    handed.clear();
    while (log->segment_count() < 7) append(*log);
    ASSERT_EQ(handed.size(), 1u);
    EXPECT_EQ(handed[0].files.size(), 1u);  // the cut segment, finished again
    EXPECT_EQ(log->segment_base_offsets()[5], bases[5]);
}

TEST_F(Fixture, TimeBasedRoll) {
    auto config = small_segments(1 << 20);
    config.segment_ms = 1000;
    auto log = open(config);
    append(*log, 1, 10, now);
    append(*log, 1, 10, now + 500);
    EXPECT_EQ(log->segment_count(), 1u);
    append(*log, 1, 10, now + 1001);
    EXPECT_EQ(log->segment_count(), 2u);
    EXPECT_EQ(log->segment_base_offsets().back(), 2);
}

TEST_F(Fixture, ADeletedLogRefusesWork) {
    auto log = open();
    append(*log);
    log->mark_deleted();
    EXPECT_EQ(log->read(0).error, ErrorCode::unknown_topic_or_partition);
    auto batch = test::make_batch(1);
    EXPECT_THROW(log->append(batch), StorageError);
}

}  // namespace
}  // namespace weir::storage
