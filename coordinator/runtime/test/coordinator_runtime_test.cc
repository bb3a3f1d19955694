// The coordinator runtime over real partitions with a fake shard: loading and
// replay, losing a partition mid-load, writes completing at the high
// watermark, and compaction waiting for it.
#include "coordinator/runtime/coordinator_runtime.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "broker/config/broker_config.h"
#include "broker/metadata/embedded_metadata_store.h"
#include "broker/metadata/open_store.h"
#include "broker/metadata/test/run_task.h"
#include "broker/partitions/replica_manager.h"
#include "broker/partitions/test/local_replicas.h"

namespace weir::coordinator::runtime {
namespace {

constexpr std::int32_t kBrokerId = 1;
constexpr std::int32_t kFollower = 99;  // never fetches: holds the high watermark back
const std::string kTopic = "coordinator-state";

wire::Bytes bytes(std::string_view s) { return {s.begin(), s.end()}; }

class FakeShard : public Shard {
public:
    void replay(std::int32_t partition, const StoredRecord& record) override {
        std::string key(record.key.begin(), record.key.end());
        if (key == "unreadable") throw wire::DecodeError("bad record");
        replayed.emplace_back(partition, std::move(key));
    }
    void replay_marker(std::int32_t partition, const StoredMarker& marker) override {
        markers.emplace_back(partition, marker.producer_id);
    }
    void loaded(std::int32_t partition) override { loads.push_back(partition); }
    void unloaded(std::int32_t partition) override { unloads.push_back(partition); }

    [[nodiscard]] std::size_t replayed_of(std::int32_t partition) const {
        return static_cast<std::size_t>(
            std::count_if(replayed.begin(), replayed.end(), [&](const auto& r) { return r.first == partition; }));
    }

    std::vector<std::pair<std::int32_t, std::string>> replayed;
    std::vector<std::pair<std::int32_t, std::int64_t>> markers;
    std::vector<std::int32_t> loads;
    std::vector<std::int32_t> unloads;
};

class CoordinatorRuntimeTest : public ::testing::Test {
protected:
    CoordinatorRuntimeTest() {
        std::string tmpl = "/tmp/weir-runtime-XXXXXX";
        if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
        dir_ = tmpl;
        config_.broker_id = kBrokerId;
        config_.log_dirs = {dir_};
        config_.listeners = {{"PLAINTEXT", config::SecurityProtocol::plaintext, "127.0.0.1", 9092}};
        config_.advertised_listeners = {{"PLAINTEXT", config::SecurityProtocol::plaintext, "broker.example", 19092}};
        store_ = std::make_unique<metadata::EmbeddedMetadataStore>(
            metadata::EmbeddedMetadataStore::Options{dir_ / "meta", metadata::local_broker_info(config_)});
        local_ = std::make_unique<partitions::test::LocalReplicas>(
            io_.get_executor(), config_.log_dirs, [](const std::string&) { return partitions::LogConfig{}; },
            kBrokerId);
        replicas_ = &local_->replicas();
        // Partitions follow the metadata, as the broker wires them.
        store_->add_listener([this](const metadata::MetadataChange& change) {
            if (change.after)
                for (const auto& p : change.after->partitions)
                    replicas_->apply({change.after->name, p.partition}, {p.leader, p.leader_epoch, p.replicas, p.isr});
            if (change.kind == metadata::MetadataChange::Kind::topic_deleted) replicas_->remove_topic(change.topic);
        });
        options_.topic.name = kTopic;
        options_.topic.partitions = 2;
        options_.topic.replication_factor = [](int) { return std::int16_t{1}; };
        options_.partitioner = [](std::string_view key, std::int32_t partitions) {
            return key.empty() ? 0 : static_cast<std::int32_t>(static_cast<unsigned char>(key[0]) % partitions);
        };
        options_.load_buffer_bytes = 1;  // one batch per turn: loads take many turns
        options_.write_timeout = std::chrono::milliseconds(100);
        options_.compaction_policy = [] {
            CompactionPolicy p;
            p.min_cleanable_dirty_ratio = 0.5;
            p.min_dirty_bytes = 1'000'000;  // only forced compactions here
            return p;
        };
        options_.clock = [this] { return now_; };
    }
    ~CoordinatorRuntimeTest() override {
        if (runtime_) runtime_->stop();
        drain();
        runtime_.reset();
        drain();
        local_.reset();
        store_.reset();
        std::error_code ec;
        std::filesystem::remove_all(dir_, ec);
    }

