// The OpenFiles budget: segment files beyond it are closed least recently used
// first and reopened on use, and logs sharing a small budget read back every
// record they were given, across appends, rolls, lookups, flushes, a clean
// restart and a kill.
#include "broker/storage/open_files.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "broker/storage/partition_log.h"
#include "broker/storage/test/storage_test_util.h"

namespace weir::storage {
namespace {

class FakeFile final : public OpenFiles::Entry {
public:
    FakeFile(std::shared_ptr<OpenFiles> budget, int id, std::vector<int>& closed_log)
        : Entry(std::move(budget)), id_(id), closed_log_(closed_log) {}
    ~FakeFile() override { close(); }
    void open() {
        if (open_) {
            used();
            return;
        }
        open_ = true;
        opened();
    }
    void close() {
        open_ = false;
        closed();
    }
    [[nodiscard]] bool is_open() const { return open_; }

private:
    void close_for_budget() noexcept override {
        open_ = false;
        closed_log_.push_back(id_);
    }
    int id_;
    std::vector<int>& closed_log_;
    bool open_ = false;
};

TEST(OpenFilesBudget, ClosesTheLeastRecentlyUsedBeyondItsLimit) {
    auto budget = std::make_shared<OpenFiles>(8);
    std::vector<int> closed;
    std::vector<std::unique_ptr<FakeFile>> files;
    for (int i = 0; i < 8; ++i) {
        files.push_back(std::make_unique<FakeFile>(budget, i, closed));
        files.back()->open();
    }
    EXPECT_EQ(budget->open(), 8u);
    EXPECT_TRUE(closed.empty());
    files[0]->open();  // used: now the most recent
    files[1]->open();
    for (int i = 8; i < 11; ++i) {
        files.push_back(std::make_unique<FakeFile>(budget, i, closed));
        files.back()->open();
    }
    EXPECT_EQ(budget->open(), 8u);
    EXPECT_EQ(closed, (std::vector<int>{2, 3, 4}));
    EXPECT_EQ(budget->closed_for_budget(), 3u);
    EXPECT_FALSE(files[2]->is_open());
    EXPECT_TRUE(files[0]->is_open());

    // Closed by its owner or destroyed: no longer counted, never a victim.
    files[5]->close();
    files[6].reset();
    EXPECT_EQ(budget->open(), 6u);
    files[2]->open();
    files[3]->open();
    EXPECT_EQ(budget->open(), 8u);
    EXPECT_EQ(closed.size(), 3u);
    files[4]->open();
    EXPECT_EQ(closed, (std::vector<int>{2, 3, 4, 7}));
}

TEST(OpenFilesBudget, LimitsBelowTheMinimumCountAsTheMinimum) {
    EXPECT_EQ(OpenFiles(1).limit(), OpenFiles::kMinLimit);
    EXPECT_EQ(OpenFiles(100).limit(), 100u);
}

struct SharedBudget : ::testing::Test {
    static constexpr int kLogs = 12;
    TempDir tmp;
    std::shared_ptr<OpenFiles> budget = std::make_shared<OpenFiles>(8);
    std::vector<std::unique_ptr<PartitionLog>> logs;
    std::vector<std::vector<wire::Bytes>> stored{kLogs};  // each log's batches, as appended

    void open_all(LoadOptions options = {}) {
        logs.clear();
        LogConfig c;
        c.segment_bytes = 6'000;
        c.index_interval_bytes = 200;
        c.flush_on_roll = false;
        for (int p = 0; p < kLogs; ++p) {
            options.open_files = budget;
            logs.push_back(std::make_unique<PartitionLog>(tmp.path() / ("t-" + std::to_string(p)),
                                                          TopicPartition{"t", p}, c, options));
        }
    }
    void append_round_robin(int batches, std::uint32_t seed) {
        std::mt19937 rng(seed);
        for (int i = 0; i < batches; ++i) {
            const auto p = static_cast<std::size_t>(rng() % kLogs);
            auto batch = test::make_batch(1 + static_cast<int>(rng() % 5), 1 + rng() % 400);
            logs[p]->append(batch);
            stored[p].push_back(batch);
        }
    }
    // Every batch read back from its offset, each log's reads interleaved with
    // the others', so the budget keeps taking files back.
    void expect_everything_reads_back() {
        std::vector<std::size_t> next(kLogs, 0);
        std::vector<std::int64_t> offset(kLogs, 0);
        for (bool any = true; any;) {
            any = false;
            for (int p = 0; p < kLogs; ++p) {
                if (next[p] == stored[p].size()) continue;
                any = true;
                ReadOptions options;
                options.max_bytes = 1;  // one batch: KIP-74
                options.zero_copy = next[p] % 2 == 1;
                auto r = logs[p]->read(offset[p], options);
                ASSERT_EQ(r.error, ErrorCode::none) << "log " << p << " offset " << offset[p];
                auto bytes = r.region ? wire::read_region(*r.region) : r.records;
                auto expected = stored[p][next[p]];
                auto header = records::parse_batch_header(expected);
                // The log rewrote the base offset and leader epoch; the rest (CRC included) is as sent.
                ASSERT_EQ(bytes.size(), expected.size()) << "log " << p << " batch " << next[p];
                EXPECT_TRUE(std::equal(bytes.begin() + 16, bytes.end(), expected.begin() + 16))
                    << "log " << p << " batch " << next[p];
                offset[p] += header.last_offset_delta + 1;
                ++next[p];
            }
        }
        for (int p = 0; p < kLogs; ++p) EXPECT_EQ(logs[p]->log_end_offset(), offset[p]);
        EXPECT_LE(budget->open(), budget->limit());
    }
};

TEST_F(SharedBudget, LogsReadBackEverythingWithAFewFilesOpen) {
    const auto before = test::open_descriptors();
    open_all();
    append_round_robin(600, 3);
    for (const auto& log : logs) ASSERT_GT(log->segment_count(), 2u);
    EXPECT_LE(budget->open(), budget->limit());
    // 12 logs of several segments: without the budget, one descriptor each.
    EXPECT_LE(test::open_descriptors(), before + budget->limit());
    EXPECT_GT(budget->closed_for_budget(), 100u);
    expect_everything_reads_back();

    // Lookups by time need both indexes of the segments they pass.
    for (int p = 0; p < kLogs; ++p) {
        auto found = logs[p]->offset_for_timestamp(0);
        ASSERT_TRUE(found);
        EXPECT_EQ(found->offset, 0);
    }
    for (auto& log : logs) log->flush();
    EXPECT_LE(test::open_descriptors(), before + budget->limit());
}

TEST_F(SharedBudget, ACleanRestartAndAKillKeepEveryRecord) {
    open_all();
    append_round_robin(400, 5);
    for (auto& log : logs) {
        log->flush();
        log->close();
    }
    LoadOptions clean;
    clean.clean_shutdown = true;
    open_all(clean);
    EXPECT_LE(budget->open(), budget->limit());
    expect_everything_reads_back();

    append_round_robin(300, 9);             // appends to active segments whose indexes were unmapped
    for (auto& log : logs) log->release();  // what a kill leaves
    open_all();                             // recovery from offset 0
    EXPECT_LE(budget->open(), budget->limit());
    expect_everything_reads_back();
}

}  // namespace
}  // namespace weir::storage
