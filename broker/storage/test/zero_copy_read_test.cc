// Reads that leave records in their segment file (Fetch answers, sendfile)
// must return exactly what a copying read would: whole batches, as many as
// fit, never a partial one.
#include <gtest/gtest.h>

#include <random>

#include "broker/storage/batch_scanner.h"
#include "broker/storage/partition_log.h"
#include "broker/storage/test/storage_test_util.h"
#include "protocol/wire/writer.h"

namespace weir::storage {
namespace {

struct ZeroCopyRead : ::testing::Test {
    TempDir tmp;
    std::filesystem::path dir = tmp.path() / "orders-0";
    std::vector<records::BatchHeader> batches;  // as stored

    std::unique_ptr<PartitionLog> open(std::int64_t segment_bytes) {
        LogConfig c;
        c.segment_bytes = segment_bytes;
        c.index_interval_bytes = 300;
        c.flush_on_roll = false;
        return std::make_unique<PartitionLog>(dir, TopicPartition{"orders", 0}, c, LoadOptions{});
    }
    // Batches of 1-12 records with 1-600 byte values, so reads cut anywhere.
    void fill(PartitionLog& log, int count) {
        std::mt19937 rng(7);
        for (int i = 0; i < count; ++i) {
            auto batch = test::make_batch(1 + static_cast<int>(rng() % 12), 1 + rng() % 600);
            log.append(batch);
            batches.push_back(records::parse_batch_header(batch));
        }
    }
    static wire::Bytes contents(const ReadResult& r) { return r.region ? wire::read_region(*r.region) : r.records; }
};

TEST_F(ZeroCopyRead, ReturnsTheBatchesACopyingReadReturnsForEveryBudget) {
    auto log = open(20'000);
    fill(*log, 150);
    ASSERT_GT(log->segment_count(), 3u);
    std::mt19937 rng(11);
    int regions = 0;
    for (int round = 0; round < 400; ++round) {
        const auto& start = batches[rng() % batches.size()];
        // An offset inside the batch: the read starts at the batch holding it.
        const std::int64_t offset =
            start.base_offset + static_cast<std::int64_t>(rng() % (start.last_offset_delta + 1));
        ReadOptions options;
        options.max_bytes = rng() % 25'000;
        options.min_one_batch = rng() % 2 == 0;
        if (rng() % 3 == 0) options.max_offset = offset + static_cast<std::int64_t>(rng() % 200);
        auto copied = log->read(offset, options);
        options.zero_copy = true;
        auto referred = log->read(offset, options);
        ASSERT_EQ(copied.error, ErrorCode::none);
        ASSERT_EQ(referred.error, ErrorCode::none);
        EXPECT_FALSE(copied.region);
        const auto bytes = contents(referred);
        // Reads the answer would copy anyway are copied here, holding no descriptor.
        EXPECT_EQ(referred.region.has_value(), bytes.size() >= wire::kMinSplicedBytes) << bytes.size();
        EXPECT_EQ(referred.records.empty(), referred.region.has_value() || bytes.empty());
        if (referred.region) ++regions;
        ASSERT_EQ(bytes, copied.records) << "offset " << offset << " max_bytes " << options.max_bytes;
        EXPECT_EQ(referred.next_offset, copied.next_offset);

        // The oracle: whole batches from the one holding `offset`, as many as
        // fit in max_bytes (the first regardless when min_one_batch), all
        // below max_offset's batch and within the segment the read starts in.
        auto got = test::headers_of(bytes);
        if (referred.region) {
            // What an old fetcher's zstd check walks: the region's own headers
            // (a small buffer, so that it refills mid-header and mid-batch).
            BatchScanner scanner(*referred.region, 256);
            std::vector<records::BatchHeader> scanned;
            while (auto batch = scanner.next()) scanned.push_back(batch->header);
            EXPECT_EQ(scanner.stop(), BatchScanner::Stop::end);
            EXPECT_EQ(scanned, got);
        }
        std::size_t first = 0;
        while (batches[first].last_offset() < offset) ++first;
        if (got.empty()) {
            const bool too_big = batches[first].total_size() > options.max_bytes && !options.min_one_batch;
            const bool bounded = batches[first].last_offset() >= options.max_offset;
            EXPECT_TRUE(too_big || bounded) << "offset " << offset << " max_bytes " << options.max_bytes;
            EXPECT_EQ(referred.next_offset, -1);
            continue;
        }
        std::size_t total = 0;
        for (std::size_t i = 0; i < got.size(); ++i) {
            EXPECT_EQ(got[i].base_offset, batches[first + i].base_offset);
            total += got[i].total_size();
        }
        EXPECT_TRUE(total <= options.max_bytes || got.size() == 1);
        EXPECT_LT(got.back().last_offset(), options.max_offset);
        EXPECT_EQ(referred.next_offset, got.back().last_offset() + 1);
        const auto next = first + got.size();
        if (next < batches.size() && batches[next].last_offset() < options.max_offset &&
            batches[next].last_offset() < log->log_end_offset()) {
            // The next batch was left out because it did not fit, or because
            // it starts the next segment.
            const bool did_not_fit = total + batches[next].total_size() > options.max_bytes;
            const auto bases = log->segment_base_offsets();
            const bool next_segment = std::ranges::find(bases, batches[next].base_offset) != bases.end();
            EXPECT_TRUE(did_not_fit || next_segment)
                << "offset " << offset << " max_bytes " << options.max_bytes << " got " << got.size() << " batches, "
                << total << " bytes; next " << batches[next].base_offset << "-" << batches[next].last_offset() << " "
                << batches[next].total_size() << " bytes; max_offset " << options.max_offset << " min_one "
                << options.min_one_batch;
        }
    }
    EXPECT_GT(regions, 5);
}

TEST_F(ZeroCopyRead, TheRegionOutlivesItsDeletedLog) {
    auto log = open(1 << 20);
    fill(*log, 40);
    auto before = log->read(0, {});
    ReadOptions options;
    options.zero_copy = true;
    auto r = log->read(0, options);
    ASSERT_TRUE(r.region);
    log->mark_deleted();
    log.reset();
    std::filesystem::remove_all(dir);
    // The answer being sent keeps the descriptor: it still reads the bytes.
    EXPECT_EQ(wire::read_region(*r.region), before.records);
}

TEST_F(ZeroCopyRead, ADamagedFirstBatchIsCorruptMessageWithoutARegion) {
    auto log = open(1 << 20);
    fill(*log, 40);
    log->close();
    log.reset();
    // A byte inside the third batch's records (past its header).
    std::uint64_t position = batches[0].total_size() + batches[1].total_size() + records::kBatchHeaderSize + 1;
    test::flip_byte(dir / "00000000000000000000.log", position);
    LoadOptions clean;
    clean.clean_shutdown = true;
    LogConfig c;
    c.index_interval_bytes = 300;
    log = std::make_unique<PartitionLog>(dir, TopicPartition{"orders", 0}, c, clean);
    ReadOptions options;
    options.zero_copy = true;
    auto damaged = log->read(batches[2].base_offset, options);
    EXPECT_EQ(damaged.error, ErrorCode::corrupt_message);
    EXPECT_FALSE(damaged.region);
    // A read starting before it still serves the batches up to it and more:
    // later batches are checked when a read starts at them.
    auto before = log->read(0, options);
    EXPECT_EQ(before.error, ErrorCode::none);
    ASSERT_TRUE(before.region);
}

TEST_F(ZeroCopyRead, ARegionTruncatedUnderItFailsToRead) {
    auto log = open(1 << 20);
    fill(*log, 40);
    ReadOptions options;
    options.zero_copy = true;
    auto r = log->read(0, options);
    ASSERT_TRUE(r.region);
    log->truncate_to(batches[1].base_offset);
    EXPECT_THROW((void)wire::read_region(*r.region), std::runtime_error);
}

}  // namespace
}  // namespace weir::storage