    void create_topic() {
        metadata::NewTopic t;
        t.name = kTopic;
        t.num_partitions = 2;
        t.replication_factor = 1;
        ASSERT_TRUE(metadata::test::run(store_->create_topic(t, false)).ok());
    }
    std::shared_ptr<partitions::Partition> partition(std::int32_t p) { return replicas_->get({kTopic, p}); }
    // Records written before the runtime starts, one batch each.
    void fill(std::int32_t p, int count) {
        for (int i = 0; i < count; ++i) {
            auto batch = build_batch({{bytes("k" + std::to_string(i)), bytes("v")}}, now_);
            ASSERT_EQ(partition(p)->append(batch).error, ErrorCode::none);
        }
    }
    void start() {
        runtime_ = std::make_unique<CoordinatorRuntime>(*store_, *replicas_, io_.get_executor(), options_, shard_);
        runtime_->start();
    }
    // A follower joins the ISR of `p`: the high watermark stops following appends.
    void add_lagging_follower(std::int32_t p) {
        auto log = partition(p);
        replicas_->apply({kTopic, p}, {kBrokerId, log->leader_epoch(), {kBrokerId, kFollower}, {kBrokerId, kFollower}});
    }

    void drain() {
        io_.restart();
        io_.poll();
    }
    template <typename Pred>
    bool run_until(Pred done) {
        auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        io_.restart();
        while (!done() && std::chrono::steady_clock::now() < deadline) io_.run_one_for(std::chrono::milliseconds(10));
        return done();
    }
    // Starts a write; its result lands in `out`.
    void start_write(std::int32_t p, std::string key, std::optional<ErrorCode>& out) {
        boost::asio::co_spawn(
            io_,
            [this, p, key = std::move(key), &out]() -> Task<void> {
                std::vector<KeyValue> records;
                records.push_back({bytes(key), bytes("value")});
                out = co_await runtime_->write(p, std::move(records));
            },
            boost::asio::detached);
    }

