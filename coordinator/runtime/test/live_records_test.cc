// The live view of a __consumer_offsets partition that drives compaction.
#include "coordinator/runtime/live_records.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <set>
#include <string>

namespace weir::coordinator::runtime {
namespace {

wire::Bytes b(std::string_view s) { return {s.begin(), s.end()}; }

TEST(LiveRecords, LatestValuePerKeyAndDirtyRatio) {
    LiveRecords live;
    std::int64_t next = 0;  // the log offset of the next record
    for (int i = 0; i < 10; ++i) live.apply(b("key"), wire::ByteSpan(b("value")), 1000 + i, next++);
    EXPECT_EQ(live.live_count(), 1u);
    EXPECT_NEAR(live.dirty_ratio(), 0.9, 1e-9);
    live.apply(b("other"), wire::ByteSpan(b("v")), 2000, next++);
    EXPECT_EQ(live.live_count(), 2u);
    live.apply(b("key"), std::nullopt, 3000, next++);
    EXPECT_EQ(live.live_count(), 1u);
    EXPECT_EQ(live.tombstone_count(), 1u);
}

TEST(LiveRecords, CompactsWhenDirtyAndLargeEnough) {
    LiveRecords live;
    std::int64_t next = 0;  // the log offset of the next record
    CompactionPolicy policy;
    policy.min_cleanable_dirty_ratio = 0.5;
    policy.min_dirty_bytes = 1000;
    live.apply(b("k"), wire::ByteSpan(b("v")), 0, next++);
    EXPECT_FALSE(live.should_compact(0, policy));
    for (int i = 0; i < 10; ++i) live.apply(b("k"), wire::ByteSpan(b("v")), 0, next++);
    EXPECT_FALSE(live.should_compact(0, policy));  // dirty, but less than min_dirty_bytes
    for (int i = 0; i < 100; ++i) live.apply(b("k"), wire::ByteSpan(b("v")), 0, next++);
    EXPECT_TRUE(live.should_compact(0, policy));
    auto records = live.snapshot(0, policy.delete_retention_ms);
    ASSERT_EQ(records.size(), 1u);
    live.compacted(0);
    EXPECT_EQ(live.total_bytes(), live.live_bytes());
    EXPECT_FALSE(live.should_compact(0, policy));
}

TEST(LiveRecords, CompactsBeforeRetentionCouldDeleteLiveData) {
    LiveRecords live;
    std::int64_t next = 0;  // the log offset of the next record
    CompactionPolicy policy;
    policy.min_dirty_bytes = 1u << 30;
    policy.retention_ms = 1000;
    live.apply(b("k"), wire::ByteSpan(b("v")), 100, next++);
    EXPECT_FALSE(live.should_compact(599, policy));
    EXPECT_TRUE(live.should_compact(600, policy));
    live.snapshot(600, policy.delete_retention_ms);
    live.compacted(600);
    EXPECT_FALSE(live.should_compact(1099, policy));
}

TEST(LiveRecords, OldTombstonesAreDroppedRecentOnesKept) {
    LiveRecords live;
    std::int64_t next = 0;  // the log offset of the next record
    live.apply(b("a"), std::nullopt, 0, next++);
    live.apply(b("b"), std::nullopt, 900, next++);
    live.apply(b("c"), wire::ByteSpan(b("v")), 900, next++);
    auto records = live.snapshot(1000, 500);  // "a" is 1000 ms old, "b" 100 ms
    ASSERT_EQ(records.size(), 2u);
    int tombstones = 0;
    for (const auto& r : records) {
        if (!r.value) {
            ++tombstones;
            EXPECT_EQ(r.key, b("b"));
        }
    }
    EXPECT_EQ(tombstones, 1);
    EXPECT_EQ(live.tombstone_count(), 1u);
}

TEST(LiveRecords, TransactionalRecordsCountOnlyOnceCommitted) {
    LiveRecords live;
    std::int64_t next = 0;  // the log offset of the next record
    CompactionPolicy policy;
    policy.min_cleanable_dirty_ratio = 0.1;
    for (int i = 0; i < 50; ++i) live.apply(b("k"), wire::ByteSpan(b("v")), 0, next++);
    ASSERT_TRUE(live.should_compact(0, policy));
    live.apply_transactional(7, b("t"), wire::ByteSpan(b("pending")), 0, next++);
    EXPECT_EQ(live.live_count(), 1u);
    // An open transaction's records must not be rewritten or dropped.
    EXPECT_TRUE(live.has_open_transactions());
    EXPECT_FALSE(live.should_compact(0, policy));
    live.apply_transactional(8, b("u"), wire::ByteSpan(b("aborted")), 0, next++);
    live.end_transaction(7, true, 0);
    live.end_transaction(8, false, 0);
    EXPECT_FALSE(live.has_open_transactions());
    EXPECT_EQ(live.live_count(), 2u);
    auto records = live.snapshot(0, policy.delete_retention_ms);
    std::set<std::string> keys;
    for (const auto& r : records) keys.emplace(r.key.begin(), r.key.end());
    EXPECT_EQ(keys, (std::set<std::string>{"k", "t"}));
}

TEST(LiveRecords, ACommittedTransactionNeverShadowsALaterRecordOfItsKey) {
    LiveRecords live;
    live.apply_transactional(7, b("k"), wire::ByteSpan(b("txn")), 0, 10);
    live.apply(b("k"), wire::ByteSpan(b("plain")), 0, 11);
    live.apply_transactional(7, b("j"), wire::ByteSpan(b("txn")), 0, 12);
    live.apply(b("j"), std::nullopt, 0, 13);
    live.apply_transactional(7, b("i"), wire::ByteSpan(b("txn")), 0, 14);
    live.end_transaction(7, true, 0);
    auto records = live.snapshot(0, 86400000);
    std::map<std::string, std::optional<std::string>> values;
    for (const auto& r : records)
        values[std::string(r.key.begin(), r.key.end())] =
            r.value ? std::optional<std::string>(std::string(r.value->begin(), r.value->end())) : std::nullopt;
    // The plain write and the tombstone came later in the log: they stay.
    EXPECT_EQ(values["k"], std::optional<std::string>("plain"));
    EXPECT_EQ(values["j"], std::nullopt);
    EXPECT_EQ(values["i"], std::optional<std::string>("txn"));
}

}  // namespace
}  // namespace weir::coordinator::runtime
