// Restart paths of PartitionLog: clean (marker), unclean (scan after the
// recovery point), torn and corrupt tails, missing and corrupt indexes.
#include <gtest/gtest.h>

#include <fstream>

#include "broker/storage/partition_log.h"
#include "broker/storage/test/storage_test_util.h"

namespace weir::storage {
namespace {

using test::TempDir;

struct Recovery : ::testing::Test {
    TempDir tmp;
    std::filesystem::path dir = tmp.path() / "events-3";

    static LogConfig config(std::int64_t segment_bytes = 1 << 20) {
        LogConfig c;
        c.segment_bytes = segment_bytes;
        c.index_interval_bytes = 300;
        return c;
    }
    static LoadOptions load(bool clean, std::int64_t recovery_point = 0, std::int64_t log_start = 0) {
        LoadOptions o;
        o.clean_shutdown = clean;
        o.recovery_point = recovery_point;
        o.log_start_offset = log_start;
        return o;
    }
    std::unique_ptr<PartitionLog> open(LoadOptions o, LogConfig c = config()) {
        return std::make_unique<PartitionLog>(dir, TopicPartition{"events", 3}, c, o);
    }
    // Writes `n` batches of 4 records and returns all stored bytes.
    static wire::Bytes fill(PartitionLog& log, int n) {
        wire::Bytes all;
        for (int i = 0; i < n; ++i) {
            auto b = test::make_batch(4, 100, 1000 + i);
            log.append(b);
            all.insert(all.end(), b.begin(), b.end());
        }
        return all;
    }
    static wire::Bytes read_all(const PartitionLog& log) {
        wire::Bytes all;
        auto offset = log.log_start_offset();
        for (int guard = 0; offset < log.log_end_offset() && guard < 10000; ++guard) {
            auto r = log.read(offset, {.max_bytes = 1 << 20});
            if (r.records.empty()) break;
            offset = test::headers_of(r.records).back().last_offset() + 1;
            all.insert(all.end(), r.records.begin(), r.records.end());
        }
        return all;
    }
    std::filesystem::path file(std::int64_t base, std::string_view suffix) const {
        return dir / segment_file_name(base, suffix);
    }
};

TEST_F(Recovery, CleanRestartTrustsFilesWithoutScanning) {
    wire::Bytes data;
    {
        auto log = open(load(false));
        data = fill(*log, 50);
        log->flush();
        log->close();
    }
    EXPECT_LT(test::file_size(file(0, kIndexSuffix)), 1024u);  // trimmed on close
    // Corrupt a CRC in the middle: a clean start must not notice (no scan).
    auto batch_size = data.size() / 50;
    test::flip_byte(file(0, kLogSuffix), batch_size * 20 + 70);
    auto log = open(load(true));
    EXPECT_EQ(log->log_end_offset(), 200);
    EXPECT_EQ(log->recovery_point(), 200);
    EXPECT_EQ(read_all(*log).size(), data.size());
    EXPECT_EQ(test::append_batch(*log, test::make_batch(1)).base_offset, 200);
}

TEST_F(Recovery, UncleanRestartScansAndKeepsAllData) {
    wire::Bytes data;
    {
        auto log = open(load(false));
        data = fill(*log, 50);
        log->release();  // like kill -9: preallocated indexes, no trim
    }
    EXPECT_EQ(test::file_size(file(0, kIndexSuffix)), 10u * 1024 * 1024);
    auto log = open(load(false));
    EXPECT_EQ(log->log_end_offset(), 200);
    EXPECT_EQ(read_all(*log), data);
    auto b = test::make_batch(2);
    EXPECT_EQ(log->append(b).base_offset, 200);
    EXPECT_EQ(log->read(201).records, b);
}

TEST_F(Recovery, TornTailIsTruncated) {
    wire::Bytes data;
    {
        auto log = open(load(false));
        data = fill(*log, 10);
        log->release();
    }
    auto batch_size = data.size() / 10;
    std::filesystem::resize_file(file(0, kLogSuffix), data.size() - batch_size / 2);
    auto log = open(load(false));
    EXPECT_EQ(log->log_end_offset(), 36);
    EXPECT_EQ(test::file_size(file(0, kLogSuffix)), data.size() - batch_size);
    EXPECT_EQ(read_all(*log), wire::Bytes(data.begin(), data.end() - static_cast<std::ptrdiff_t>(batch_size)));
    EXPECT_EQ(test::append_batch(*log, test::make_batch(4)).base_offset, 36);
}

TEST_F(Recovery, TornLengthFieldIsTruncated) {
    {
        auto log = open(load(false));
        fill(*log, 3);
        log->release();
    }
    auto size = test::file_size(file(0, kLogSuffix));
    std::uint8_t partial[6] = {0, 0, 0, 0, 0, 0};
    test::write_bytes(file(0, kLogSuffix), size, partial);  // half of the next batch's overhead
    auto log = open(load(false));
    EXPECT_EQ(log->log_end_offset(), 12);
    EXPECT_EQ(test::file_size(file(0, kLogSuffix)), size);
}

TEST_F(Recovery, CorruptCrcTruncatesFromThatBatch) {
    wire::Bytes data;
    {
        auto log = open(load(false));
        data = fill(*log, 10);
        log->release();
    }
    auto batch_size = data.size() / 10;
    test::flip_byte(file(0, kLogSuffix), batch_size * 7 + 80);  // a record byte of batch 7
    auto log = open(load(false));
    EXPECT_EQ(log->log_end_offset(), 28);
    EXPECT_EQ(read_all(*log), wire::Bytes(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(batch_size * 7)));
}

TEST_F(Recovery, CorruptionBeforeRecoveryPointDeletesLaterSegments) {
    std::vector<std::int64_t> bases;
    {
        auto log = open(load(false), config(1500));
        fill(*log, 12);
        bases = log->segment_base_offsets();
        log->release();
    }
    ASSERT_GT(bases.size(), 3u);
    test::flip_byte(file(bases[1], kLogSuffix), 80);  // first batch of the second segment
    auto log = open(load(false, 0), config(1500));    // no checkpoint: everything is scanned
    EXPECT_EQ(log->log_end_offset(), bases[1]);
    EXPECT_EQ(log->segment_count(), 2u);
    EXPECT_FALSE(std::filesystem::exists(file(bases[2], kLogSuffix)));
    EXPECT_EQ(test::append_batch(*log, test::make_batch(1)).base_offset, bases[1]);
}

TEST_F(Recovery, OnlySegmentsAfterRecoveryPointAreScanned) {
    std::int64_t recovery_point = 0;
    std::vector<std::int64_t> bases;
    {
        auto log = open(load(false), config(1500));
        fill(*log, 12);
        recovery_point = log->recovery_point();  // flushed on each roll
        bases = log->segment_base_offsets();
        log->release();
    }
    ASSERT_GT(bases.size(), 2u);
    ASSERT_EQ(recovery_point, bases.back());
    ASSERT_LE(recovery_point, 44);
    // Damage in a flushed segment goes unnoticed; damage in the active one is truncated.
    test::flip_byte(file(bases[1], kLogSuffix), 80);
    test::flip_byte(file(recovery_point, kLogSuffix), test::file_size(file(recovery_point, kLogSuffix)) - 5);
    auto log = open(load(false, recovery_point), config(1500));
    EXPECT_EQ(log->log_end_offset(), 44);  // the last batch (44..47) was corrupt
    EXPECT_EQ(log->segment_base_offsets(), bases);
}

TEST_F(Recovery, MissingIndexesAreRebuilt) {
    wire::Bytes data;
    {
        auto log = open(load(false), config(3000));
        data = fill(*log, 20);
        log->flush();
        log->close();
    }
    std::filesystem::remove(file(0, kIndexSuffix));
    std::filesystem::remove(file(0, kTimeIndexSuffix));
    auto log = open(load(true), config(3000));
    EXPECT_TRUE(std::filesystem::exists(file(0, kIndexSuffix)));
    EXPECT_GT(test::file_size(file(0, kTimeIndexSuffix)), 0u);
    EXPECT_EQ(read_all(*log), data);
    EXPECT_EQ(log->offset_for_timestamp(1001), (FoundRecord{1, 1001, 0}));
}

TEST_F(Recovery, CorruptIndexIsRebuilt) {
    wire::Bytes data;
    {
        auto log = open(load(false), config(3000));
        data = fill(*log, 20);
        log->flush();
        log->close();
    }
    // Garbage position in the last entry of the first segment's index, and a
    // torn (non-multiple) length in the second's.
    auto index = file(0, kIndexSuffix);
    auto size = test::file_size(index);
    ASSERT_GE(size, 8u);
    std::uint8_t garbage[4] = {0x7f, 0xff, 0xff, 0xff};
    test::write_bytes(index, size - 4, garbage);
    auto bases = std::vector<std::int64_t>{};
    for (const auto& e : std::filesystem::directory_iterator(dir))
        if (auto b = parse_segment_file_name(e.path().filename().string(), kLogSuffix)) bases.push_back(*b);
    std::sort(bases.begin(), bases.end());
    ASSERT_GT(bases.size(), 2u);
    std::filesystem::resize_file(file(bases[1], kIndexSuffix), test::file_size(file(bases[1], kIndexSuffix)) + 3);
    auto log = open(load(true), config(3000));
    EXPECT_EQ(test::file_size(index) % 8, 0u);
    EXPECT_EQ(test::file_size(file(bases[1], kIndexSuffix)) % 8, 0u);
    EXPECT_EQ(read_all(*log), data);
    for (std::int64_t off = 0; off < 80; off += 3)
        EXPECT_EQ(test::headers_of(log->read(off, {.max_bytes = 1}).records).front().base_offset, off / 4 * 4);
}

TEST_F(Recovery, EmptyDirectoryStartsAtCheckpointedLogStart) {
    auto log = open(load(false, 0, 1234));
    EXPECT_EQ(log->log_start_offset(), 1234);
    EXPECT_EQ(log->log_end_offset(), 1234);
    EXPECT_TRUE(std::filesystem::exists(file(1234, kLogSuffix)));
}

TEST_F(Recovery, LogStartOffsetFromCheckpointIsApplied) {
    {
        auto log = open(load(false));
        fill(*log, 10);
        log->flush();
        log->close();
    }
    auto log = open(load(true, 40, 13));
    EXPECT_EQ(log->log_start_offset(), 13);
    EXPECT_EQ(log->read(12).error, ErrorCode::offset_out_of_range);
    EXPECT_EQ(test::headers_of(log->read(13).records).front().base_offset, 12);
}

TEST_F(Recovery, LeftoverFilesAreRemoved) {
    {
        auto log = open(load(false));
        fill(*log, 2);
        log->close();
    }
    std::ofstream(file(777, kIndexSuffix)) << "orphan";
    std::ofstream(dir / "00000000000000000000.log.tmp") << "x";
    auto log = open(load(true));
    EXPECT_FALSE(std::filesystem::exists(file(777, kIndexSuffix)));
    EXPECT_FALSE(std::filesystem::exists(dir / "00000000000000000000.log.tmp"));
    EXPECT_EQ(log->log_end_offset(), 8);
}

}  // namespace
}  // namespace weir::storage

