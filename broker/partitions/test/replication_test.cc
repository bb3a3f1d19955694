// The partition's replication side: a leader's ISR proposals (lagging
// followers out, caught-up ones in), a follower's appends of its leader's
// batches, truncation, the high watermark it takes from the leader, and the
// leader epoch history kept in leader-epoch-checkpoint.
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <optional>

#include "broker/partitions/replica_manager.h"
#include "broker/partitions/test/local_replicas.h"
#include "broker/storage/checkpoint_file.h"
#include "broker/storage/leader_epoch_checkpoint.h"
#include "broker/storage/test/storage_test_util.h"
#include "protocol/records/record_batch.h"

namespace weir::partitions {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

using test::kLocal;
constexpr std::int32_t kA = 2;
constexpr std::int32_t kB = 3;
const std::vector<std::int32_t> kAssigned{kLocal, kA, kB};

struct ReplicationTest : ::testing::Test {
    storage::test::TempDir tmp;
    boost::asio::io_context io;
    std::optional<test::LocalReplicas> local;
    TopicPartition tp{"t", 0};

    void SetUp() override { open(); }
    void open() {
        local.reset();
        local.emplace(
            io.get_executor(), std::vector{tmp.path()}, [](const std::string&) { return LogConfig{}; }, kLocal);
    }
    ReplicaManager& replicas() { return local->replicas(); }

