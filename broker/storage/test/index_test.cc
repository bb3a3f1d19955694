#include <gtest/gtest.h>

#include "broker/storage/log_error.h"
#include "broker/storage/offset_index.h"
#include "broker/storage/test/storage_test_util.h"
#include "broker/storage/time_index.h"

namespace weir::storage {
namespace {

using test::TempDir;

TEST(OffsetIndex, LookupFindsLargestEntryAtOrBelowTarget) {
    TempDir dir;
    OffsetIndex index(dir.path() / "00000000000000000100.index", 100, 1024);
    index.append(110, 0);
    index.append(120, 4100);
    index.append(135, 8300);
    EXPECT_EQ(index.entries(), 3u);
    EXPECT_EQ(index.lookup(99), (OffsetPosition{100, 0}));  // before the first entry
    EXPECT_EQ(index.lookup(109), (OffsetPosition{100, 0}));
    EXPECT_EQ(index.lookup(110), (OffsetPosition{110, 0}));  // exact
    EXPECT_EQ(index.lookup(119), (OffsetPosition{110, 0}));  // sparse: between entries
    EXPECT_EQ(index.lookup(120), (OffsetPosition{120, 4100}));
    EXPECT_EQ(index.lookup(1000), (OffsetPosition{135, 8300}));
    EXPECT_EQ(index.last_entry(), (OffsetPosition{135, 8300}));
}

TEST(OffsetIndex, RejectsNonIncreasingEntriesAndFullIndex) {
    TempDir dir;
    OffsetIndex index(dir.path() / "x.index", 0, 16);  // room for two entries
    index.append(5, 10);
    EXPECT_THROW(index.append(5, 20), StorageError);
    EXPECT_THROW(index.append(6, 10), StorageError);
    index.append(6, 20);
    EXPECT_TRUE(index.full());
    EXPECT_THROW(index.append(7, 30), StorageError);
}

TEST(OffsetIndex, PreallocatesWhenActiveAndTrimsAndPersists) {
    TempDir dir;
    auto path = dir.path() / "00000000000000000000.index";
    {
        OffsetIndex index(path, 0, 800);
        index.make_active();
        EXPECT_EQ(test::file_size(path), 800u);
        for (int i = 1; i <= 10; ++i) index.append(i * 10, static_cast<std::uint32_t>(i * 1000));
        index.trim();
        EXPECT_EQ(test::file_size(path), 80u);
    }
    OffsetIndex reopened(path, 0, 800);
    EXPECT_EQ(reopened.entries(), 10u);
    EXPECT_TRUE(reopened.sanity_check(20000));
    EXPECT_FALSE(reopened.sanity_check(10000));  // last position beyond the log
    EXPECT_EQ(reopened.lookup(55), (OffsetPosition{50, 5000}));
}

TEST(OffsetIndex, TruncateToDropsEntriesAtOrAboveOffset) {
    TempDir dir;
    OffsetIndex index(dir.path() / "x.index", 0, 1024);
    for (int i = 1; i <= 5; ++i) index.append(i * 10, static_cast<std::uint32_t>(i * 100));
    index.truncate_to(30);
    EXPECT_EQ(index.entries(), 2u);
    EXPECT_EQ(index.last_entry(), (OffsetPosition{20, 200}));
    index.append(25, 250);  // appends continue after truncation
    EXPECT_EQ(index.lookup(29), (OffsetPosition{25, 250}));
}

TEST(OffsetIndex, SanityCheckRejectsBadLengthAndUntrimmedPreallocation) {
    TempDir dir;
    auto path = dir.path() / "x.index";
    {
        OffsetIndex index(path, 0, 800);
        index.make_active();
        index.append(10, 100);
        index.append(20, 200);
        index.release();  // a crash: the preallocated zeros stay
    }
    {
        OffsetIndex reopened(path, 0, 800);
        EXPECT_EQ(reopened.entries(), 100u);
        EXPECT_FALSE(reopened.sanity_check(1000));
    }
    std::filesystem::resize_file(path, 13);
    OffsetIndex odd(path, 0, 800);
    EXPECT_FALSE(odd.sanity_check(1000));
}

TEST(TimeIndex, AppendsOnlyWhenTimestampGrows) {
    TempDir dir;
    TimeIndex index(dir.path() / "x.timeindex", 100, 1200);
    index.maybe_append(5000, 110);
    index.maybe_append(5000, 120);  // same timestamp: ignored
    index.maybe_append(4000, 130);  // smaller: ignored
    index.maybe_append(6000, 140);
    EXPECT_EQ(index.entries(), 2u);
    EXPECT_THROW(index.maybe_append(7000, 139), StorageError);  // offsets never go back
    EXPECT_EQ(index.last_entry(), (TimestampOffset{6000, 140}));
}

TEST(TimeIndex, NoTimestampNeverMakesAnEntry) {
    TempDir dir;
    TimeIndex index(dir.path() / "x.timeindex", 100, 1200);
    EXPECT_NO_THROW(index.maybe_append(-1, -1));  // an empty index compares with {-1, base}
    EXPECT_NO_THROW(index.maybe_append(-1, 105));
    EXPECT_EQ(index.entries(), 0u);
    index.maybe_append(0, 106);
    EXPECT_EQ(index.last_entry(), (TimestampOffset{0, 106}));
}

TEST(TimeIndex, LookupAndTruncate) {
    TempDir dir;
    TimeIndex index(dir.path() / "x.timeindex", 100, 1200);
    EXPECT_EQ(index.lookup(1), (TimestampOffset{-1, 100}));
    EXPECT_EQ(index.last_entry(), (TimestampOffset{-1, 100}));
    index.maybe_append(1000, 105);
    index.maybe_append(2000, 110);
    index.maybe_append(3000, 120);
    EXPECT_EQ(index.lookup(999), (TimestampOffset{-1, 100}));
    EXPECT_EQ(index.lookup(1000), (TimestampOffset{1000, 105}));
    EXPECT_EQ(index.lookup(2500), (TimestampOffset{2000, 110}));
    EXPECT_EQ(index.lookup(9999), (TimestampOffset{3000, 120}));
    index.truncate_to(110);
    EXPECT_EQ(index.entries(), 1u);
    EXPECT_EQ(index.last_entry(), (TimestampOffset{1000, 105}));
}

TEST(TimeIndex, SanityCheck) {
    TempDir dir;
    auto path = dir.path() / "x.timeindex";
    {
        TimeIndex index(path, 0, 1200);
        index.maybe_append(1000, 5);
        index.maybe_append(2000, 9);
        index.trim();
        EXPECT_TRUE(index.sanity_check());
        index.make_active();
        index.release();
    }
    TimeIndex untrimmed(path, 0, 1200);
    EXPECT_FALSE(untrimmed.sanity_check());  // trailing zero entries
    std::filesystem::resize_file(path, 25);
    TimeIndex odd(path, 0, 1200);
    EXPECT_FALSE(odd.sanity_check());
}

TEST(TimeIndex, FullIndexOnlyAcceptsForcedFinalEntryWhenRoomRemains) {
    TempDir dir;
    TimeIndex index(dir.path() / "x.timeindex", 0, 24);
    index.maybe_append(1, 1);
    index.maybe_append(2, 2);
    EXPECT_TRUE(index.full());
    EXPECT_THROW(index.maybe_append(3, 3), StorageError);
    EXPECT_NO_THROW(index.maybe_append(3, 3, true));
    EXPECT_EQ(index.entries(), 2u);
}

}  // namespace
}  // namespace weir::storage
