#include "broker/storage/log_scrubber.h"

#include <gtest/gtest.h>

#include "broker/storage/log_manager.h"
#include "broker/storage/test/storage_test_util.h"

namespace weir::storage {
namespace {

using test::TempDir;

struct Scrubber : ::testing::Test {
    TempDir tmp;

    std::unique_ptr<LogManager> open() {
        LogManagerOptions o;
        o.log_dirs = {tmp.path() / "d"};
        o.config_for_topic = [](const std::string&) { return test::small_segments(); };
        return std::make_unique<LogManager>(o);
    }
    // Steps of `bytes` until a pass ends (bounded); the findings of all of them.
    static std::vector<ScrubFinding> one_pass(LogScrubber& s, std::size_t bytes, int* steps = nullptr) {
        std::vector<ScrubFinding> all;
        for (int i = 0; i < 10'000; ++i) {
            auto found = s.step(bytes);
            all.insert(all.end(), found.begin(), found.end());
            if (steps) *steps = i + 1;
            if (s.pass_finished()) break;
        }
        return all;
    }
};

TEST_F(Scrubber, ChecksEveryClosedSegmentWithinItsByteBudgetAndFindsNothingOnHealthyLogs) {
    auto manager = open();
    auto a = manager->get_or_create({"a", 0}, test::small_segments());
    auto b = manager->get_or_create({"b", 1}, test::small_segments());
    test::append_batches(*a, 12);
    test::append_batches(*b, 6);
    std::uint64_t closed_bytes = 0;
    std::size_t closed = 0;
    for (const auto& log : {a, b}) {
        const auto& segments = log->segments();
        for (auto it = segments.begin(); std::next(it) != segments.end(); ++it, ++closed)
            closed_bytes += it->second.size();
    }
    ASSERT_GE(closed, 4u);
    LogScrubber s(*manager);
    int steps = 0;
    EXPECT_TRUE(one_pass(s, 600, &steps).empty());
    EXPECT_EQ(s.totals().passes, 1u);
    EXPECT_EQ(s.totals().segments, closed);
    EXPECT_EQ(s.totals().bytes, closed_bytes);                          // the active segments are left alone
    EXPECT_GE(static_cast<std::uint64_t>(steps), closed_bytes / 1200);  // no step read far past its budget
    // The next pass starts over.
    EXPECT_TRUE(one_pass(s, 1 << 20).empty());
    EXPECT_EQ(s.totals().passes, 2u);
    EXPECT_EQ(s.totals().bytes, 2 * closed_bytes);
}

TEST_F(Scrubber, ReportsAFlippedByteOnceWithFileAndPosition) {
    auto manager = open();
    auto log = manager->get_or_create({"rot", 0}, test::small_segments());
    test::append_batches(*log, 12);
    const auto& segments = log->segments();
    const auto& second = std::next(segments.begin())->second;
    ASSERT_NE(std::next(segments.begin(), 2), segments.end());  // the second segment is closed
    const auto batches = test::headers_of(test::make_batch(4, 100));
    const std::uint64_t batch_size = batches.front().total_size();
    // A byte inside the second batch's records: only its CRC can tell.
    test::flip_byte(second.log_path(), batch_size + batch_size - 10);
    LogScrubber s(*manager);
    auto found = one_pass(s, 1000);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].tp, (TopicPartition{"rot", 0}));
    EXPECT_EQ(found[0].file, second.log_path());
    EXPECT_EQ(found[0].position, batch_size);
    EXPECT_NE(found[0].problem.find("CRC mismatch"), std::string::npos) << found[0].problem;
    EXPECT_EQ(s.totals().damaged_segments, 1u);
    // Reported again in the next pass, still once.
    EXPECT_EQ(one_pass(s, 1000).size(), 1u);
}

TEST_F(Scrubber, SegmentsDeletedDuringAPassAreSkipped) {
    auto manager = open();
    auto log = manager->get_or_create({"gone", 0}, test::small_segments());
    test::append_batches(*log, 12);
    LogScrubber s(*manager);
    EXPECT_TRUE(s.step(100).empty());  // the pass is planned and under way
    manager->remove({"gone", 0});
    EXPECT_TRUE(one_pass(s, 1000).empty());
    EXPECT_EQ(s.totals().passes, 1u);
}

}  // namespace
}  // namespace weir::storage
