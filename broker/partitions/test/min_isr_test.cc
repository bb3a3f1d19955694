// min.insync.replicas, Kafka's way, on every acks=all path of a leader: a
// produce with acks=all is refused before anything is written, acks=1 is not;
// a write that replicated while the ISR shrank reports
// NOT_ENOUGH_REPLICAS_AFTER_APPEND; transaction markers (appended with
// acks=all) are refused too.
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <optional>

#include "broker/partitions/replica_manager.h"
#include "broker/partitions/test/async_util.h"
#include "broker/partitions/test/local_replicas.h"
#include "broker/storage/test/storage_test_util.h"

namespace weir::partitions {
namespace {

using test::kLocal;
using test::poll;
using test::spawn;
constexpr std::int32_t kIsrPeer = 2;
constexpr std::int32_t kIsrOther = 3;
const std::vector<std::int32_t> kThreeReplicas{kLocal, kIsrPeer, kIsrOther};

struct MinIsr : ::testing::Test {
    storage::test::TempDir tmp;
    boost::asio::io_context io;
    std::optional<test::LocalReplicas> local;
    TopicPartition tp{"t", 0};

    void SetUp() override {
        local.emplace(
            io.get_executor(), std::vector{tmp.path()},
            [](const std::string&) {
                LogConfig config;
                config.min_insync_replicas = 2;
                return config;
            },
            kLocal);
    }
    ReplicaManager& replicas() { return local->replicas(); }
    std::shared_ptr<Partition> leader(std::vector<std::int32_t> isr) {
        return replicas().apply(tp, {kLocal, 1, kThreeReplicas, std::move(isr)});
    }
    static ProduceLimits acks(bool all) { return {.produce_version = 9, .acks_all = all}; }
};

TEST_F(MinIsr, AcksAllIsRefusedBelowMinIsrBeforeAnythingIsWritten) {
    auto p = leader({kLocal});
    const auto batch = storage::test::make_batch(3);
    auto refused = p->append_records_as_leader(batch, acks(true));
    EXPECT_EQ(refused.error, ErrorCode::not_enough_replicas);
    EXPECT_EQ(
        refused.error_message,
        "The size of the current ISR 1 is insufficient to satisfy the min.isr requirement of 2 for partition t-0");
    EXPECT_EQ(p->log_end_offset(), 0);
    // Refused before validation, as Kafka's Partition.appendRecordsToLeader is.
    EXPECT_EQ(p->append_records_as_leader(wire::Bytes{1, 2, 3}, acks(true)).error, ErrorCode::not_enough_replicas);
    auto accepted = p->append_records_as_leader(batch, acks(false));
    EXPECT_EQ(accepted.error, ErrorCode::none);
    EXPECT_EQ(p->log_end_offset(), 3);
}

TEST_F(MinIsr, AcksAllPassesAtMinIsr) {
    auto p = leader({kLocal, kIsrPeer});
    EXPECT_EQ(p->append_records_as_leader(storage::test::make_batch(3), acks(true)).error, ErrorCode::none);
}

TEST_F(MinIsr, AReplicatedWriteReportsAnIsrThatShrankMeanwhile) {
    auto p = leader({kLocal, kIsrPeer});
    auto r = p->append_records_as_leader(storage::test::make_batch(3), acks(true));
    ASSERT_EQ(r.error, ErrorCode::none);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    auto acked = spawn(io, replicas().wait_for_high_watermark(p, r.last_offset + 1, deadline));
    poll(io);
    EXPECT_FALSE(acked->has_value());  // kIsrPeer has not fetched it yet
    // kIsrPeer fetches it, then the ISR shrinks to the leader alone.
    EXPECT_TRUE(p->update_follower_position(kIsrPeer, r.last_offset + 1, std::chrono::steady_clock::now()));
    ASSERT_EQ(p->make_leader({kLocal, 1, kThreeReplicas, {kLocal}}), ErrorCode::none);
    poll(io);
    ASSERT_TRUE(acked->has_value());
    EXPECT_EQ(**acked, ErrorCode::not_enough_replicas_after_append);
}

TEST_F(MinIsr, TransactionMarkersAreRefusedBelowMinIsr) {
    auto p = leader({kLocal});
    EXPECT_EQ(p->append_txn_marker(1000, 0, 0, true).error, ErrorCode::not_enough_replicas);
    EXPECT_EQ(replicas().append_txn_marker(tp, 1000, 0, 0, true).error, ErrorCode::not_enough_replicas);
    EXPECT_EQ(p->log_end_offset(), 0);
}

}  // namespace
}  // namespace weir::partitions
