// Kafka's transaction state machine without I/O, on a fake clock: every
// write is "appended" by the test and reported back.
#include "coordinator/txn/txn_manager.h"

#include <gtest/gtest.h>

namespace weir::coordinator::txn {
namespace {

constexpr std::int32_t kEpoch = 5;  // coordinator epoch
constexpr std::int32_t kTimeout = 60000;

class TxnManagerTest : public ::testing::Test {
protected:
    TxnManagerTest() : core_(config(), [](std::string_view id) { return id.starts_with("other") ? 1 : 0; }) {
        core_.load(now_, 0, kEpoch, {});
    }
    static TxnConfig config() {
        TxnConfig c;
        c.max_timeout_ms = 900000;
        c.id_expiration_ms = 100000;
        return c;
    }

    // Runs a step's write to completion, as the service does.
    WriteOutcome commit(const Step& step, ErrorCode append_error = ErrorCode::none) {
        EXPECT_TRUE(step.write.has_value()) << "no write; answer " << static_cast<int>(step.error);
        if (!step.write) return {};
        return core_.write_done(now_, *step.write, append_error);
    }

    // A new producer: InitProducerId with a fresh id, written.
    WriteOutcome init(const std::string& id, std::int64_t new_id = 1000,
                      std::optional<ProducerIdAndEpoch> expected = std::nullopt) {
        auto step = core_.init_producer_id(now_, id, kTimeout, expected, std::nullopt);
        if (step.need_producer_id) step = core_.init_producer_id(now_, id, kTimeout, expected, new_id);
        return commit(step);
    }

    // An ongoing transaction over `partitions`.
    void begin(const std::string& id, const PartitionSet& partitions) {
        const auto* txn = core_.find(id);
        ASSERT_NE(txn, nullptr);
        auto out = commit(core_.add_partitions(now_, id, txn->producer_id, txn->producer_epoch, partitions));
        ASSERT_EQ(out.error, ErrorCode::none);
    }

    // EndTxn written; returns its marker job.
    MarkerJob end(const std::string& id, bool commit_it) {
        const auto* txn = core_.find(id);
        auto out = commit(core_.end_txn(now_, id, txn->producer_id, txn->producer_epoch, commit_it));
        EXPECT_EQ(out.error, ErrorCode::none);
        EXPECT_TRUE(out.markers.has_value());
        return out.markers.value_or(MarkerJob{});
    }

    void finish(const MarkerJob& job) {
        for (const auto& tp : job.partitions) core_.marker_done(job, tp);
        auto complete = core_.markers_done(job);
        ASSERT_TRUE(complete.has_value());
        EXPECT_EQ(core_.write_done(now_, *complete, ErrorCode::none).error, ErrorCode::none);
    }

