// The log cleaner: its pure decisions (cleanable section, dirty ratio,
// grouping, the batch filter) and cleanings of real logs under a fake clock:
// deduplication, tombstones and delete.retention.ms, the active segment,
// offsets and gaps, compressed batches, crash-safe swaps, checkpoints.
#include "broker/storage/log_cleaner.h"

#include <gtest/gtest.h>

#include <chrono>
#include <exception>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "broker/storage/log_cleaner_manager.h"
#include "broker/storage/log_manager.h"
#include "broker/storage/partition_log.h"
#include "broker/storage/test/storage_test_util.h"
#include "protocol/records/compression.h"

namespace weir::storage {
namespace {

using records::Compression;
using test::TempDir;

wire::Bytes bytes(std::string_view s) { return {s.begin(), s.end()}; }

struct KV {
    std::optional<std::string> key;
    std::optional<std::string> value;
};

// One batch of keyed records (timestamps base_timestamp + i), base offset 0.
wire::Bytes keyed_batch(const std::vector<KV>& kvs, std::int64_t base_timestamp = 1000,
                        Compression compression = Compression::none) {
    records::BatchBuilderOptions options;
    options.base_timestamp = base_timestamp;
    options.compression = compression;
    std::vector<records::Record> recs;
    for (std::size_t i = 0; i < kvs.size(); ++i) {
        records::Record r;
        r.offset_delta = static_cast<std::int32_t>(i);
        r.timestamp_delta = static_cast<std::int64_t>(i);
        if (kvs[i].key) r.key = bytes(*kvs[i].key);
        if (kvs[i].value) r.value = bytes(*kvs[i].value);
        recs.push_back(std::move(r));
    }
    return records::build_batch(options, recs);
}

struct Seen {
    std::int64_t offset = 0;
    std::optional<std::string> key;
    std::optional<std::string> value;
    std::int64_t timestamp = 0;
    bool operator==(const Seen&) const = default;
};

std::string str(const std::optional<wire::Bytes>& b) { return b ? std::string(b->begin(), b->end()) : "<null>"; }

// What a consumer sees from `from` on: records in order, skipping gaps and empty batches.
std::vector<Seen> consume(const PartitionLog& log, std::int64_t from = 0) {
    std::vector<Seen> out;
    auto offset = std::max(from, log.log_start_offset());
    for (int guard = 0; offset < log.log_end_offset() && guard < 100000; ++guard) {
        auto r = log.read(offset, {.max_bytes = 1 << 20});
        EXPECT_EQ(r.error, ErrorCode::none);
        if (r.records.empty()) break;
        for (auto batch : records::split_batches(r.records, false)) {
            EXPECT_TRUE(records::crc_valid(batch));
            auto h = records::parse_batch_header(batch);
            for (const auto& rec : records::decode_records(batch)) {
                auto o = h.base_offset + rec.offset_delta;
                if (o < offset) continue;
                Seen s{o, std::nullopt, std::nullopt, h.base_timestamp + rec.timestamp_delta};
                if (rec.key) s.key = str(rec.key);
                if (rec.value) s.value = str(rec.value);
                out.push_back(s);
            }
            offset = h.last_offset() + 1;
        }
    }
    return out;
}

std::map<std::string, std::string> latest_values(const std::vector<Seen>& seen) {
    std::map<std::string, std::string> out;
    for (const auto& s : seen)
        if (s.key) out[*s.key] = s.value.value_or("<tombstone>");
    return out;
}

wire::Bytes file_bytes(const std::filesystem::path& p) {
    std::ifstream f(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

std::vector<std::string> leftovers(const std::filesystem::path& dir) {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
        auto name = e.path().filename().string();
        if (name.ends_with(".cleaned") || name.ends_with(".swap")) out.push_back(name);
    }
    return out;
}

// ---- Pure decisions -------------------------------------------------------

SegmentStats seg(std::int64_t base, std::uint64_t size, std::int64_t largest_ts = 0, std::int64_t first_ts = -1) {
    SegmentStats s;
    s.base_offset = base;
    s.size = size;
    s.largest_timestamp = largest_ts;
    s.first_batch_timestamp = first_ts;
    s.offset_index_bytes = 8;
    s.time_index_bytes = 12;
    return s;
}

TEST(CleanableSection, ActiveSegmentAndLastStableOffsetBoundIt) {
    std::vector<SegmentStats> s{seg(0, 100), seg(10, 100), seg(20, 100), seg(30, 50)};
    LogConfig config;
    auto section = find_cleanable_section(s, {0, 35, 35}, std::nullopt, config, 1000);
    EXPECT_EQ(section.first_dirty_offset, 0);
    EXPECT_EQ(section.first_uncleanable_offset, 30);  // the active segment
    EXPECT_EQ(section.clean_bytes, 0u);
    EXPECT_EQ(section.cleanable_bytes, 300u);
    // The last stable offset inside segment 10: that whole segment is uncleanable.
    section = find_cleanable_section(s, {0, 15, 35}, std::nullopt, config, 1000);
    EXPECT_EQ(section.first_uncleanable_offset, 10);
    EXPECT_EQ(section.cleanable_bytes, 100u);
}

TEST(CleanableSection, DirtyRatioFromTheCheckpoint) {
    std::vector<SegmentStats> s{seg(0, 100), seg(10, 100), seg(20, 100), seg(30, 100), seg(40, 10)};
    LogConfig config;
    auto section = find_cleanable_section(s, {0, 45, 45}, 30, config, 1000);
    EXPECT_EQ(section.first_dirty_offset, 30);
    EXPECT_EQ(section.clean_bytes, 300u);
    EXPECT_EQ(section.cleanable_bytes, 100u);
    EXPECT_DOUBLE_EQ(section.cleanable_ratio(), 0.25);
    config.min_cleanable_dirty_ratio = 0.2;
    EXPECT_TRUE(worth_cleaning(section, config));
    config.min_cleanable_dirty_ratio = 0.25;  // Kafka: strictly greater
    EXPECT_FALSE(worth_cleaning(section, config));
    config.min_cleanable_dirty_ratio = 0.5;
    EXPECT_FALSE(worth_cleaning(section, config));
    // All clean: nothing to do whatever the ratio.
    section = find_cleanable_section(s, {0, 45, 45}, 40, config, 1000);
    EXPECT_EQ(section.cleanable_bytes, 0u);
    config.min_cleanable_dirty_ratio = 0;
    EXPECT_FALSE(worth_cleaning(section, config));
}

TEST(CleanableSection, CheckpointOutsideTheLogIsReset) {
    std::vector<SegmentStats> s{seg(100, 100), seg(110, 100), seg(120, 10)};
    LogConfig config;
    auto below = find_cleanable_section(s, {105, 125, 125}, 50, config, 1000);
    EXPECT_TRUE(below.checkpoint_reset);
    EXPECT_EQ(below.first_dirty_offset, 105);
    auto above = find_cleanable_section(s, {100, 125, 125}, 500, config, 1000);
    EXPECT_TRUE(above.checkpoint_reset);
    EXPECT_EQ(above.first_dirty_offset, 100);
    EXPECT_FALSE(find_cleanable_section(s, {100, 125, 125}, std::nullopt, config, 1000).checkpoint_reset);
}

TEST(CleanableSection, CompactionLags) {
    // Largest timestamps 1000, 2000, 3000; first batches 900, 1900, 2900.
    std::vector<SegmentStats> s{seg(0, 100, 1000, 900), seg(10, 100, 2000, 1900), seg(20, 100, 3000, 2900),
                                seg(30, 10, 4000, 3900)};
    LogConfig config;
    config.min_compaction_lag_ms = 1500;  // at 3600: segments newer than 2100 are too young
    auto section = find_cleanable_section(s, {0, 35, 35}, std::nullopt, config, 3600);
    EXPECT_EQ(section.first_uncleanable_offset, 20);
    EXPECT_EQ(section.cleanable_bytes, 200u);
    EXPECT_FALSE(section.needs_compaction_now);

    config.min_compaction_lag_ms = 0;
    config.min_cleanable_dirty_ratio = 0.99;
    config.max_compaction_lag_ms = 3000;  // at 5000 the first dirty batch (1900) is overdue
    section = find_cleanable_section(s, {0, 35, 35}, 10, config, 5000);
    EXPECT_TRUE(section.needs_compaction_now);
    EXPECT_TRUE(worth_cleaning(section, config));
    config.max_compaction_lag_ms = 3200;  // not yet; the clean segment's 900 does not count
    section = find_cleanable_section(s, {0, 35, 35}, 10, config, 5000);
    EXPECT_FALSE(section.needs_compaction_now);
    EXPECT_FALSE(worth_cleaning(section, config));
}

TEST(GroupSegments, BySizeAndIndexSize) {
    std::vector<SegmentStats> s{seg(0, 40), seg(10, 40), seg(20, 40), seg(30, 90), seg(40, 5)};
    auto groups = group_segments_by_size(s, 100, 1000, 50);
    ASSERT_EQ(groups.size(), 3u);
    EXPECT_EQ(groups[0], (std::vector<std::size_t>{0, 1}));
    EXPECT_EQ(groups[1], (std::vector<std::size_t>{2}));
    EXPECT_EQ(groups[2], (std::vector<std::size_t>{3, 4}));
    // Index bytes bound a group too (8 and 12 bytes per segment here).
    groups = group_segments_by_size(s, 1000, 24, 50);
    ASSERT_EQ(groups.size(), 3u);
    EXPECT_EQ(groups[2], (std::vector<std::size_t>{4}));
}

TEST(OffsetMapTest, LatestOffsetWinsAndMemoryIsBounded) {
    OffsetMap map(1000);
    map.put(bytes("a"), 5);
    map.put(bytes("a"), 3);
    map.put(bytes("b"), 7);
    EXPECT_EQ(map.get(bytes("a")), 5);
    EXPECT_EQ(map.get(bytes("b")), 7);
    EXPECT_EQ(map.get(bytes("c")), -1);
    EXPECT_EQ(map.size(), 2u);
    EXPECT_FALSE(map.full());
    for (int i = 0; i < 100 && !map.full(); ++i) map.put(bytes("key-" + std::to_string(i)), i);
    EXPECT_TRUE(map.full());
    EXPECT_LT(map.size(), 20u);
}

struct FilterFixture : ::testing::Test {
    OffsetMap map{1 << 20};
    RecordFilter filter{&map, 50'000, 10'000};

    // The batch as the log would store it at `base`.
    static wire::Bytes at(wire::Bytes batch, std::int64_t base) {
        records::set_base_offset(batch, base);
        return batch;
    }
};

TEST_F(FilterFixture, KeepsTheLatestOfEachKeyWithOffsetsAndCodec) {
    for (auto codec :
         {Compression::none, Compression::gzip, Compression::snappy, Compression::lz4, Compression::zstd}) {
        map.clear();
        auto batch = at(keyed_batch({{"a", "1"}, {"b", "2"}, {"a", "3"}, {"c", "4"}}, 2000, codec), 100);
        map.put(bytes("a"), 102);
        map.put(bytes("b"), 101);
        map.put(bytes("c"), 200);  // a later record of c exists
        map.update_latest_offset(103);
        auto f = filter_batch(batch, filter, false);
        ASSERT_EQ(f.outcome, FilteredBatch::Outcome::rewritten) << records::compression_name(codec);
        EXPECT_TRUE(records::crc_valid(f.bytes));
        auto h = records::parse_batch_header(f.bytes);
        EXPECT_EQ(h.compression(), codec);
        EXPECT_EQ(h.base_offset, 100);
        EXPECT_EQ(h.last_offset_delta, 3);  // offsets never change
        EXPECT_EQ(h.record_count, 2);
        EXPECT_EQ(h.max_timestamp, 2002);  // of the kept records
        auto recs = records::decode_records(f.bytes);
        ASSERT_EQ(recs.size(), 2u);
        EXPECT_EQ(recs[0].offset_delta, 1);
        EXPECT_EQ(str(recs[0].value), "2");
        EXPECT_EQ(recs[1].offset_delta, 2);
        EXPECT_EQ(str(recs[1].value), "3");
        EXPECT_EQ(h.base_timestamp + recs[1].timestamp_delta, 2002);
        EXPECT_FALSE(delete_horizon(h));
        EXPECT_EQ(f.records_read, 4);
        EXPECT_EQ(f.records_kept, 2);
    }
}

TEST_F(FilterFixture, UntouchedBatchesKeepTheirBytes) {
    auto batch = at(keyed_batch({{"a", "1"}, {"b", "2"}}), 10);
    map.update_latest_offset(5);  // past the map: nothing judged
    EXPECT_EQ(filter_batch(batch, filter, false).outcome, FilteredBatch::Outcome::unchanged);
    map.put(bytes("a"), 10);
    map.put(bytes("b"), 11);
    map.update_latest_offset(11);
    EXPECT_EQ(filter_batch(batch, filter, false).outcome, FilteredBatch::Outcome::unchanged);
}

TEST_F(FilterFixture, RecordsWithoutKeyAreDroppedAsKafkaDoes) {
    auto batch = at(keyed_batch({{std::nullopt, "x"}, {"a", "1"}}), 0);
    map.put(bytes("a"), 1);
    map.update_latest_offset(1);
    auto f = filter_batch(batch, filter, false);
    ASSERT_EQ(f.outcome, FilteredBatch::Outcome::rewritten);
    EXPECT_EQ(f.unkeyed_dropped, 1);
    auto recs = records::decode_records(f.bytes);
    ASSERT_EQ(recs.size(), 1u);
    EXPECT_EQ(str(recs[0].key), "a");
    // Past the map's latest offset they are not judged, so they stay.
    map.clear();
    EXPECT_EQ(filter_batch(batch, filter, false).outcome, FilteredBatch::Outcome::unchanged);
}

TEST_F(FilterFixture, TombstonesGetADeleteHorizonThenGo) {
    auto batch = at(keyed_batch({{"a", std::nullopt}, {"b", "2"}}, 3000), 0);
    map.put(bytes("a"), 0);
    map.put(bytes("b"), 1);
    map.update_latest_offset(1);
    auto first = filter_batch(batch, filter, false);
    ASSERT_EQ(first.outcome, FilteredBatch::Outcome::rewritten);
    auto h = records::parse_batch_header(first.bytes);
    ASSERT_TRUE(delete_horizon(h));
    EXPECT_EQ(*delete_horizon(h), filter.now_ms + filter.delete_retention_ms);
    auto recs = records::decode_records(first.bytes);
    ASSERT_EQ(recs.size(), 2u);
    EXPECT_EQ(h.base_timestamp + recs[0].timestamp_delta, 3000);  // record timestamps unchanged
    EXPECT_EQ(h.base_timestamp + recs[1].timestamp_delta, 3001);
    EXPECT_EQ(h.max_timestamp, 3001);

    // Later cleanings: the batch is in the clean section (keys not in the map).
    OffsetMap later(1 << 20);
    later.update_latest_offset(100);
    RecordFilter before{&later, *delete_horizon(h) - 1, 10'000};
    EXPECT_EQ(filter_batch(first.bytes, before, false).outcome, FilteredBatch::Outcome::unchanged);
    RecordFilter after{&later, *delete_horizon(h), 10'000};
    auto gone = filter_batch(first.bytes, after, false);
    ASSERT_EQ(gone.outcome, FilteredBatch::Outcome::rewritten);
    auto left = records::decode_records(gone.bytes);
    ASSERT_EQ(left.size(), 1u);
    EXPECT_EQ(str(left[0].key), "b");
    EXPECT_TRUE(delete_horizon(records::parse_batch_header(gone.bytes)));
}

TEST_F(FilterFixture, EmptiedBatchesGoOrStayAsAHeader) {
    auto batch = at(keyed_batch({{"a", "1"}, {"a", "2"}}, 3000, Compression::lz4), 40);
    map.put(bytes("a"), 90);
    map.update_latest_offset(90);
    EXPECT_EQ(filter_batch(batch, filter, false).outcome, FilteredBatch::Outcome::removed);
    auto kept = filter_batch(batch, filter, true);
    ASSERT_EQ(kept.outcome, FilteredBatch::Outcome::emptied);
    EXPECT_TRUE(records::crc_valid(kept.bytes));
    auto h = records::parse_batch_header(kept.bytes);
    EXPECT_EQ(h.base_offset, 40);
    EXPECT_EQ(h.last_offset(), 41);
    EXPECT_EQ(h.record_count, 0);
    EXPECT_EQ(h.compression(), Compression::none);
    EXPECT_TRUE(records::decode_records(kept.bytes).empty());
}

// ---- Cleaning real logs -------------------------------------------------

struct Cleaner : ::testing::Test {
    TempDir tmp;
    std::filesystem::path dir = tmp.path() / "compacted-0";
    std::int64_t now = 10'000'000;
    Clock clock = [this] { return now; };

    static LogConfig compacted(std::int64_t segment_bytes = 300) {
        LogConfig c;
        c.segment_bytes = segment_bytes;
        c.index_interval_bytes = 100;
        c.cleanup_compact = true;
        c.cleanup_delete = false;
        c.min_cleanable_dirty_ratio = 0.01;
        c.delete_retention_ms = 60'000;
        return c;
    }
    std::unique_ptr<PartitionLog> open(LogConfig config = compacted(), LoadOptions load = {}) {
        load.clock = clock;
        return std::make_unique<PartitionLog>(dir, TopicPartition{"compacted", 0}, config, load);
    }
    static std::int64_t put(PartitionLog& log, const std::vector<KV>& kvs, std::int64_t ts = 1000,
                            Compression codec = Compression::none) {
        auto b = keyed_batch(kvs, ts, codec);
        return log.append(b).base_offset;
    }
    // Runs a whole cleaning; false if the log was not worth cleaning.
    static bool clean(LogCleanerManager& cleaner, const std::shared_ptr<PartitionLog>& log) {
        if (!cleaner.start_filthiest({log})) return false;
        for (int i = 0; i < 100000 && cleaner.busy(); ++i) cleaner.step();
        EXPECT_FALSE(cleaner.busy());
        return true;
    }
    std::shared_ptr<PartitionLog> shared(LogConfig config = compacted()) {
        return std::shared_ptr<PartitionLog>(open(config));
    }
    LogCleanerManager manager(std::size_t step_bytes = 256 * 1024) {
        CleanerOptions o;
        o.step_bytes = step_bytes;
        return LogCleanerManager(o, clock);
    }
};

TEST_F(Cleaner, KeepsTheLatestRecordOfEachKeyAndLeavesTheActiveSegment) {
    auto log = shared();
    for (int i = 0; i < 30; ++i) put(*log, {{"k" + std::to_string(i % 3), "v" + std::to_string(i)}}, 1000 + i);
    ASSERT_GT(log->segment_count(), 4u);
    auto active_base = log->segment_base_offsets().back();
    auto active_path = dir / segment_file_name(active_base, kLogSuffix);
    auto active_before = file_bytes(active_path);
    auto end = log->log_end_offset();

    auto cleaner = manager();
    ASSERT_TRUE(clean(cleaner, log));
    EXPECT_EQ(cleaner.totals().cleanings, 1u);
    EXPECT_EQ(cleaner.checkpoint(log->topic_partition()), active_base);

    auto seen = consume(*log);
    std::vector<std::int64_t> offsets;
    for (const auto& s : seen) offsets.push_back(s.offset);
    // In the cleaned section, the last record of each key before the active
    // segment; the active segment exactly as it was.
    std::vector<std::int64_t> expected{active_base - 3, active_base - 2, active_base - 1};
    for (auto o = active_base; o < end; ++o) expected.push_back(o);
    EXPECT_EQ(offsets, expected);
    for (const auto& s : seen) {
        EXPECT_EQ(*s.key, "k" + std::to_string(s.offset % 3));
        EXPECT_EQ(*s.value, "v" + std::to_string(s.offset));  // offsets never change
        EXPECT_EQ(s.timestamp, 1000 + s.offset);
    }
    EXPECT_EQ(file_bytes(active_path), active_before);
    EXPECT_EQ(log->segment_base_offsets().back(), active_base);
    EXPECT_EQ(log->log_start_offset(), 0);
    EXPECT_EQ(log->log_end_offset(), end);
    EXPECT_TRUE(leftovers(dir).empty());
    // Appends go on at the log end.
    EXPECT_EQ(put(*log, {{"k0", "new"}}), end);
}

TEST_F(Cleaner, ConsumersReadAcrossGaps) {
    auto log = shared();
    for (int i = 0; i < 40; ++i)
        put(*log, {{i % 10 == 5 ? "keep-" + std::to_string(i) : "dup", "v" + std::to_string(i)}});
    auto cleaner = manager();
    ASSERT_TRUE(clean(cleaner, log));
    auto active_base = log->segment_base_offsets().back();
    // From inside a gap, the next record that is still there.
    auto from_gap = consume(*log, 6);
    ASSERT_FALSE(from_gap.empty());
    EXPECT_EQ(from_gap.front().offset, 15);
    EXPECT_EQ(*from_gap.front().value, "v15");
    // Every fetch position yields the next available offset, never an error.
    auto all = consume(*log);
    for (std::int64_t o = 0; o < log->log_end_offset(); ++o) {
        auto r = log->read(o);
        ASSERT_EQ(r.error, ErrorCode::none) << o;
        auto next = std::find_if(all.begin(), all.end(), [&](const Seen& s) { return s.offset >= o; });
        if (next == all.end()) continue;
        auto got = consume(*log, o);
        ASSERT_FALSE(got.empty()) << o;
        EXPECT_EQ(got.front().offset, next->offset) << o;
    }
    for (const auto& s : all)
        if (s.offset < active_base && s.key != "dup") {
            EXPECT_EQ(s.offset % 10, 5);
        }
    EXPECT_EQ(log->read(0).log_start_offset, 0);  // the log start does not move by compaction
}

TEST_F(Cleaner, TombstonesStayForDeleteRetentionThenGo) {
    auto config = compacted();
    auto log = shared(config);
    put(*log, {{"gone", "v1"}});
    put(*log, {{"kept", "v2"}});
    auto tombstone = put(*log, {{"gone", std::nullopt}});
    auto pad = [&](int n) {
        for (int i = 0; i < n; ++i) put(*log, {{"pad" + std::to_string(i % 4), "p"}});
    };
    pad(12);
    auto cleaner = manager();
    ASSERT_TRUE(clean(cleaner, log));
    auto after_first = consume(*log);
    auto t = std::find_if(after_first.begin(), after_first.end(), [&](const Seen& s) { return s.offset == tombstone; });
    ASSERT_NE(t, after_first.end());
    EXPECT_FALSE(t->value);
    EXPECT_EQ(latest_values(after_first).at("gone"), "<tombstone>");
    EXPECT_TRUE(std::none_of(after_first.begin(), after_first.end(), [](const Seen& s) { return s.value == "v1"; }));
    auto horizon_batch = records::parse_batch_header(log->read(tombstone).records);
    ASSERT_TRUE(delete_horizon(horizon_batch));
    EXPECT_EQ(*delete_horizon(horizon_batch), now + config.delete_retention_ms);

    // Before the horizon another cleaning keeps it.
    now += config.delete_retention_ms - 1;
    pad(8);
    ASSERT_TRUE(clean(cleaner, log));
    EXPECT_EQ(latest_values(consume(*log)).count("gone"), 1u);

    // Once delete.retention.ms has passed since the first cleaning, it goes.
    now += 1;
    pad(8);
    ASSERT_TRUE(clean(cleaner, log));
    auto final = consume(*log);
    EXPECT_EQ(latest_values(final).count("gone"), 0u);
    EXPECT_EQ(latest_values(final).at("kept"), "v2");
}

TEST_F(Cleaner, CompressedBatchesStayValidWithTheirCodec) {
    for (auto codec : {Compression::gzip, Compression::snappy, Compression::lz4, Compression::zstd}) {
        std::filesystem::remove_all(dir);
        auto log = shared(compacted(600));
        for (int i = 0; i < 20; ++i)
            put(*log, {{"a", "a" + std::to_string(i)}, {"u" + std::to_string(i), "x"}, {"b", "b" + std::to_string(i)}},
                1000 + i, codec);
        auto cleaner = manager();
        ASSERT_TRUE(clean(cleaner, log)) << records::compression_name(codec);
        auto active_base = log->segment_base_offsets().back();
        std::size_t rewritten = 0;
        for (std::int64_t offset = 0; offset < active_base;) {
            auto r = log->read(offset);
            ASSERT_FALSE(r.records.empty());
            for (auto batch : records::split_batches(r.records, false)) {
                auto h = records::parse_batch_header(batch);
                if (h.base_offset >= active_base) {
                    offset = active_base;
                    break;
                }
                EXPECT_TRUE(records::crc_valid(batch));
                EXPECT_EQ(h.last_offset_delta, 2);
                if (h.record_count > 0) {
                    EXPECT_EQ(h.compression(), codec);
                    if (h.record_count < 3) ++rewritten;
                }
                EXPECT_NO_THROW(records::decode_records(batch));
                offset = h.last_offset() + 1;
            }
        }
        EXPECT_GT(rewritten, 0u);
        auto values = latest_values(consume(*log));
        EXPECT_EQ(values.size(), 22u);  // a, b and every u
    }
}

TEST_F(Cleaner, DirtyRatioThreshold) {
    auto config = compacted();
    config.min_cleanable_dirty_ratio = 0.5;
    auto log = shared(config);
    for (int i = 0; i < 40; ++i) put(*log, {{"k" + std::to_string(i % 5), "v"}});
    auto cleaner = manager();
    ASSERT_TRUE(clean(cleaner, log));  // everything dirty: ratio 1
    // A little new data: the dirty share stays under one half.
    auto cleaned_segments = log->segment_count();
    for (int i = 0; i < 6; ++i) put(*log, {{"k" + std::to_string(i % 5), "w"}});
    ASSERT_GT(log->segment_count(), cleaned_segments);
    EXPECT_FALSE(cleaner.start_filthiest({log}));
    auto lower = config;
    lower.min_cleanable_dirty_ratio = 0.1;
    log->set_config(lower);
    EXPECT_TRUE(clean(cleaner, log));
    EXPECT_EQ(cleaner.totals().cleanings, 2u);
}

TEST_F(Cleaner, OnlyCompactedLogsAreCleaned) {
    auto plain = compacted();
    plain.cleanup_compact = false;
    plain.cleanup_delete = true;
    auto log = shared(plain);
    for (int i = 0; i < 20; ++i) put(*log, {{"k", "v"}});
    auto cleaner = manager();
    EXPECT_FALSE(cleaner.start_filthiest({log}));
    log->set_config(compacted());
    EXPECT_TRUE(clean(cleaner, log));
}

TEST_F(Cleaner, NothingYoungerThanMinCompactionLag) {
    auto config = compacted();
    config.min_compaction_lag_ms = 60'000;
    auto log = shared(config);
    for (int i = 0; i < 20; ++i) put(*log, {{"k", "v"}}, now - 1000);
    auto cleaner = manager();
    EXPECT_FALSE(cleaner.start_filthiest({log}));
    now += 60'000;
    EXPECT_TRUE(clean(cleaner, log));
    EXPECT_EQ(latest_values(consume(*log)).size(), 1u);
}

TEST_F(Cleaner, WorksInBoundedStepsAndAbortsWhenTheLogChanges) {
    auto log = shared();
    for (int i = 0; i < 60; ++i) put(*log, {{"k" + std::to_string(i % 4), std::string(50, 'x')}});
    auto cleaner = manager(200);
    ASSERT_TRUE(cleaner.start_filthiest({log}));
    int steps = 0;
    for (; steps < 10 && cleaner.busy(); ++steps) {
        cleaner.step();
        put(*log, {{"during", "x"}});  // requests between steps
    }
    EXPECT_TRUE(cleaner.busy());  // not done in a few small steps
    // Retention deleting a segment invalidates what the cleaning read.
    log->delete_records_before(log->segment_base_offsets()[1]);
    cleaner.step();
    EXPECT_FALSE(cleaner.busy());
    EXPECT_EQ(cleaner.totals().aborted, 1u);
    EXPECT_TRUE(leftovers(dir).empty());
    EXPECT_TRUE(clean(cleaner, log));
    auto values = latest_values(consume(*log));
    EXPECT_EQ(values.count("during"), 1u);
    EXPECT_EQ(values.size(), 5u);
}

// With a background runner, a finished replacement's fsyncs leave the step:
// the cleaning waits for their result before it swaps the replacement in, and
// a result that comes back after the cleaning was dropped changes nothing.
TEST_F(Cleaner, WaitsForTheReplacementsSyncInTheBackground) {
    auto log = shared();
    for (int i = 0; i < 60; ++i) put(*log, {{"k" + std::to_string(i % 4), std::string(50, 'x')}});
    auto cleaner = manager();
    std::vector<std::pair<SyncRequest, std::function<void(std::exception_ptr)>>> handed;
    cleaner.set_background([&](SyncRequest request, std::function<void(std::exception_ptr)> done) {
        handed.emplace_back(std::move(request), std::move(done));
    });
    ASSERT_TRUE(cleaner.start_filthiest({log}));
    for (int i = 0; i < 1000 && handed.empty(); ++i) cleaner.step();
    ASSERT_EQ(handed.size(), 1u);
    EXPECT_FALSE(handed[0].first.paths.empty());  // the .cleaned files
    const auto before = log->segment_base_offsets();
    for (int i = 0; i < 5; ++i) {
        cleaner.step();
        EXPECT_TRUE(cleaner.last_step().waiting);
        EXPECT_EQ(cleaner.last_step().swapped, 0);
    }
    EXPECT_EQ(log->segment_base_offsets(), before);  // nothing swapped before the sync
    EXPECT_EQ(cleaner.pause_after(std::chrono::nanoseconds(0)), std::chrono::milliseconds(2));
    handed[0].first.run();
    handed[0].second(nullptr);
    cleaner.step();
    EXPECT_EQ(cleaner.last_step().swapped, 1);
    for (int i = 0; i < 1000 && cleaner.busy(); ++i) {
        for (auto& [request, done] : handed)
            if (done) {
                request.run();
                std::exchange(done, {})(nullptr);
            }
        cleaner.step();
    }
    EXPECT_FALSE(cleaner.busy());
    EXPECT_EQ(cleaner.totals().cleanings, 1u);
    EXPECT_EQ(latest_values(consume(*log)).size(), 4u);

    // A result that arrives after its cleaning was aborted is ignored.
    for (int i = 0; i < 60; ++i) put(*log, {{"k" + std::to_string(i % 4), std::string(50, 'y')}});
    handed.clear();
    ASSERT_TRUE(cleaner.start_filthiest({log}));
    for (int i = 0; i < 1000 && handed.empty(); ++i) cleaner.step();
    ASSERT_EQ(handed.size(), 1u);
    cleaner.abort_all();
    handed[0].second(nullptr);
    EXPECT_FALSE(cleaner.busy());
    EXPECT_TRUE(leftovers(dir).empty());
}

// librdkafka's 0077_compaction: segment.bytes=10000, one record per batch,
// three keys repeated (one with tombstones), unique keys, 1 KB fillers. Such a
// log is re-cleaned whole every time a segment rolls, so a cleaning is
// hundreds of small replacements; each step must keep to its byte budget and
// to one fsync-bearing phase (finishing a replacement or swapping it in).
TEST_F(Cleaner, StepsOnAManySegmentLogKeepToTheirBudget) {
    auto log = shared(compacted(10000));
    for (int i = 0; i < 20; ++i) put(*log, {{"fill", std::string(1000, 'f')}});
    for (int i = 0; i < 400; ++i) {
        const char* keys[] = {"k1", "k2", "k3"};
        auto k = i % 4;
        if (k == 3) {
            put(*log, {{std::to_string(i), "unique"}});
        } else {
            std::optional<std::string> value;
            if (k != 0 || i % 7 != 0) value = "v" + std::to_string(i);
            put(*log, {{keys[k], value}});
        }
    }
    for (int i = 0; i < 20; ++i) put(*log, {{"fill", std::string(1024, 'f')}});
    ASSERT_GT(log->segment_count(), 5u);

    constexpr std::size_t kBudget = 4096;
    CleanerOptions options;
    options.step_bytes = kBudget;
    LogCleanerManager cleaner(options, clock);
    ASSERT_TRUE(cleaner.start_filthiest({log}));
    int steps = 0, finished = 0, swapped = 0;
    for (; steps < 100000 && cleaner.busy(); ++steps) {
        cleaner.step();
        const auto& work = cleaner.last_step();
        // One batch past the budget at most: a read returns whole batches.
        EXPECT_LE(work.bytes_read, kBudget + 1100) << "step " << steps;
        EXPECT_LE(work.finished + work.swapped, 1) << "step " << steps;
        finished += work.finished;
        swapped += work.swapped;
    }
    EXPECT_FALSE(cleaner.busy());
    EXPECT_EQ(cleaner.totals().cleanings, 1u);
    EXPECT_GT(swapped, 5);
    EXPECT_EQ(finished, swapped);
    EXPECT_GE(steps, 2 * swapped);

    auto values = latest_values(consume(*log));
    EXPECT_EQ(values.count("k1"), 1u);
    EXPECT_EQ(values.count("fill"), 1u);
    EXPECT_EQ(values.count("99"), 1u);  // unique keys all stay
}

TEST_F(Cleaner, PausesAfterEachStepToKeepToItsShareOfTheThread) {
    using std::chrono::milliseconds;
    CleanerOptions options;
    EXPECT_EQ(LogCleanerManager(options, clock).pause_after(milliseconds(40)), milliseconds(40));
    options.io_thread_share = 0.25;
    EXPECT_EQ(LogCleanerManager(options, clock).pause_after(milliseconds(40)), milliseconds(120));
    options.io_thread_share = 1.0;
    EXPECT_EQ(LogCleanerManager(options, clock).pause_after(milliseconds(40)), milliseconds(0));
}

// ---- Crash-safe swap ----------------------------------------------------

struct SwapCrash : Cleaner {
    std::shared_ptr<PartitionLog> log;
    std::vector<Seen> before;
    std::vector<std::int64_t> group;  // the first three segments
    std::vector<Seen> cleaned;        // what the replacement holds

    void SetUp() override {
        log = shared();
        for (int i = 0; i < 30; ++i) put(*log, {{"k" + std::to_string(i % 3), "v" + std::to_string(i)}}, 1000 + i);
        log->flush();
        before = consume(*log);
        auto bases = log->segment_base_offsets();
        ASSERT_GE(bases.size(), 5u);
        group.assign(bases.begin(), bases.begin() + 3);
    }

    // Writes the cleaned replacement of `group` as the cleaner would, up to
    // the given stage, then drops the log as a kill would.
    void crash_after(bool swapped) {
        OffsetMap map(1 << 20);
        auto end = log->segment_base_offsets()[3];
        for (const auto& s : before)
            if (s.offset < end) map.put(bytes(*s.key), s.offset);
        map.update_latest_offset(end - 1);
        RecordFilter filter{&map, now, 60'000};
        CleanedSegment out(dir, group.front(), SegmentOptions{1 << 20, 100});
        std::vector<wire::Bytes> batches;
        for (std::int64_t offset = 0; offset < end;) {
            auto r = log->read(offset);
            for (auto b : records::split_batches(r.records, false)) {
                auto h = records::parse_batch_header(b);
                if (h.base_offset >= end) break;
                batches.emplace_back(b.begin(), b.end());
                offset = h.last_offset() + 1;
            }
        }
        for (std::size_t i = 0; i < batches.size(); ++i) {
            auto f = filter_batch(batches[i], filter, i + 1 == batches.size());
            if (f.outcome == FilteredBatch::Outcome::unchanged)
                out.append(batches[i]);
            else if (f.outcome != FilteredBatch::Outcome::removed)
                out.append(f.bytes);
        }
        out.finish(std::nullopt);
        if (swapped) out.mark_swap();
        log->release();
        log.reset();
        for (const auto& s : before)
            if (s.offset >= end || map.get(bytes(*s.key)) == s.offset) cleaned.push_back(s);
        // A kill leaves the files; keep them past `out`'s destructor.
        if (!swapped) {
            for (auto suffix : {kLogSuffix, kIndexSuffix, kTimeIndexSuffix}) {
                auto p = out.path(suffix, kCleanedSuffix);
                std::filesystem::copy_file(p, p.string() + ".keep");
            }
        }
    }
    void restore_cleaned_files() {
        for (auto suffix : {kLogSuffix, kIndexSuffix, kTimeIndexSuffix}) {
            auto p = dir / (segment_file_name(group.front(), suffix) + std::string(kCleanedSuffix));
            std::filesystem::rename(p.string() + ".keep", p);
        }
    }
    std::unique_ptr<PartitionLog> reopen() {
        return open(compacted(), LoadOptions{.clean_shutdown = false, .recovery_point = 0});
    }
};

TEST_F(SwapCrash, BeforeTheSwapTheOldSegmentsStand) {
    crash_after(false);
    restore_cleaned_files();
    ASSERT_FALSE(leftovers(dir).empty());
    auto reopened = reopen();
    EXPECT_EQ(consume(*reopened), before);
    EXPECT_TRUE(leftovers(dir).empty());
    EXPECT_EQ(reopened->segment_base_offsets()[1], group[1]);
}

TEST_F(SwapCrash, AfterTheSwapRenameRecoveryFinishesIt) {
    crash_after(true);
    auto reopened = reopen();
    EXPECT_EQ(consume(*reopened), cleaned);
    EXPECT_TRUE(leftovers(dir).empty());
    auto bases = reopened->segment_base_offsets();
    EXPECT_EQ(bases.front(), group.front());
    EXPECT_EQ(std::count(bases.begin(), bases.end(), group[1]), 0);
    EXPECT_EQ(std::count(bases.begin(), bases.end(), group[2]), 0);
    EXPECT_EQ(latest_values(consume(*reopened)), latest_values(before));
    EXPECT_EQ(reopened->log_end_offset(), before.back().offset + 1);
}

TEST_F(SwapCrash, HalfwayThroughReplacingRecoveryFinishesIt) {
    crash_after(true);
    // Some old segments already removed, the index already under its final name.
    for (auto suffix : {kLogSuffix, kIndexSuffix, kTimeIndexSuffix})
        std::filesystem::remove(dir / segment_file_name(group[0], suffix));
    std::filesystem::remove(dir / segment_file_name(group[1], kLogSuffix));
    std::filesystem::rename(dir / (segment_file_name(group[0], kIndexSuffix) + std::string(kSwapSuffix)),
                            dir / segment_file_name(group[0], kIndexSuffix));
    auto reopened = reopen();
    EXPECT_EQ(consume(*reopened), cleaned);
    EXPECT_TRUE(leftovers(dir).empty());
    EXPECT_EQ(latest_values(consume(*reopened)), latest_values(before));
}

TEST_F(Cleaner, RestartAfterACleaningKeepsTheCleanedLog) {
    std::vector<Seen> after;
    {
        auto log = shared();
        for (int i = 0; i < 30; ++i) put(*log, {{"k" + std::to_string(i % 3), "v" + std::to_string(i)}});
        auto cleaner = manager();
        ASSERT_TRUE(clean(cleaner, log));
        after = consume(*log);
        log->release();  // no clean shutdown
    }
    auto reopened = open(compacted(), LoadOptions{.clean_shutdown = false, .recovery_point = 0});
    EXPECT_EQ(consume(*reopened), after);
}

// ---- Through the log manager ---------------------------------------------

struct ManagedCleaner : Cleaner {
    std::unique_ptr<LogManager> manager_of(bool enabled, LogConfig config = compacted()) {
        LogManagerOptions o;
        o.log_dirs = {tmp.path() / "data"};
        o.config_for_topic = [config](const std::string&) { return config; };
        o.clock = clock;
        o.cleaner.enabled = enabled;
        o.cleaner.step_bytes = 1024;
        return std::make_unique<LogManager>(std::move(o));
    }
    static int run(LogManager& m) {
        int steps = 0;
        while (steps < 100000 && m.clean_step()) ++steps;
        return steps;
    }
};

TEST_F(ManagedCleaner, DisabledCleanerLeavesLogsAlone) {
    auto m = manager_of(false);
    auto log = m->get_or_create({"c", 0}, compacted());
    for (int i = 0; i < 30; ++i) put(*log, {{"k", "v"}});
    auto before = consume(*log);
    EXPECT_FALSE(m->clean_step());
    EXPECT_EQ(consume(*log), before);
}

TEST_F(ManagedCleaner, CheckpointSurvivesARestart) {
    TopicPartition tp{"c", 0};
    std::int64_t checkpoint = 0;
    {
        auto m = manager_of(true);
        auto log = m->get_or_create(tp, compacted());
        for (int i = 0; i < 30; ++i) put(*log, {{"k" + std::to_string(i % 2), "v"}});
        EXPECT_GT(run(*m), 1);  // several bounded steps
        checkpoint = *m->cleaner().checkpoint(tp);
        EXPECT_EQ(checkpoint, log->segment_base_offsets().back());
        EXPECT_FALSE(m->clean_step());  // nothing left worth it
        m->shutdown();
    }
    EXPECT_TRUE(std::filesystem::exists(tmp.path() / "data" / kCleanerCheckpointFile));
    auto m = manager_of(true);
    EXPECT_EQ(m->cleaner().checkpoint(tp), checkpoint);
    EXPECT_FALSE(m->clean_step());
    m->remove(tp);
    EXPECT_FALSE(m->cleaner().checkpoint(tp));
}

// ---- Log behaviour that compaction relies on -------------------------------

TEST_F(Cleaner, CompactedLogsRollByMaxCompactionLag) {
    auto config = compacted(1 << 20);
    config.max_compaction_lag_ms = 100;
    auto log = shared(config);
    put(*log, {{"k", "v"}}, 1000);
    put(*log, {{"k", "v"}}, 1050);
    EXPECT_EQ(log->segment_count(), 1u);
    put(*log, {{"k", "v"}}, 1200);
    EXPECT_EQ(log->segment_count(), 2u);
    config.cleanup_compact = false;  // a plain log rolls by segment.ms alone
    log->set_config(config);
    put(*log, {{"k", "v"}}, 5000);
    EXPECT_EQ(log->segment_count(), 2u);
}

TEST_F(Cleaner, CompactOnlyLogsIgnoreRetention) {
    auto config = compacted();
    config.retention_ms = 1;
    config.retention_bytes = 1;
    auto log = shared(config);
    for (int i = 0; i < 20; ++i) put(*log, {{"k" + std::to_string(i), "v"}});
    EXPECT_EQ(log->enforce_retention(log->log_end_offset()), 0u);
    config.cleanup_delete = true;  // compact,delete
    log->set_config(config);
    EXPECT_GT(log->enforce_retention(log->log_end_offset()), 0u);
}

}  // namespace
}  // namespace weir::storage
