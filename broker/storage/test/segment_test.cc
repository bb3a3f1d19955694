#include "broker/storage/segment.h"

#include <gtest/gtest.h>

#include "broker/storage/log_names.h"
#include "broker/storage/test/storage_test_util.h"

namespace weir::storage {
namespace {

using test::TempDir;

// Appends `n` batches of `records_per_batch` records starting at `base`,
// assigning offsets; returns the bytes written per batch.
std::vector<wire::Bytes> fill(Segment& segment, std::int64_t base, int n, int records_per_batch,
                              std::size_t value_size = 100, std::int64_t ts0 = 1000) {
    std::vector<wire::Bytes> out;
    auto next = base;
    for (int i = 0; i < n; ++i) {
        auto batch = test::make_batch(records_per_batch, value_size, ts0 + i * 10);
        records::set_base_offset(batch, next);
        next += records_per_batch;
        segment.append(batch);
        out.push_back(std::move(batch));
    }
    return out;
}

SegmentOptions small_interval() { return {1024 * 1024, 500}; }

TEST(Segment, AppendAndReadRoundTrip) {
    TempDir dir;
    Segment segment(dir.path(), 100, small_interval(), 0);
    segment.make_active();
    auto batches = fill(segment, 100, 20, 5);
    EXPECT_EQ(segment.next_offset(), 200);
    EXPECT_TRUE(std::filesystem::exists(dir.path() / "00000000000000000100.log"));

    wire::Bytes all;
    for (auto& b : batches) all.insert(all.end(), b.begin(), b.end());
    EXPECT_EQ(segment.size(), all.size());
    auto read = segment.read(100, 1 << 20, std::nullopt, true);
    ASSERT_TRUE(read);
    EXPECT_EQ(*read, all);

    // Every offset maps to the batch containing it.
    for (std::int64_t off = 100; off < 200; ++off) {
        auto got = segment.read(off, 1, std::nullopt, true);
        ASSERT_TRUE(got) << off;
        EXPECT_EQ(*got, batches[static_cast<std::size_t>((off - 100) / 5)]) << off;
    }
    EXPECT_FALSE(segment.read(200, 1 << 20, std::nullopt, true));
}

TEST(Segment, IndexIsSparseAndLookupsAgreeWithScan) {
    TempDir dir;
    Segment segment(dir.path(), 0, small_interval(), 0);
    segment.make_active();
    auto batches = fill(segment, 0, 50, 2);  // ~300-byte batches, entry every ~2 batches
    auto entries = segment.offset_index().entries();
    EXPECT_GT(entries, 10u);
    EXPECT_LT(entries, 50u);
    std::uint32_t position = 0;
    for (std::size_t i = 0; i < batches.size(); ++i) {
        auto loc = segment.translate_offset(static_cast<std::int64_t>(i * 2 + 1));
        ASSERT_TRUE(loc);
        EXPECT_EQ(loc->position, position);
        EXPECT_EQ(loc->base_offset, static_cast<std::int64_t>(i * 2));
        EXPECT_EQ(loc->size, batches[i].size());
        position += static_cast<std::uint32_t>(batches[i].size());
    }
    // Entries hold a batch's last offset and that batch's start position.
    auto e = segment.offset_index().entry(0);
    auto loc = segment.translate_offset(e.offset);
    EXPECT_EQ(loc->last_offset, e.offset);
    EXPECT_EQ(loc->position, e.position);
}

TEST(Segment, Kip74OversizeFirstBatchIsReturnedWhole) {
    TempDir dir;
    Segment segment(dir.path(), 0, small_interval(), 0);
    segment.make_active();
    auto batches = fill(segment, 0, 3, 10, 1000);  // ~10 KB each
    auto got = segment.read(0, 100, std::nullopt, true);
    ASSERT_TRUE(got);
    EXPECT_EQ(*got, batches[0]);
    auto none = segment.read(0, 100, std::nullopt, false);
    ASSERT_TRUE(none);
    EXPECT_TRUE(none->empty());
    // Trailing partial batches are cut: 1.5 batches of budget gives one.
    auto one = segment.read(0, batches[0].size() + batches[1].size() / 2, std::nullopt, true);
    EXPECT_EQ(*one, batches[0]);
}

TEST(Segment, ReadStopsBeforeMaxOffset) {
    TempDir dir;
    Segment segment(dir.path(), 0, small_interval(), 0);
    segment.make_active();
    auto batches = fill(segment, 0, 4, 5);
    auto got = segment.read(0, 1 << 20, 10, true);
    wire::Bytes expected = batches[0];
    expected.insert(expected.end(), batches[1].begin(), batches[1].end());
    EXPECT_EQ(*got, expected);
    auto empty = segment.read(10, 1 << 20, 10, true);
    ASSERT_TRUE(empty);
    EXPECT_TRUE(empty->empty());
}

TEST(Segment, FindOffsetByTimestampReturnsExactRecord) {
    TempDir dir;
    Segment segment(dir.path(), 0, small_interval(), 0);
    segment.make_active();
    fill(segment, 0, 30, 5, 100, 1000);  // batch i: offsets 5i..5i+4, timestamps 1000+10i..+4
    EXPECT_EQ(segment.find_offset_by_timestamp(0, 0), (FoundRecord{0, 1000, -1}));
    EXPECT_EQ(segment.find_offset_by_timestamp(1102, 0), (FoundRecord{52, 1102, -1}));
    EXPECT_EQ(segment.find_offset_by_timestamp(1105, 0), (FoundRecord{55, 1110, -1}));  // gap: next record
    EXPECT_EQ(segment.find_offset_by_timestamp(1000, 7), (FoundRecord{7, 1012, -1}));   // starting offset
    EXPECT_FALSE(segment.find_offset_by_timestamp(5000, 0));
    EXPECT_EQ(segment.max_timestamp(), 1294);
    EXPECT_EQ(segment.find_max_timestamp(), (FoundRecord{149, 1294, -1}));
    EXPECT_GT(segment.time_index().entries(), 0u);
}

TEST(Segment, RecoverRebuildsSameIndexes) {
    TempDir dir;
    std::vector<OffsetPosition> offsets;
    std::vector<TimestampOffset> times;
    {
        Segment segment(dir.path(), 0, small_interval(), 0);
        segment.make_active();
        fill(segment, 0, 40, 3);
        for (std::size_t i = 0; i < segment.offset_index().entries(); ++i)
            offsets.push_back(segment.offset_index().entry(i));
        for (std::size_t i = 0; i < segment.time_index().entries(); ++i) times.push_back(segment.time_index().entry(i));
        segment.release();
    }
    std::filesystem::remove(dir.path() / "00000000000000000000.index");
    Segment segment(dir.path(), 0, small_interval(), 0);
    EXPECT_FALSE(segment.indexes_sane());
    EXPECT_EQ(segment.recover(), 0u);
    EXPECT_EQ(segment.next_offset(), 120);
    ASSERT_EQ(segment.offset_index().entries(), offsets.size());
    for (std::size_t i = 0; i < offsets.size(); ++i) EXPECT_EQ(segment.offset_index().entry(i), offsets[i]);
    ASSERT_EQ(segment.time_index().entries(), times.size());
    for (std::size_t i = 0; i < times.size(); ++i) EXPECT_EQ(segment.time_index().entry(i), times[i]);
}

TEST(Segment, RollDecisions) {
    TempDir dir;
    Segment segment(dir.path(), 0, {16, 4096}, 1'000'000);  // offset index holds two entries
    segment.make_active();
    RollParams p{1000, 60'000, 100, -1, 10, 1'000'000};
    EXPECT_FALSE(segment.should_roll(p));  // empty segments never roll
    fill(segment, 0, 1, 1, 100, 5000);
    EXPECT_FALSE(segment.should_roll(p));
    p.messages_size = 1000;
    EXPECT_TRUE(segment.should_roll(p));  // size
    p.messages_size = 10;
    p.max_timestamp_in_messages = 5000 + 60'001;
    EXPECT_TRUE(segment.should_roll(p));  // message time since the first batch
    p.max_timestamp_in_messages = -1;
    p.now_ms = 1'000'000 + 60'001;
    EXPECT_TRUE(segment.should_roll(p));  // wall-clock age without timestamps
    p.now_ms = 1'000'000;
    p.max_offset_in_messages = std::int64_t{1} << 33;
    EXPECT_TRUE(segment.should_roll(p));  // relative offset overflow
}

TEST(Segment, TruncateToRemovesBatchContainingOffset) {
    TempDir dir;
    Segment segment(dir.path(), 0, small_interval(), 0);
    segment.make_active();
    auto batches = fill(segment, 0, 30, 4);
    auto removed = segment.truncate_to(41);  // inside batch 10 (40..43)
    EXPECT_EQ(segment.next_offset(), 40);
    EXPECT_EQ(segment.size(), 10 * batches[0].size());
    EXPECT_EQ(removed, 20 * batches[0].size());
    EXPECT_FALSE(segment.translate_offset(40));
    EXPECT_TRUE(segment.translate_offset(39));
    EXPECT_LT(segment.max_timestamp(), 1000 + 100);
    EXPECT_EQ(segment.max_timestamp(), 1000 + 9 * 10 + 3);
    // Appending again works and indexes stay consistent.
    auto more = test::make_batch(4, 100, 5000);
    records::set_base_offset(more, 40);
    segment.append(more);
    EXPECT_EQ(*segment.read(40, 1 << 20, std::nullopt, true), more);
}

// Batches whose header claims no max timestamp (-1), as Sarama 1.22 sends them
// and as older logs may hold them.
void append_without_max_timestamp(Segment& segment, std::int64_t base, int n, int records_per_batch) {
    for (int i = 0; i < n; ++i) {
        auto batch = test::make_batch(records_per_batch, 100, 1000 + i);
        records::set_max_timestamp(batch, records::TimestampType::create_time, -1);
        records::set_base_offset(batch, base + std::int64_t{i} * records_per_batch);
        segment.append(batch);
    }
}

TEST(Segment, BatchesWithoutMaxTimestampNeverPutAnOffsetBelowTheBaseIntoTheTimeIndex) {
    TempDir dir;
    {
        Segment segment(dir.path(), 0, small_interval(), 0);
        segment.make_active();
        ASSERT_NO_THROW(append_without_max_timestamp(segment, 0, 20, 3));  // ~20 index intervals
        EXPECT_EQ(segment.next_offset(), 60);
        EXPECT_GT(segment.offset_index().entries(), 5u);
        EXPECT_EQ(segment.time_index().entries(), 0u);
        EXPECT_EQ(segment.max_timestamp(), -1);
        EXPECT_FALSE(segment.find_max_timestamp());

        // Timestamps arriving later are indexed at their own batches.
        fill(segment, 60, 5, 3, 100, 5000);
        ASSERT_GT(segment.time_index().entries(), 0u);
        for (std::size_t i = 0; i < segment.time_index().entries(); ++i)
            EXPECT_GE(segment.time_index().entry(i).offset, 60) << i;
        EXPECT_EQ(segment.find_offset_by_timestamp(5000, 0), (FoundRecord{60, 5000, -1}));
        segment.close();
    }
    Segment reopened(dir.path(), 0, small_interval(), 0);
    EXPECT_TRUE(reopened.indexes_sane());
    EXPECT_EQ(reopened.time_index().last_entry(), (TimestampOffset{5042, 74}));
    EXPECT_TRUE(reopened.load_tail());
    EXPECT_EQ(reopened.next_offset(), 75);
    // A rescan of such a log (crash recovery) rebuilds the same.
    EXPECT_EQ(reopened.recover(), 0u);
    EXPECT_EQ(reopened.next_offset(), 75);
    for (std::size_t i = 0; i < reopened.time_index().entries(); ++i)
        EXPECT_GE(reopened.time_index().entry(i).offset, 60) << i;
}

TEST(Segment, WithoutAnyTimestampCloseAddsNoTimeEntry) {
    TempDir dir;
    {
        Segment segment(dir.path(), 50, small_interval(), 0);
        segment.make_active();
        append_without_max_timestamp(segment, 50, 10, 3);
        segment.close();
    }
    EXPECT_EQ(test::file_size(dir.path() / "00000000000000000050.timeindex"), 0u);
    Segment reopened(dir.path(), 50, small_interval(), 0);
    EXPECT_TRUE(reopened.indexes_sane());
    EXPECT_TRUE(reopened.load_tail());
    EXPECT_EQ(reopened.next_offset(), 80);
}

TEST(Segment, CloseTrimsIndexesAndAddsFinalTimeEntry) {
    TempDir dir;
    {
        Segment segment(dir.path(), 0, small_interval(), 0);
        segment.make_active();
        fill(segment, 0, 3, 1, 10);  // too small for any index entry
        EXPECT_EQ(segment.time_index().entries(), 0u);
        segment.close();
    }
    EXPECT_EQ(test::file_size(dir.path() / "00000000000000000000.index"), 0u);
    EXPECT_EQ(test::file_size(dir.path() / "00000000000000000000.timeindex"), 12u);
    Segment reopened(dir.path(), 0, small_interval(), 0);
    EXPECT_TRUE(reopened.indexes_sane());
    EXPECT_EQ(reopened.max_timestamp(), 1020);
    EXPECT_TRUE(reopened.load_tail());
    EXPECT_EQ(reopened.next_offset(), 3);
}

}  // namespace
}  // namespace weir::storage