    TimeMs now_ = 1'000'000;
    TxnManager core_;
};

// ---- InitProducerId ----

TEST_F(TxnManagerTest, InitAsksForAProducerIdOnceAndStartsAtEpochZero) {
    auto step = core_.init_producer_id(now_, "t", kTimeout, std::nullopt, std::nullopt);
    EXPECT_TRUE(step.need_producer_id);
    EXPECT_EQ(core_.find("t"), nullptr);
    step = core_.init_producer_id(now_, "t", kTimeout, std::nullopt, 1000);
    ASSERT_TRUE(step.write);
    EXPECT_EQ(step.write->kind, WriteKind::init_producer_id);
    EXPECT_EQ(step.write->partition, 0);
    EXPECT_EQ(step.write->coordinator_epoch, kEpoch);
    EXPECT_EQ(step.write->transit.state, TxnState::empty);
    EXPECT_EQ(step.write->transit.producer_epoch, 0);
    EXPECT_EQ(core_.find("t")->pending, TxnState::empty);
    auto out = core_.write_done(now_, *step.write, ErrorCode::none);
    EXPECT_EQ(out.error, ErrorCode::none);
    EXPECT_EQ(out.producer_id, 1000);
    EXPECT_EQ(out.producer_epoch, 0);
    EXPECT_FALSE(core_.find("t")->pending.has_value());
}

TEST_F(TxnManagerTest, InitAgainBumpsTheEpochAndKeepsTheId) {
    init("t");
    auto step = core_.init_producer_id(now_, "t", kTimeout, std::nullopt, std::nullopt);
    EXPECT_FALSE(step.need_producer_id);
    auto out = commit(step);
    EXPECT_EQ(out.producer_id, 1000);
    EXPECT_EQ(out.producer_epoch, 1);
    EXPECT_EQ(core_.find("t")->last_producer_epoch, kNoProducerEpoch);
}

TEST_F(TxnManagerTest, InitValidatesIdAndTimeoutBeforeOwnership) {
    EXPECT_EQ(core_.init_producer_id(now_, "", kTimeout, std::nullopt, 1).error, ErrorCode::invalid_request);
    EXPECT_EQ(core_.init_producer_id(now_, "t", 0, std::nullopt, 1).error, ErrorCode::invalid_transaction_timeout);
    EXPECT_EQ(core_.init_producer_id(now_, "t", 900001, std::nullopt, 1).error, ErrorCode::invalid_transaction_timeout);
    EXPECT_TRUE(core_.init_producer_id(now_, "t", 900000, std::nullopt, 1).write.has_value());
    EXPECT_EQ(core_.init_producer_id(now_, "other", kTimeout, std::nullopt, 1).error, ErrorCode::not_coordinator);
}

TEST_F(TxnManagerTest, RequestsDuringAWriteAreConcurrent) {
    init("t");
    auto step = core_.init_producer_id(now_, "t", kTimeout, std::nullopt, std::nullopt);
    ASSERT_TRUE(step.write);
    EXPECT_EQ(core_.init_producer_id(now_, "t", kTimeout, std::nullopt, std::nullopt).error,
              ErrorCode::concurrent_transactions);
    // The epoch checks come first (Kafka's order): the current epoch is still 0.
    EXPECT_EQ(core_.add_partitions(now_, "t", 1000, 0, {{"a", 0}}).error, ErrorCode::concurrent_transactions);
    EXPECT_EQ(core_.add_partitions(now_, "t", 1000, 1, {{"a", 0}}).error, ErrorCode::producer_fenced);
}

TEST_F(TxnManagerTest, Kip360RecoveryBumpsFromTheNamedEpochAndRetriesGetTheSameEpoch) {
    init("t");                                             // epoch 0
    auto out = init("t", 0, ProducerIdAndEpoch{1000, 0});  // recover from epoch 0
    EXPECT_EQ(out.producer_epoch, 1);
    EXPECT_EQ(core_.find("t")->last_producer_epoch, 0);
    // The response was lost: the same request again gets the same epoch.
    out = init("t", 0, ProducerIdAndEpoch{1000, 0});
    EXPECT_EQ(out.error, ErrorCode::none);
    EXPECT_EQ(out.producer_epoch, 1);
    // Another producer id, or an epoch that is neither current nor last: fenced.
    EXPECT_EQ(core_.init_producer_id(now_, "t", kTimeout, ProducerIdAndEpoch{77, 1}, std::nullopt).error,
              ErrorCode::producer_fenced);
    init("t");  // a new producer: epoch 2, last epoch forgotten
    EXPECT_EQ(core_.init_producer_id(now_, "t", kTimeout, ProducerIdAndEpoch{1000, 1}, std::nullopt).error,
              ErrorCode::producer_fenced);
}

TEST_F(TxnManagerTest, ExhaustedEpochRotatesToANewProducerId) {
    TxnTransit t;
    t.producer_id = 1000;
    t.producer_epoch = INT16_MAX - 1;
    t.timeout_ms = kTimeout;
    t.state = TxnState::complete_commit;
    t.start_timestamp = now_ - 10;
    t.last_update_timestamp = now_ - 5;
    core_.load(now_, 0, kEpoch, {{"t", t}});
    auto step = core_.init_producer_id(now_, "t", kTimeout, ProducerIdAndEpoch{1000, INT16_MAX - 1}, std::nullopt);
    EXPECT_TRUE(step.need_producer_id);
    step = core_.init_producer_id(now_, "t", kTimeout, ProducerIdAndEpoch{1000, INT16_MAX - 1}, 2000);
    auto out = commit(step);
    EXPECT_EQ(out.producer_id, 2000);
    EXPECT_EQ(out.producer_epoch, 0);
    EXPECT_EQ(core_.find("t")->previous_producer_id, 1000);
    // A retry naming the old id and its exhausted epoch is not fenced: it gets the same answer.
    out = init("t", 0, ProducerIdAndEpoch{1000, INT16_MAX - 1});
    EXPECT_EQ(out.error, ErrorCode::none);
    EXPECT_EQ(out.producer_id, 2000);
    EXPECT_EQ(out.producer_epoch, 0);
}

TEST_F(TxnManagerTest, InitDuringAnOngoingTransactionFencesAndAbortsItFirst) {
    init("t");
    begin("t", {{"a", 0}, {"b", 1}});
    auto step = core_.init_producer_id(now_, "t", kTimeout, std::nullopt, std::nullopt);
    ASSERT_TRUE(step.write);
    EXPECT_EQ(step.write->kind, WriteKind::epoch_fence);
    EXPECT_EQ(step.write->transit.state, TxnState::prepare_abort);
    EXPECT_EQ(step.write->transit.producer_epoch, 1);
    // The old producer is fenced at once.
    EXPECT_EQ(core_.add_partitions(now_, "t", 1000, 0, {{"c", 0}}).error, ErrorCode::producer_fenced);
    EXPECT_EQ(core_.end_txn(now_, "t", 1000, 0, true).error, ErrorCode::producer_fenced);
    auto out = core_.write_done(now_, *step.write, ErrorCode::none);
    EXPECT_EQ(out.error, ErrorCode::concurrent_transactions);
    ASSERT_TRUE(out.markers);
    EXPECT_FALSE(out.markers->commit);
    EXPECT_EQ(out.markers->producer_epoch, 1);
    EXPECT_EQ(out.markers->partitions, (PartitionSet{{"a", 0}, {"b", 1}}));
    EXPECT_EQ(core_.find("t")->state, TxnState::prepare_abort);
    // Still completing: the retry waits.
    EXPECT_EQ(core_.init_producer_id(now_, "t", kTimeout, std::nullopt, std::nullopt).error,
              ErrorCode::concurrent_transactions);
    finish(*out.markers);
    EXPECT_EQ(core_.find("t")->state, TxnState::complete_abort);
    EXPECT_EQ(init("t").producer_epoch, 2);
}

// ---- AddPartitionsToTxn ----

TEST_F(TxnManagerTest, AddPartitionsChecksProducerAndStartsTheTransaction) {
    EXPECT_EQ(core_.add_partitions(now_, "t", 1000, 0, {{"a", 0}}).error, ErrorCode::invalid_producer_id_mapping);
    EXPECT_EQ(core_.add_partitions(now_, "", 1000, 0, {{"a", 0}}).error, ErrorCode::invalid_request);
    init("t");
    EXPECT_EQ(core_.add_partitions(now_, "t", 999, 0, {{"a", 0}}).error, ErrorCode::invalid_producer_id_mapping);
    EXPECT_EQ(core_.add_partitions(now_, "t", 1000, 1, {{"a", 0}}).error, ErrorCode::producer_fenced);
    auto step = core_.add_partitions(now_, "t", 1000, 0, {{"a", 0}});
    ASSERT_TRUE(step.write);
    EXPECT_EQ(step.write->transit.state, TxnState::ongoing);
    EXPECT_EQ(step.write->transit.start_timestamp, now_);
    commit(step);
    now_ += 10;
    // Already there: answered without a write.
    step = core_.add_partitions(now_, "t", 1000, 0, {{"a", 0}});
    EXPECT_FALSE(step.write);
    EXPECT_EQ(step.error, ErrorCode::none);
    step = core_.add_partitions(now_, "t", 1000, 0, {{"b", 2}});
    ASSERT_TRUE(step.write);
    EXPECT_EQ(step.write->transit.start_timestamp, now_ - 10);  // the transaction's start stays
    commit(step);
    EXPECT_EQ(core_.find("t")->partitions, (PartitionSet{{"a", 0}, {"b", 2}}));
}

TEST_F(TxnManagerTest, AddPartitionsWhileThePreviousTransactionCompletesIsConcurrent) {
    init("t");
    begin("t", {{"a", 0}});
    auto job = end("t", true);
    EXPECT_EQ(core_.add_partitions(now_, "t", 1000, 0, {{"b", 0}}).error, ErrorCode::concurrent_transactions);
    finish(job);
    EXPECT_TRUE(core_.add_partitions(now_, "t", 1000, 0, {{"b", 0}}).write.has_value());
}

TEST_F(TxnManagerTest, VerifyOnlyReportsMembership) {
    init("t");
    begin("t", {{"a", 0}});
    auto errors = core_.verify_partitions("t", 1000, 0, {{"a", 0}, {"a", 1}});
    EXPECT_EQ(errors.at({"a", 0}), ErrorCode::none);
    EXPECT_EQ(errors.at({"a", 1}), ErrorCode::transaction_abortable);
    EXPECT_EQ(core_.verify_partitions("t", 1000, 3, {{"a", 0}}).at({"a", 0}), ErrorCode::producer_fenced);
    EXPECT_EQ(core_.verify_partitions("u", 1000, 0, {{"a", 0}}).at({"a", 0}), ErrorCode::invalid_producer_id_mapping);
}

// ---- EndTxn ----

TEST_F(TxnManagerTest, CommitWritesPrepareThenMarkersThenComplete) {
    init("t");
    begin("t", {{"a", 0}, {"b", 0}});
    auto step = core_.end_txn(now_, "t", 1000, 0, true);
    ASSERT_TRUE(step.write);
    EXPECT_EQ(step.write->kind, WriteKind::end_txn);
    EXPECT_EQ(step.write->transit.state, TxnState::prepare_commit);
    auto out = commit(step);
    EXPECT_EQ(out.error, ErrorCode::none);
    EXPECT_EQ(out.producer_id, 1000);
    EXPECT_EQ(out.producer_epoch, 0);
    ASSERT_TRUE(out.markers);
    const auto job = *out.markers;
    EXPECT_TRUE(job.commit);
    EXPECT_EQ(job.coordinator_epoch, kEpoch);
    EXPECT_EQ(core_.find("t")->state, TxnState::prepare_commit);
    EXPECT_EQ(core_.find("t")->pending, TxnState::complete_commit);
    EXPECT_TRUE(core_.job_current(job));

    // Retries while it completes.
    EXPECT_EQ(core_.end_txn(now_, "t", 1000, 0, true).error, ErrorCode::concurrent_transactions);
    core_.marker_done(job, {"a", 0});
    EXPECT_EQ(core_.describe("t").partitions, (PartitionSet{{"b", 0}}));
    core_.marker_done(job, {"b", 0});
    auto complete = core_.markers_done(job);
    ASSERT_TRUE(complete);
    EXPECT_EQ(complete->kind, WriteKind::complete);
    EXPECT_EQ(complete->transit.state, TxnState::complete_commit);
    EXPECT_TRUE(complete->transit.partitions.empty());
    EXPECT_EQ(core_.write_done(now_, *complete, ErrorCode::none).error, ErrorCode::none);
    EXPECT_EQ(core_.find("t")->state, TxnState::complete_commit);
    EXPECT_FALSE(core_.job_current(job));

    // A retry of the finished commit succeeds; an abort of it is invalid.
    auto retry = core_.end_txn(now_, "t", 1000, 0, true);
    EXPECT_FALSE(retry.write);
    EXPECT_EQ(retry.error, ErrorCode::none);
    EXPECT_EQ(retry.producer_id, 1000);
    EXPECT_EQ(core_.end_txn(now_, "t", 1000, 0, false).error, ErrorCode::invalid_txn_state);
}

TEST_F(TxnManagerTest, EndTxnErrors) {
    EXPECT_EQ(core_.end_txn(now_, "t", 1000, 0, true).error, ErrorCode::invalid_producer_id_mapping);
    init("t");
    EXPECT_EQ(core_.end_txn(now_, "t", 1000, 0, true).error, ErrorCode::invalid_txn_state);  // Empty
    begin("t", {{"a", 0}});
    EXPECT_EQ(core_.end_txn(now_, "t", 1001, 0, true).error, ErrorCode::invalid_producer_id_mapping);
    EXPECT_EQ(core_.end_txn(now_, "t", 1000, 1, true).error, ErrorCode::producer_fenced);
    auto job = end("t", false);
    EXPECT_EQ(core_.find("t")->state, TxnState::prepare_abort);
    EXPECT_EQ(core_.end_txn(now_, "t", 1000, 0, true).error, ErrorCode::concurrent_transactions);  // pending
    finish(job);
    EXPECT_EQ(core_.end_txn(now_, "t", 1000, 0, true).error, ErrorCode::invalid_txn_state);
    EXPECT_EQ(core_.end_txn(now_, "t", 1000, 0, false).error, ErrorCode::none);
}

TEST_F(TxnManagerTest, PrepareStateWithoutPendingAnswersByResult) {
    TxnTransit t;
    t.producer_id = 1000;
    t.producer_epoch = 3;
    t.timeout_ms = kTimeout;
    t.state = TxnState::prepare_commit;
    t.partitions = {{"a", 0}};
    core_.load(now_, 0, kEpoch, {{"t", t}});
    // Loading hands out the markers again, so the transaction is pending...
    EXPECT_EQ(core_.end_txn(now_, "t", 1000, 3, true).error, ErrorCode::concurrent_transactions);
    // ...and once that job is lost (write failure below), PrepareCommit answers by result.
    core_.load(now_, 0, kEpoch, {{"t", t}});
    auto* txn = const_cast<TxnMetadata*>(core_.find("t"));
    txn->pending.reset();
    EXPECT_EQ(core_.end_txn(now_, "t", 1000, 3, true).error, ErrorCode::concurrent_transactions);
    EXPECT_EQ(core_.end_txn(now_, "t", 1000, 3, false).error, ErrorCode::invalid_txn_state);
}

// ---- the log ----

TEST_F(TxnManagerTest, FailedAppendsAreMappedAndReleaseThePendingState) {
    init("t");
    auto out = commit(core_.add_partitions(now_, "t", 1000, 0, {{"a", 0}}), ErrorCode::not_enough_replicas);
    EXPECT_EQ(out.error, ErrorCode::coordinator_not_available);
    EXPECT_FALSE(core_.find("t")->pending);
    EXPECT_EQ(core_.find("t")->state, TxnState::empty);
    out = commit(core_.add_partitions(now_, "t", 1000, 0, {{"a", 0}}), ErrorCode::not_leader_or_follower);
    EXPECT_EQ(out.error, ErrorCode::not_coordinator);
    out = commit(core_.add_partitions(now_, "t", 1000, 0, {{"a", 0}}), ErrorCode::record_list_too_large);
    EXPECT_EQ(out.error, ErrorCode::unknown_server_error);
    out = commit(core_.add_partitions(now_, "t", 1000, 0, {{"a", 0}}), ErrorCode::request_timed_out);
    EXPECT_EQ(out.error, ErrorCode::coordinator_not_available);
}

TEST_F(TxnManagerTest, CompletionWriteIsRetriedWhileTheLogIsUnavailable) {
    init("t");
    begin("t", {{"a", 0}});
    auto job = end("t", true);
    core_.marker_done(job, {"a", 0});
    auto complete = core_.markers_done(job);
    ASSERT_TRUE(complete);
    auto out = core_.write_done(now_, *complete, ErrorCode::not_enough_replicas);
    EXPECT_TRUE(out.retry);
    EXPECT_EQ(core_.find("t")->pending, TxnState::complete_commit);
    complete = core_.markers_done(job);
    ASSERT_TRUE(complete);
    EXPECT_FALSE(core_.write_done(now_, *complete, ErrorCode::none).retry);
    EXPECT_EQ(core_.find("t")->state, TxnState::complete_commit);
}

TEST_F(TxnManagerTest, FailedEpochFenceDoesNotBumpTwice) {
    init("t");
    begin("t", {{"a", 0}});
    auto out =
        commit(core_.init_producer_id(now_, "t", kTimeout, std::nullopt, std::nullopt), ErrorCode::not_enough_replicas);
    EXPECT_EQ(out.error, ErrorCode::coordinator_not_available);
    EXPECT_EQ(core_.find("t")->producer_epoch, 1);
    EXPECT_TRUE(core_.find("t")->failed_epoch_fence);
    auto step = core_.init_producer_id(now_, "t", kTimeout, std::nullopt, std::nullopt);
    ASSERT_TRUE(step.write);
    EXPECT_EQ(step.write->transit.producer_epoch, 1);
    out = commit(step);
    EXPECT_EQ(out.error, ErrorCode::concurrent_transactions);
    EXPECT_FALSE(core_.find("t")->failed_epoch_fence);
}

TEST_F(TxnManagerTest, WritesOfAnEarlierLeadershipAreNotApplied) {
    init("t");
    auto step = core_.add_partitions(now_, "t", 1000, 0, {{"a", 0}});
    ASSERT_TRUE(step.write);
    core_.unload(0);
    EXPECT_EQ(core_.write_done(now_, *step.write, ErrorCode::none).error, ErrorCode::not_coordinator);
    EXPECT_EQ(core_.add_partitions(now_, "t", 1000, 0, {{"a", 0}}).error, ErrorCode::not_coordinator);
    TxnTransit t;
    t.producer_id = 1000;
    t.producer_epoch = 0;
    t.timeout_ms = kTimeout;
    core_.load(now_, 0, kEpoch + 1, {{"t", t}});
    EXPECT_EQ(core_.write_done(now_, *step.write, ErrorCode::none).error, ErrorCode::not_coordinator);
    EXPECT_EQ(core_.find("t")->state, TxnState::empty);
}

TEST_F(TxnManagerTest, MarkerJobsEndWithTheCoordinatorEpoch) {
    init("t");
    begin("t", {{"a", 0}});
    auto job = end("t", true);
    TxnTransit t;
    t.producer_id = 1000;
    t.producer_epoch = 0;
    t.timeout_ms = kTimeout;
    t.state = TxnState::prepare_commit;
    t.partitions = {{"a", 0}};
    auto jobs = core_.load(now_, 0, kEpoch + 1, {{"t", t}});
    EXPECT_FALSE(core_.job_current(job));
    EXPECT_FALSE(core_.markers_done(job).has_value());
    ASSERT_EQ(jobs.size(), 1u);
    EXPECT_EQ(jobs[0].coordinator_epoch, kEpoch + 1);
    EXPECT_TRUE(core_.job_current(jobs[0]));
}

// ---- replay ----

TEST_F(TxnManagerTest, LoadRestoresStateAndResumesPreparedTransactions) {
    TxnTransit ongoing;
    ongoing.producer_id = 1;
    ongoing.producer_epoch = 4;
    ongoing.timeout_ms = 1000;
    ongoing.state = TxnState::ongoing;
    ongoing.partitions = {{"x", 0}};
    ongoing.start_timestamp = now_ - 100;
    ongoing.last_update_timestamp = now_ - 50;
    TxnTransit aborting = ongoing;
    aborting.producer_id = 2;
    aborting.state = TxnState::prepare_abort;
    TxnTransit empty = ongoing;
    empty.producer_id = 3;
    empty.state = TxnState::empty;
    empty.partitions.clear();
    auto jobs = core_.load(now_, 0, 9, {{"a", ongoing}, {"b", aborting}, {"c", empty}});
    ASSERT_EQ(jobs.size(), 1u);
    EXPECT_EQ(jobs[0].transactional_id, "b");
    EXPECT_FALSE(jobs[0].commit);
    EXPECT_EQ(jobs[0].producer_epoch, 4);
    EXPECT_EQ(jobs[0].partitions, (PartitionSet{{"x", 0}}));
    EXPECT_EQ(jobs[0].coordinator_epoch, 9);
    const auto* a = core_.find("a");
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(a->state, TxnState::ongoing);
    EXPECT_EQ(a->producer_epoch, 4);
    EXPECT_EQ(a->last_producer_epoch, kNoProducerEpoch);
    EXPECT_EQ(a->start_timestamp, now_ - 100);
    EXPECT_EQ(a->partitions, (PartitionSet{{"x", 0}}));
    EXPECT_EQ(core_.find("b")->pending, TxnState::complete_abort);
    EXPECT_EQ(core_.size(), 3u);
    // The loaded producer goes on where it was.
    EXPECT_EQ(core_.end_txn(now_, "a", 1, 4, true).write->transit.state, TxnState::prepare_commit);
}

// ---- timeouts and expiration ----

TEST_F(TxnManagerTest, TransactionsPastTheirTimeoutAreFencedAndAborted) {
    init("t");
    begin("t", {{"a", 0}});
    init("u", 2000);
    now_ += kTimeout;
    EXPECT_TRUE(core_.abort_timed_out(now_).empty());  // not yet: start + timeout < now
    now_ += 1;
    auto writes = core_.abort_timed_out(now_);
    ASSERT_EQ(writes.size(), 1u);
    EXPECT_EQ(writes[0].transactional_id, "t");
    EXPECT_EQ(writes[0].kind, WriteKind::epoch_fence);
    EXPECT_EQ(writes[0].transit.producer_epoch, 1);
    EXPECT_EQ(writes[0].transit.state, TxnState::prepare_abort);
    // Pending now: not aborted twice.
    EXPECT_TRUE(core_.abort_timed_out(now_ + 1000).empty());
    auto out = core_.write_done(now_, writes[0], ErrorCode::none);
    ASSERT_TRUE(out.markers);
    EXPECT_EQ(core_.add_partitions(now_, "t", 1000, 0, {{"b", 0}}).error, ErrorCode::producer_fenced);
    finish(*out.markers);
    EXPECT_EQ(core_.describe("t").state, "CompleteAbort");
    EXPECT_EQ(core_.describe("t").producer_epoch, 1);
}

TEST_F(TxnManagerTest, IdleTransactionalIdsExpireWithATombstone) {
    init("t");
    init("u", 2000);
    begin("u", {{"a", 0}});
    now_ += 100000 - 1;
    EXPECT_TRUE(core_.expire(now_).empty());
    now_ += 1;
    auto writes = core_.expire(now_);
    ASSERT_EQ(writes.size(), 1u);  // u is ongoing: never expired
    EXPECT_EQ(writes[0].kind, WriteKind::expire);
    EXPECT_EQ(writes[0].transactional_id, "t");
    EXPECT_EQ(core_.find("t")->pending, TxnState::dead);
    EXPECT_EQ(core_.init_producer_id(now_, "t", kTimeout, std::nullopt, std::nullopt).error,
              ErrorCode::concurrent_transactions);
    EXPECT_EQ(core_.write_done(now_, writes[0], ErrorCode::none).error, ErrorCode::none);
    EXPECT_EQ(core_.find("t"), nullptr);
    EXPECT_EQ(core_.describe("t").error, ErrorCode::transactional_id_not_found);
}

TEST_F(TxnManagerTest, FailedExpirationKeepsTheId) {
    init("t");
    now_ += 100000;
    auto writes = core_.expire(now_);
    ASSERT_EQ(writes.size(), 1u);
    EXPECT_EQ(core_.write_done(now_, writes[0], ErrorCode::not_enough_replicas).error,
              ErrorCode::coordinator_not_available);
    ASSERT_NE(core_.find("t"), nullptr);
    EXPECT_FALSE(core_.find("t")->pending);
}

// ---- DescribeTransactions, ListTransactions ----

TEST_F(TxnManagerTest, DescribeShowsTheTransaction) {
    EXPECT_EQ(core_.describe("").error, ErrorCode::invalid_request);
    EXPECT_EQ(core_.describe("t").error, ErrorCode::transactional_id_not_found);
    EXPECT_EQ(core_.describe("other").error, ErrorCode::not_coordinator);
    init("t");
    begin("t", {{"b", 1}, {"a", 0}});
    auto d = core_.describe("t");
    EXPECT_EQ(d.error, ErrorCode::none);
    EXPECT_EQ(d.state, "Ongoing");
    EXPECT_EQ(d.producer_id, 1000);
    EXPECT_EQ(d.timeout_ms, kTimeout);
    EXPECT_EQ(d.start_timestamp, now_);
    EXPECT_EQ(d.partitions, (PartitionSet{{"a", 0}, {"b", 1}}));
}

TEST_F(TxnManagerTest, ListFiltersByStateProducerAndDuration) {
    init("t", 1000);
    begin("t", {{"a", 0}});
    now_ += 500;
    init("u", 2000);
    begin("u", {{"a", 0}});
    init("v", 3000);
    auto all = core_.list(now_, {});
    EXPECT_EQ(all.transactions.size(), 3u);

    ListFilters f;
    f.states = {"Ongoing", "Bogus"};
    auto by_state = core_.list(now_, f);
    EXPECT_EQ(by_state.unknown_states, std::vector<std::string>{"Bogus"});
    EXPECT_EQ(by_state.transactions.size(), 2u);

    f = {};
    f.producer_ids = {2000, 3000};
    auto by_id = core_.list(now_, f);
    ASSERT_EQ(by_id.transactions.size(), 2u);
    EXPECT_EQ(by_id.transactions[0].transactional_id, "u");

    f = {};
    f.states = {"Ongoing"};
    f.min_duration_ms = 400;  // only t has run longer
    auto by_duration = core_.list(now_, f);
    ASSERT_EQ(by_duration.transactions.size(), 1u);
    EXPECT_EQ(by_duration.transactions[0].transactional_id, "t");
    EXPECT_EQ(by_duration.transactions[0].state, "Ongoing");
}

}  // namespace
}  // namespace weir::coordinator::txn