    static std::int64_t append(Partition& p, int count) {
        auto batch = storage::test::make_batch(count);
        auto r = p.append(batch);
        EXPECT_EQ(r.error, ErrorCode::none) << r.error_message;
        return r.last_offset + 1;
    }
    // What a leader in `epoch` would send: `count` records at `base`.
    static wire::Bytes leader_batch(std::int64_t base, int count, std::int32_t epoch) {
        auto batch = storage::test::make_batch(count);
        records::set_base_offset(batch, base);
        records::set_partition_leader_epoch(batch, epoch);
        return batch;
    }
};

TEST_F(ReplicationTest, LaggingFollowersLeaveTheIsrAndCaughtUpOnesReturn) {
    auto p = replicas().apply(tp, {kLocal, 4, kAssigned, kAssigned});
    const auto t0 = Clock::now();
    append(*p, 10);
    // A keeps up, B never fetches.
    EXPECT_TRUE(p->update_follower_position(kA, 10, t0 + 1s));
    EXPECT_FALSE(p->isr_change(t0 + 2s, 30s));
    auto shrunk = p->isr_change(t0 + 31s, 30s);
    ASSERT_TRUE(shrunk);
    EXPECT_EQ(*shrunk, (std::vector<std::int32_t>{kLocal, kA}));
    // Proposed once, not again while the metadata has not answered.
    EXPECT_FALSE(p->isr_change(t0 + 32s, 30s));
    // The metadata applies it (same epoch): the high watermark follows A alone.
    ASSERT_EQ(p->make_leader({kLocal, 4, kAssigned, *shrunk}), ErrorCode::none);
    EXPECT_EQ(p->high_watermark(), 10);

    // A keeps fetching everything; B catches up to the high watermark and
    // may come back.
    append(*p, 5);
    EXPECT_TRUE(p->update_follower_position(kA, 15, t0 + 40s));
    EXPECT_FALSE(p->isr_change(t0 + 40s, 30s));  // A is in sync; B not yet
    EXPECT_TRUE(p->update_follower_position(kB, 15, t0 + 41s));
    auto grown = p->isr_change(t0 + 41s, 30s, kB);
    ASSERT_TRUE(grown);
    EXPECT_EQ(*grown, kAssigned);
}

TEST_F(ReplicationTest, AProposalStaysPendingWhenTheSameStateIsPresentedAgain) {
    auto p = replicas().apply(tp, {kLocal, 4, kAssigned, {kLocal, kA}});
    const auto t0 = Clock::now();
    append(*p, 10);
    EXPECT_TRUE(p->update_follower_position(kA, 10, t0 + 1s));
    EXPECT_TRUE(p->update_follower_position(kB, 10, t0 + 1s));
    auto grown = p->isr_change(t0 + 1s, 30s, kB);
    ASSERT_TRUE(grown);
    // Another partition of the topic changed: this one's state comes again
    // as it was. B's next fetches must not propose the same ISR again.
    ASSERT_EQ(p->make_leader({kLocal, 4, kAssigned, {kLocal, kA}}), ErrorCode::none);
    EXPECT_TRUE(p->update_follower_position(kB, 10, t0 + 2s));
    EXPECT_FALSE(p->isr_change(t0 + 2s, 30s, kB));
    // A different state answers it: here a refusal in a new epoch, where B
    // proves itself again and is proposed anew.
    ASSERT_EQ(p->make_leader({kLocal, 5, kAssigned, {kLocal, kA}}), ErrorCode::none);
    EXPECT_TRUE(p->update_follower_position(kB, 10, t0 + 3s));
    auto again = p->isr_change(t0 + 3s, 30s, kB);
    ASSERT_TRUE(again);
    EXPECT_EQ(*again, kAssigned);
}

TEST_F(ReplicationTest, AFollowerThatStoppedFetchingIsNotBroughtBackByALaterPass) {
    auto p = replicas().apply(tp, {kLocal, 4, kAssigned, kAssigned});
    const auto t0 = Clock::now();
    append(*p, 10);
    // Both followers fetch everything, then die; nothing is produced since,
    // so their last positions still equal the high watermark.
    EXPECT_TRUE(p->update_follower_position(kA, 10, t0 + 1s));
    EXPECT_TRUE(p->update_follower_position(kB, 10, t0 + 1s));
    EXPECT_EQ(p->high_watermark(), 10);
    auto shrunk = p->isr_change(t0 + 32s, 30s);
    ASSERT_TRUE(shrunk);
    EXPECT_EQ(*shrunk, std::vector<std::int32_t>{kLocal});
    ASSERT_EQ(p->make_leader({kLocal, 4, kAssigned, *shrunk}), ErrorCode::none);
    for (auto later : {33s, 40s, 90s}) EXPECT_FALSE(p->isr_change(t0 + later, 30s)) << later.count();
    // A fetch from one of them (restarted, caught up) brings that one back.
    EXPECT_TRUE(p->update_follower_position(kA, 10, t0 + 91s));
    auto grown = p->isr_change(t0 + 91s, 30s, kA);
    ASSERT_TRUE(grown);
    EXPECT_EQ(*grown, (std::vector<std::int32_t>{kLocal, kA}));
}

TEST_F(ReplicationTest, AFollowerBehindUnderSteadyProductionStaysInSync) {
    auto p = replicas().apply(tp, {kLocal, 1, kAssigned, {kLocal, kA}});
    const auto t0 = Clock::now();
    // Every fetch finds new data already appended, yet each reaches what the
    // leader had at the previous fetch (Kafka's lastCaughtUpTime rule).
    std::int64_t end = append(*p, 5);
    for (int i = 1; i <= 40; ++i) {
        const std::int64_t fetched = end;
        end = append(*p, 5);
        EXPECT_TRUE(p->update_follower_position(kA, fetched, t0 + std::chrono::seconds(i)));
        EXPECT_FALSE(p->isr_change(t0 + std::chrono::seconds(i), 30s)) << "fetch " << i;
    }
    // It stops fetching: 30 s later it leaves.
    auto shrunk = p->isr_change(t0 + 71s, 30s);
    ASSERT_TRUE(shrunk);
    EXPECT_EQ(*shrunk, (std::vector<std::int32_t>{kLocal}));
}

TEST_F(ReplicationTest, ReplicaManagerProposesThroughItsProposer) {
    std::vector<std::pair<std::int32_t, std::vector<std::int32_t>>> proposed;
    replicas().set_isr_proposer([&](const TopicPartition&, std::int32_t epoch,
                                    std::vector<std::int32_t> isr) { proposed.emplace_back(epoch, std::move(isr)); },
                                30s);
    auto p = replicas().apply(tp, {kLocal, 2, kAssigned, {kLocal}});
    append(*p, 3);
    replicas().follower_fetched(*p, kA, 3);
    ASSERT_EQ(proposed.size(), 1U);
    EXPECT_EQ(proposed[0], (std::pair<std::int32_t, std::vector<std::int32_t>>{2, {kLocal, kA}}));
}

TEST_F(ReplicationTest, FollowerAppendsTheLeadersBatchesAsTheyAre) {
    auto p = replicas().apply(tp, {kA, 3, kAssigned, kAssigned});
    ASSERT_FALSE(p->is_leader());
    auto first = leader_batch(0, 5, 2);
    auto second = leader_batch(5, 5, 3);
    first.insert(first.end(), second.begin(), second.end());
    auto r = p->append_as_follower(first);
    ASSERT_EQ(r.error, ErrorCode::none) << r.error_message;
    EXPECT_EQ(p->log_end_offset(), 10);
    EXPECT_EQ(p->latest_epoch(), 3);
    // Offsets and epochs kept: the follower answers for epoch 2 like its leader.
    auto end2 = p->last_offset_for_leader_epoch(kNoLeaderEpoch, 2, false);
    EXPECT_EQ(end2.leader_epoch, 2);
    EXPECT_EQ(end2.end_offset, 5);
    // The high watermark comes from the leader, bounded by this log.
    EXPECT_EQ(p->high_watermark(), 0);
    p->follow_high_watermark(7);
    EXPECT_EQ(p->high_watermark(), 7);
    p->follow_high_watermark(50);
    EXPECT_EQ(p->high_watermark(), 10);
    // Not contiguous, or corrupt: refused and nothing written.
    EXPECT_EQ(p->append_as_follower(leader_batch(3, 1, 3)).error, ErrorCode::corrupt_message);
    auto bad = leader_batch(10, 1, 3);
    bad.back() ^= 0xff;
    EXPECT_EQ(p->append_as_follower(bad).error, ErrorCode::corrupt_message);
    EXPECT_EQ(p->log_end_offset(), 10);
    // A leader never takes this path.
    auto led = replicas().apply({"t", 1}, {kLocal, 0, kAssigned, kAssigned});
    EXPECT_EQ(led->append_as_follower(leader_batch(0, 1, 0)).error, ErrorCode::not_leader_or_follower);
}

TEST_F(ReplicationTest, TruncationDropsDataAndEpochsFromTheDivergence) {
    auto p = replicas().apply(tp, {kA, 3, kAssigned, kAssigned});
    auto batches = leader_batch(0, 5, 2);
    auto more = leader_batch(5, 5, 3);
    batches.insert(batches.end(), more.begin(), more.end());
    ASSERT_EQ(p->append_as_follower(batches).error, ErrorCode::none);
    p->follow_high_watermark(10);
    p->truncate_to(5);
    EXPECT_EQ(p->log_end_offset(), 5);
    EXPECT_EQ(p->latest_epoch(), 2);
    EXPECT_EQ(p->high_watermark(), 5);
}

TEST_F(ReplicationTest, EpochHistorySurvivesARestart) {
    {
        auto p = replicas().apply(tp, {kLocal, 0, kAssigned, {kLocal}});
        append(*p, 4);
        replicas().apply(tp, {kLocal, 5, kAssigned, {kLocal}});
        append(*p, 2);
    }
    auto dir = replicas().get(tp)->dir();
    auto saved = storage::read_leader_epoch_checkpoint(dir);
    EXPECT_EQ(saved, (storage::EpochStarts{{0, 0}, {5, 4}}));
    open();  // a new broker process over the same logs
    auto p = replicas().apply(tp, {kA, 6, kAssigned, {kA}});
    EXPECT_EQ(p->latest_epoch(), 5);
    auto end0 = p->last_offset_for_leader_epoch(kNoLeaderEpoch, 0, false);
    EXPECT_EQ(end0.end_offset, 4);
    // The high watermark it had checkpointed when it stopped.
    EXPECT_EQ(p->high_watermark(), 6);
}

TEST_F(ReplicationTest, HighWatermarksComeBackFromTheirCheckpoint) {
    // A follower that knows its leader's high watermark up to 7 of 10.
    auto p = replicas().apply(tp, {kA, 2, kAssigned, kAssigned});
    ASSERT_EQ(p->append_as_follower(leader_batch(0, 10, 2)).error, ErrorCode::none);
    p->follow_high_watermark(7);
    // Not hosted in the next process until later: its entry must outlive a checkpoint.
    auto other = replicas().apply({"t", 1}, {kA, 2, kAssigned, kAssigned});
    ASSERT_EQ(other->append_as_follower(leader_batch(0, 4, 2)).error, ErrorCode::none);
    other->follow_high_watermark(3);
    replicas().checkpoint_high_watermarks();
    local->wait_for_syncs();
    const auto file = tmp.path() / storage::kHighWatermarkCheckpointFile;
    EXPECT_EQ(storage::read_checkpoint_file(file), (storage::OffsetCheckpoint{{tp, 7}, {{"t", 1}, 3}}));
    p.reset();
    other.reset();

    open();  // restarted; elected leader before any follower fetched
    auto led = replicas().apply(tp, {kLocal, 3, kAssigned, kAssigned});
    EXPECT_EQ(led->high_watermark(), 7);
    replicas().checkpoint_high_watermarks();
    local->wait_for_syncs();
    EXPECT_EQ(storage::read_checkpoint_file(file), (storage::OffsetCheckpoint{{tp, 7}, {{"t", 1}, 3}}));
    EXPECT_EQ(replicas().apply({"t", 1}, {kA, 3, kAssigned, kAssigned})->high_watermark(), 3);
}

TEST_F(ReplicationTest, AnIdleDirWhoseDiskIsRemovedGoesOfflineAtTheNextCheckpoint) {
    auto p = replicas().apply(tp, {kLocal, 1, kAssigned, {kLocal}});
    append(*p, 3);
    replicas().checkpoint_high_watermarks();
    local->wait_for_syncs();
    const auto file = tmp.path() / storage::kHighWatermarkCheckpointFile;
    ASSERT_TRUE(std::filesystem::exists(file));
    // Unchanged, and deleted: written again.
    std::filesystem::remove(file);
    replicas().checkpoint_high_watermarks();
    local->wait_for_syncs();
    EXPECT_EQ(storage::read_checkpoint_file(file), (storage::OffsetCheckpoint{{tp, 3}}));
    // Nothing moved since, and the whole dir is gone: the attempt finds it.
    std::filesystem::remove_all(tmp.path());
    replicas().checkpoint_high_watermarks();
    EXPECT_TRUE(local->logs().offline_dirs().empty());  // written off this thread, found when collected
    local->wait_for_syncs();
    const auto offline = local->logs().offline_dirs();
    ASSERT_EQ(offline.size(), 1u);
    EXPECT_EQ(offline[0].first, tmp.path());
    EXPECT_TRUE(p->offline());
}

}  // namespace
}  // namespace weir::partitions