    config::BrokerConfig config_;
    std::filesystem::path dir_;
    boost::asio::io_context io_{1};
    std::unique_ptr<metadata::EmbeddedMetadataStore> store_;
    std::unique_ptr<partitions::test::LocalReplicas> local_;
    partitions::ReplicaManager* replicas_ = nullptr;
    TimeMs now_ = 1'700'000'000'000;
    CoordinatorRuntime::Options options_;
    FakeShard shard_;
    std::unique_ptr<CoordinatorRuntime> runtime_;
};

TEST_F(CoordinatorRuntimeTest, LoadReplaysInOrderAndServesOnceLoaded) {
    create_topic();
    fill(0, 50);
    auto unreadable = build_batch({{bytes("unreadable"), bytes("v")}}, now_);
    ASSERT_EQ(partition(0)->append(unreadable).error, ErrorCode::none);
    fill(0, 1);
    start();
    EXPECT_EQ(runtime_->status(0), ErrorCode::coordinator_load_in_progress);
    EXPECT_TRUE(runtime_->loading());
    EXPECT_EQ(runtime_->status(1), std::nullopt);  // empty: loaded at once
    EXPECT_EQ(shard_.loads, std::vector<std::int32_t>{1});
    ASSERT_TRUE(run_until([&] { return !runtime_->loading(); }));
    EXPECT_EQ(runtime_->status(0), std::nullopt);
    EXPECT_EQ(shard_.loads, (std::vector<std::int32_t>{1, 0}));
    // Replayed in log order; the unreadable record skipped, the load carried on.
    ASSERT_EQ(shard_.replayed.size(), 51u);
    for (int i = 0; i < 50; ++i)
        EXPECT_EQ(shard_.replayed[static_cast<std::size_t>(i)].second, "k" + std::to_string(i));
    EXPECT_EQ(shard_.replayed[50].second, "k0");
    drain();
    EXPECT_EQ(shard_.loads.size(), 2u);
    EXPECT_TRUE(shard_.unloads.empty());
}

TEST_F(CoordinatorRuntimeTest, WhatIsAppendedDuringALoadIsReplayedToo) {
    // WriteTxnMarkers may write a marker into a partition while it loads: the
    // load must reach it, or the transaction's offsets would never count.
    create_topic();
    fill(0, 50);
    start();
    ASSERT_TRUE(run_until([&] { return shard_.replayed_of(0) >= 10; }));
    ASSERT_TRUE(runtime_->loading());
    ASSERT_EQ(partition(0)->append_txn_marker(77, 0, 0, true).error, ErrorCode::none);
    fill(0, 1);
    ASSERT_TRUE(run_until([&] { return !runtime_->loading(); }));
    EXPECT_EQ(shard_.replayed_of(0), 51u);
    EXPECT_EQ(shard_.markers, (std::vector<std::pair<std::int32_t, std::int64_t>>{{0, 77}}));
}

TEST_F(CoordinatorRuntimeTest, StatusBeforeStartAndForPartitionsLedElsewhere) {
    create_topic();
    start();
    EXPECT_EQ(runtime_->status(7), ErrorCode::not_coordinator);
    runtime_->stop();
    EXPECT_EQ(runtime_->status(0), ErrorCode::coordinator_not_available);
}

TEST_F(CoordinatorRuntimeTest, LosingAPartitionDuringItsLoadAbandonsTheLoad) {
    create_topic();
    fill(0, 200);
    start();
    ASSERT_TRUE(run_until([&] { return shard_.replayed_of(0) >= 10; }));
    ASSERT_TRUE(runtime_->loading());
    ASSERT_TRUE(metadata::test::run(store_->delete_topic(kTopic)).ok());
    ASSERT_TRUE(run_until([&] { return shard_.unloads.size() == 2; }));
    auto replayed = shard_.replayed_of(0);
    EXPECT_LT(replayed, 200u);
    drain();
    EXPECT_EQ(shard_.replayed_of(0), replayed);             // nothing more after the loss
    EXPECT_EQ(shard_.loads, std::vector<std::int32_t>{1});  // partition 0 never finished
    EXPECT_EQ(runtime_->status(0), ErrorCode::not_coordinator);
    EXPECT_FALSE(runtime_->loading());
}

TEST_F(CoordinatorRuntimeTest, WritesCompleteAtTheHighWatermarkOrTimeOut) {
    create_topic();
    start();
    ASSERT_TRUE(run_until([&] { return !runtime_->loading(); }));
    std::optional<ErrorCode> first;
    start_write(0, "a", first);
    ASSERT_TRUE(run_until([&] { return first.has_value(); }));
    EXPECT_EQ(*first, ErrorCode::none);
    EXPECT_EQ(partition(0)->high_watermark(), 1);

    add_lagging_follower(0);
    std::optional<ErrorCode> second;
    start_write(0, "b", second);
    drain();
    EXPECT_FALSE(second.has_value());  // waits for the follower
    EXPECT_EQ(partition(0)->log_end_offset(), 2);
    ASSERT_TRUE(run_until([&] { return second.has_value(); }));
    EXPECT_EQ(*second, ErrorCode::request_timed_out);

    std::optional<ErrorCode> third;
    start_write(0, "c", third);
    drain();
    ASSERT_FALSE(third.has_value());
    ASSERT_TRUE(partition(0)->update_follower_position(kFollower, partition(0)->log_end_offset()));
    ASSERT_TRUE(run_until([&] { return third.has_value(); }));
    EXPECT_EQ(*third, ErrorCode::none);
}

TEST_F(CoordinatorRuntimeTest, WritesToPartitionsNotLoadedFail) {
    create_topic();
    fill(0, 100);
    start();
    std::optional<ErrorCode> loading;
    start_write(0, "a", loading);
    drain();
    ASSERT_TRUE(loading.has_value());
    EXPECT_EQ(*loading, ErrorCode::not_leader_or_follower);
    EXPECT_EQ(partition(0)->log_end_offset(), 100);
}

TEST_F(CoordinatorRuntimeTest, CompactionMovesTheLogStartOnceTheHighWatermarkCoversTheSnapshot) {
    create_topic();
    start();
    ASSERT_TRUE(run_until([&] { return !runtime_->loading(); }));
    for (int i = 0; i < 10; ++i) {
        std::optional<ErrorCode> done;
        start_write(0, "same-key", done);
        ASSERT_TRUE(run_until([&] { return done.has_value(); }));
        ASSERT_EQ(*done, ErrorCode::none);
    }
    add_lagging_follower(0);
    auto appended = runtime_->append(0, {{bytes("other-key"), bytes("v")}});
    ASSERT_EQ(appended.error, ErrorCode::none);
    EXPECT_FALSE(appended.complete());
    auto log = partition(0);
    const auto snapshot_start = log->log_end_offset();  // 11
    runtime_->compact_now(true);
    EXPECT_EQ(log->log_end_offset(), snapshot_start + 2);  // the two live keys again
    EXPECT_EQ(log->log_start_offset(), 0);                 // the snapshot is not replicated yet
    ASSERT_TRUE(log->update_follower_position(kFollower, snapshot_start + 1));
    runtime_->maybe_compact(0, false);
    EXPECT_EQ(log->log_start_offset(), 0);  // covered only in part
    ASSERT_TRUE(log->update_follower_position(kFollower, log->log_end_offset()));
    runtime_->maybe_compact(0, false);
    EXPECT_EQ(log->log_start_offset(), snapshot_start);
}

TEST(DeadlineTimer, FiresAtTheEarliestDeadlineArmed) {
    boost::asio::io_context io{1};
    TimeMs now = 1000;
    int fired = 0;
    DeadlineTimer timer(
        io.get_executor(), [&] { return now; }, [&] { ++fired; });
    timer.arm(1000 + 60'000);
    timer.arm(1000);  // earlier: replaces it
    EXPECT_EQ(timer.armed(), 1000);
    timer.arm(1000 + 30'000);  // later: ignored
    EXPECT_EQ(timer.armed(), 1000);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (fired == 0 && std::chrono::steady_clock::now() < deadline) io.run_one_for(std::chrono::milliseconds(10));
    EXPECT_EQ(fired, 1);
    EXPECT_EQ(timer.armed(), std::nullopt);
    timer.arm(now);
    timer.stop();
    io.restart();
    io.run_for(std::chrono::milliseconds(20));
    EXPECT_EQ(fired, 1);  // stopped timers never call back
}

// Shutdown awaits stopped() before the runtime goes: a run of the body in
// progress (a compaction appending) must end first, and none may start after.
TEST(PeriodicTask, StoppedResolvesOnceTheRunInProgressHasEnded) {
    boost::asio::io_context io{1};
    boost::asio::steady_timer release(io, boost::asio::steady_timer::time_point::max());
    int started = 0;
    int finished = 0;
    PeriodicTask task(io.get_executor(), std::chrono::milliseconds(1), [&]() -> boost::asio::awaitable<void> {
        ++started;
        boost::system::error_code ec;
        co_await release.async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, ec));
        ++finished;
    });
    task.start();
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (started == 0 && std::chrono::steady_clock::now() < deadline) io.run_one_for(std::chrono::milliseconds(10));
    ASSERT_EQ(started, 1);

    task.stop();
    bool stopped = false;
    boost::asio::co_spawn(
        io,
        [&]() -> boost::asio::awaitable<void> {
            co_await task.stopped();
            stopped = true;
        },
        boost::asio::detached);
    io.run_for(std::chrono::milliseconds(20));
    EXPECT_FALSE(stopped);  // the body is still waiting

    release.cancel();
    deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!stopped && std::chrono::steady_clock::now() < deadline) io.run_one_for(std::chrono::milliseconds(10));
    EXPECT_TRUE(stopped);
    EXPECT_EQ(finished, 1);
    io.run_for(std::chrono::milliseconds(20));
    EXPECT_EQ(started, 1);  // no run after stop()
}

}  // namespace
}  // namespace weir::coordinator::runtime