namespace weir::storage {
namespace {

// Damage that a clean start does not look for is found by the reads that
// reach it: CORRUPT_MESSAGE, never an empty success or the same bad bytes.
struct ReadDamage : Recovery {
    std::size_t batch_size = 0;
    void write_damaged_log() {
        auto log = open(load(false));
        batch_size = fill(*log, 50).size() / 50;
        log->flush();
        log->close();
    }
};

TEST_F(ReadDamage, FlippedByteIsReportedWhereAReadStarts) {
    write_damaged_log();
    test::flip_byte(file(0, kLogSuffix), batch_size * 20 + 80);  // a record byte of batch 20 (offsets 80..83)
    auto log = open(load(true));
    auto at = log->read(80, {.max_bytes = 1 << 20});
    EXPECT_EQ(at.error, ErrorCode::corrupt_message);
    EXPECT_TRUE(at.records.empty());
    auto inside = log->read(82, {.max_bytes = 1 << 20});
    EXPECT_EQ(inside.error, ErrorCode::corrupt_message);
    // Around it the log still reads.
    auto before = log->read(76, {.max_bytes = static_cast<std::size_t>(batch_size)});
    EXPECT_EQ(before.error, ErrorCode::none);
    EXPECT_EQ(before.records.size(), batch_size);
    auto after = log->read(84, {.max_bytes = 1 << 20});
    EXPECT_EQ(after.error, ErrorCode::none);
    EXPECT_EQ(after.records.size(), batch_size * 29);
}

// What the broker appended itself was checked in memory before the write;
// what it found on disk is checked where a read starts, appended to or not.
TEST_F(ReadDamage, OnlyBytesFoundOnDiskAreCheckedOnRead) {
    write_damaged_log();
    test::flip_byte(file(0, kLogSuffix), batch_size * 20 + 80);
    auto log = open(load(true));
    fill(*log, 10);  // offsets 200..239, after the damaged bytes it loaded
    EXPECT_EQ(log->read(80, {.max_bytes = 1 << 20}).error, ErrorCode::corrupt_message);
    auto appended = log->read(200, {.max_bytes = 1 << 20});
    EXPECT_EQ(appended.error, ErrorCode::none);
    EXPECT_EQ(appended.records.size(), batch_size * 10);
    // The same damage in a batch of its own is not looked for again (Kafka
    // checks no CRC on read at all): the bytes go out as they are.
    log->flush();
    test::flip_byte(file(0, kLogSuffix), batch_size * 52 + 80);
    auto own = log->read(208, {.max_bytes = static_cast<std::size_t>(batch_size)});
    EXPECT_EQ(own.error, ErrorCode::none);
    EXPECT_EQ(own.records.size(), batch_size);
    // Truncated into what it loaded and written again: the new batch is its own.
    log->truncate_to(84);
    fill(*log, 1);
    test::flip_byte(file(0, kLogSuffix), batch_size * 21 + 80);
    EXPECT_EQ(log->read(84, {.max_bytes = 1 << 20}).error, ErrorCode::none);
    EXPECT_EQ(log->read(80, {.max_bytes = 1 << 20}).error, ErrorCode::corrupt_message);
}

TEST_F(ReadDamage, CorruptLengthIsReportedNotServedAsNothing) {
    write_damaged_log();
    {
        std::fstream f(file(0, kLogSuffix), std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(static_cast<std::streamoff>(batch_size * 20 + 8));  // batch 20's length field
        const char huge[4] = {0x7f, 0x00, 0x00, 0x00};
        f.write(huge, 4);
    }
    auto log = open(load(true));
    for (std::int64_t offset : {80, 83}) {
        auto r = log->read(offset, {.max_bytes = 1 << 20});
        EXPECT_EQ(r.error, ErrorCode::corrupt_message) << offset;
        EXPECT_TRUE(r.records.empty()) << offset;
    }
    EXPECT_EQ(log->read(0, {.max_bytes = 1 << 20}).error, ErrorCode::none);
}

}  // namespace
}  // namespace weir::storage
