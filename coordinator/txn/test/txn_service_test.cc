// The transaction coordinator on a real broker core (__transaction_state
// written and replayed), reached through the broker's handlers, with a fake
// marker sender and a fake clock.
#include <boost/asio/detached.hpp>

#include "coordinator/group/partitioner.h"
#include "coordinator/txn/test/txn_service_fixture.h"

namespace weir::coordinator::txn::test {
namespace {

class TxnCoordinatorTest : public TxnServiceTest {
protected:
    TxnCoordinatorTest() { boot(); }

    // A transactional producer ready to go: coordinator found, id initialized.
    msg::InitProducerIdResponse ready(const std::string& id) {
        auto found = find(id);
        EXPECT_EQ(found.error_code, 0);
        EXPECT_TRUE(run_until([&] { return !service_->loading(); }));
        auto out = init(id);
        EXPECT_EQ(out.error_code, 0);
        return out;
    }

    static std::int16_t err(ErrorCode e) { return to_int(e); }
};

TEST_F(TxnCoordinatorTest, FindCoordinatorCreatesTheTransactionTopic) {
    EXPECT_EQ(store_->topic(kTransactionTopic), nullptr);
    auto found = find("tx");
    EXPECT_EQ(found.error_code, 0);
    EXPECT_EQ(found.node_id, kBrokerId);
    EXPECT_EQ(found.host, "broker.example");
    EXPECT_EQ(found.port, 19092);
    auto topic = store_->topic(kTransactionTopic);
    ASSERT_NE(topic, nullptr);
    EXPECT_TRUE(topic->internal);
    EXPECT_EQ(topic->partitions.size(), 4u);
    EXPECT_EQ(topic->configs.at("cleanup.policy"), "compact");
    EXPECT_EQ(topic->configs.at("segment.bytes"), "104857600");
    EXPECT_EQ(service_->partition_for("tx"), store::partition_for("tx", 4));
}

TEST_F(TxnCoordinatorTest, RequestsBeforeTheTopicExistsAreNotCoordinator) {
    EXPECT_EQ(init("tx").error_code, err(ErrorCode::not_coordinator));
    EXPECT_EQ(init("").error_code, err(ErrorCode::invalid_request));
    EXPECT_EQ(describe("tx").error_code, err(ErrorCode::not_coordinator));
}

TEST_F(TxnCoordinatorTest, InitProducerIdGivesAnIdThenBumpsItsEpoch) {
    auto first = ready("tx");
    EXPECT_GE(first.producer_id, 0);
    EXPECT_EQ(first.producer_epoch, 0);
    auto second = init("tx", 1);
    EXPECT_EQ(second.producer_id, first.producer_id);
    EXPECT_EQ(second.producer_epoch, 1);
    EXPECT_EQ(init("tx", 2, 900001).error_code, err(ErrorCode::invalid_transaction_timeout));
    // Another id gets another producer id.
    find("other");
    EXPECT_NE(init("other").producer_id, first.producer_id);
    auto log = log_of("tx");
    ASSERT_EQ(log.size(), 2u);
    EXPECT_EQ(log[1]->state, TxnState::empty);
    EXPECT_EQ(log[1]->producer_epoch, 1);
}

TEST_F(TxnCoordinatorTest, FencedErrorsDependOnTheVersion) {
    auto p = ready("tx");
    init("tx");  // epoch 1
    EXPECT_EQ(init("tx", 3, 60000, p.producer_id, 7).error_code, err(ErrorCode::invalid_producer_epoch));
    EXPECT_EQ(init("tx", 4, 60000, p.producer_id, 7).error_code, err(ErrorCode::producer_fenced));
    create_topic("orders", 2);
    EXPECT_EQ(add("tx", p.producer_id, 0, "orders", {0}, 1)
                  .results_by_topic_v3_and_below[0]
                  .results_by_partition[0]
                  .partition_error_code,
              err(ErrorCode::invalid_producer_epoch));
    EXPECT_EQ(add("tx", p.producer_id, 0, "orders", {0}, 2)
                  .results_by_topic_v3_and_below[0]
                  .results_by_partition[0]
                  .partition_error_code,
              err(ErrorCode::producer_fenced));
    EXPECT_EQ(add_offsets("tx", p.producer_id, 0, "g", 1).error_code, err(ErrorCode::invalid_producer_epoch));
    EXPECT_EQ(end("tx", p.producer_id, 0, true, 1).error_code, err(ErrorCode::invalid_producer_epoch));
    EXPECT_EQ(end("tx", p.producer_id, 0, true, 2).error_code, err(ErrorCode::producer_fenced));
}

TEST_F(TxnCoordinatorTest, UnknownPartitionsFailTheWholeRequest) {
    auto p = ready("tx");
    create_topic("orders", 2);
    msg::AddPartitionsToTxnRequest r;
    r.v3_and_below_transactional_id = "tx";
    r.v3_and_below_producer_id = p.producer_id;
    r.v3_and_below_producer_epoch = 0;
    auto& known = r.v3_and_below_topics.emplace_back();
    known.name = "orders";
    known.partitions = {0, 5};
    auto& unknown = r.v3_and_below_topics.emplace_back();
    unknown.name = "nope";
    unknown.partitions = {0};
    auto out = send(r, 3);
    ASSERT_EQ(out.results_by_topic_v3_and_below.size(), 2u);
    const auto& nope = out.results_by_topic_v3_and_below[0];
    EXPECT_EQ(nope.name, "nope");
    EXPECT_EQ(nope.results_by_partition[0].partition_error_code, err(ErrorCode::unknown_topic_or_partition));
    const auto& orders = out.results_by_topic_v3_and_below[1];
    ASSERT_EQ(orders.results_by_partition.size(), 2u);
    EXPECT_EQ(orders.results_by_partition[0].partition_error_code, err(ErrorCode::operation_not_attempted));
    EXPECT_EQ(orders.results_by_partition[1].partition_error_code, err(ErrorCode::unknown_topic_or_partition));
    EXPECT_EQ(describe("tx").transaction_state, "Empty");
}

TEST_F(TxnCoordinatorTest, CommitSendsMarkersToEveryPartitionThenCompletes) {
    auto p = ready("tx");
    create_topic("orders", 2);
    create_topic("__consumer_offsets", 6);  // the group coordinator's, which TxnOffsetCommit needs
    auto added = add("tx", p.producer_id, 0, "orders", {0, 1});
    EXPECT_EQ(added.results_by_topic_v3_and_below[0].results_by_partition[1].partition_error_code, 0);
    EXPECT_EQ(add_offsets("tx", p.producer_id, 0, "my-group").error_code, 0);
    auto described = describe("tx");
    EXPECT_EQ(described.transaction_state, "Ongoing");
    EXPECT_EQ(described.transaction_start_time_ms, clock_);
    ASSERT_EQ(described.topics.size(), 2u);
    EXPECT_EQ(described.topics[0].topic, "__consumer_offsets");
    const auto group_partition = store::partition_for("my-group", 6);
    EXPECT_EQ(described.topics[0].partitions, std::vector<std::int32_t>{group_partition});

    auto ended = end("tx", p.producer_id, 0, true);
    EXPECT_EQ(ended.error_code, 0);
    ASSERT_TRUE(markers_done());
    ASSERT_EQ(markers_->sent.size(), 1u);  // every partition is led here
    const auto& sent = markers_->sent[0];
    EXPECT_EQ(sent.broker_id, kBrokerId);
    ASSERT_EQ(sent.request.markers.size(), 1u);
    const auto& marker = sent.request.markers[0];
    EXPECT_EQ(marker.producer_id, p.producer_id);
    EXPECT_EQ(marker.producer_epoch, 0);
    EXPECT_TRUE(marker.transaction_result);
    EXPECT_EQ(marker.coordinator_epoch, leader_epoch(service_->partition_for("tx")));
    ASSERT_EQ(marker.topics.size(), 2u);
    EXPECT_EQ(marker.topics[1].name, "orders");
    EXPECT_EQ(marker.topics[1].partition_indexes, (std::vector<std::int32_t>{0, 1}));

    EXPECT_EQ(describe("tx").transaction_state, "CompleteCommit");
    EXPECT_TRUE(describe("tx").topics.empty());
    std::vector<TxnState> states;
    for (const auto& v : log_of("tx")) states.push_back(v->state);
    EXPECT_EQ(states, (std::vector<TxnState>{TxnState::empty, TxnState::ongoing, TxnState::ongoing,
                                             TxnState::prepare_commit, TxnState::complete_commit}));
    // A retried EndTxn is answered as done.
    EXPECT_EQ(end("tx", p.producer_id, 0, true).error_code, 0);
    EXPECT_EQ(end("tx", p.producer_id, 0, false).error_code, err(ErrorCode::invalid_txn_state));
}

TEST_F(TxnCoordinatorTest, WhileMarkersAreOutTheProducerWaits) {
    auto p = ready("tx");
    create_topic("orders", 1);
    add("tx", p.producer_id, 0, "orders", {0});
    markers_->hold = true;
    EXPECT_EQ(end("tx", p.producer_id, 0, false).error_code, 0);
    ASSERT_TRUE(run_until([&] { return !markers_->sent.empty(); }));
    EXPECT_EQ(end("tx", p.producer_id, 0, false).error_code, err(ErrorCode::concurrent_transactions));
    EXPECT_EQ(add("tx", p.producer_id, 0, "orders", {0})
                  .results_by_topic_v3_and_below[0]
                  .results_by_partition[0]
                  .partition_error_code,
              err(ErrorCode::concurrent_transactions));
    EXPECT_EQ(init("tx").error_code, err(ErrorCode::concurrent_transactions));
    EXPECT_EQ(describe("tx").transaction_state, "PrepareAbort");
    markers_->hold = false;
    ASSERT_TRUE(markers_done());
    EXPECT_EQ(describe("tx").transaction_state, "CompleteAbort");
    EXPECT_EQ(init("tx").producer_epoch, 1);
}

TEST_F(TxnCoordinatorTest, MarkersAreRetriedOnRetriableErrorsAndMissingAnswers) {
    auto p = ready("tx");
    create_topic("orders", 2);
    add("tx", p.producer_id, 0, "orders", {0, 1});
    int calls = 0;
    markers_->answer = [&](std::int32_t, const TopicPartition& tp) -> std::optional<ErrorCode> {
        ++calls;
        if (calls == 1) return std::nullopt;  // connection lost
        if (tp.partition == 1 && calls < 5) return ErrorCode::not_leader_or_follower;
        return ErrorCode::none;
    };
    EXPECT_EQ(end("tx", p.producer_id, 0, true).error_code, 0);
    ASSERT_TRUE(markers_done());
    EXPECT_EQ(describe("tx").transaction_state, "CompleteCommit");
    ASSERT_GE(markers_->sent.size(), 3u);
    // The retries after partition 0 was written carry only partition 1.
    EXPECT_EQ(markers_->sent.back().request.markers[0].topics[0].partition_indexes, std::vector<std::int32_t>{1});
}

TEST_F(TxnCoordinatorTest, AStaleEpochAtTheLeaderAbandonsTheMarkers) {
    auto p = ready("tx");
    create_topic("orders", 1);
    add("tx", p.producer_id, 0, "orders", {0});
    markers_->answer = [](std::int32_t, const TopicPartition&) -> std::optional<ErrorCode> {
        return ErrorCode::transaction_coordinator_fenced;
    };
    EXPECT_EQ(end("tx", p.producer_id, 0, true).error_code, 0);
    ASSERT_TRUE(markers_done());
    EXPECT_EQ(markers_->sent.size(), 1u);
    // As Kafka: no completion written; the id stays pending until the partition is reloaded.
    EXPECT_EQ(describe("tx").transaction_state, "PrepareCommit");
    EXPECT_EQ(init("tx").error_code, err(ErrorCode::concurrent_transactions));
}

TEST_F(TxnCoordinatorTest, PartitionsOfDeletedTopicsAreDropped) {
    auto p = ready("tx");
    create_topic("orders", 1);
    create_topic("gone", 1);
    add("tx", p.producer_id, 0, "orders", {0});
    add("tx", p.producer_id, 0, "gone", {0});
    ASSERT_TRUE(metadata::test::run(store_->delete_topic("gone")).ok());
    drain();
    EXPECT_EQ(end("tx", p.producer_id, 0, true).error_code, 0);
    ASSERT_TRUE(markers_done());
    ASSERT_EQ(markers_->sent.size(), 1u);
    ASSERT_EQ(markers_->sent[0].request.markers[0].topics.size(), 1u);
    EXPECT_EQ(markers_->sent[0].request.markers[0].topics[0].name, "orders");
    EXPECT_EQ(describe("tx").transaction_state, "CompleteCommit");
}

TEST_F(TxnCoordinatorTest, InitDuringATransactionAbortsItAndAsksToRetry) {
    auto p = ready("tx");
    create_topic("orders", 1);
    add("tx", p.producer_id, 0, "orders", {0});
    auto fenced = init("tx");
    EXPECT_EQ(fenced.error_code, err(ErrorCode::concurrent_transactions));
    EXPECT_EQ(fenced.producer_id, -1);
    ASSERT_TRUE(markers_done());
    ASSERT_EQ(markers_->sent.size(), 1u);
    EXPECT_FALSE(markers_->sent[0].request.markers[0].transaction_result);
    EXPECT_EQ(markers_->sent[0].request.markers[0].producer_epoch, 1);
    auto retried = init("tx");
    EXPECT_EQ(retried.error_code, 0);
    EXPECT_EQ(retried.producer_epoch, 2);
    EXPECT_EQ(end("tx", p.producer_id, 0, true).error_code, err(ErrorCode::producer_fenced));
}

TEST_F(TxnCoordinatorTest, TimedOutTransactionsAreAborted) {
    find("tx");
    ASSERT_TRUE(run_until([&] { return !service_->loading(); }));
    auto p = init("tx", 4, 1000);
    create_topic("orders", 1);
    add("tx", p.producer_id, 0, "orders", {0});
    clock_ += 1000;
    boost::asio::co_spawn(io_, service_->abort_timed_out_now(), boost::asio::detached);
    drain();
    EXPECT_EQ(describe("tx").transaction_state, "Ongoing");
    clock_ += 1;
    boost::asio::co_spawn(io_, service_->abort_timed_out_now(), boost::asio::detached);
    ASSERT_TRUE(run_until([&] { return describe("tx").transaction_state == "CompleteAbort"; }));
    EXPECT_EQ(describe("tx").producer_epoch, 1);
    EXPECT_EQ(end("tx", p.producer_id, 0, true).error_code, err(ErrorCode::producer_fenced));
}

TEST_F(TxnCoordinatorTest, IdleIdsExpireAndTheirTombstoneSurvivesARestart) {
    ready("tx");
    clock_ += 100000 - 1;
    boost::asio::co_spawn(io_, service_->expire_now(), boost::asio::detached);
    drain();
    EXPECT_EQ(describe("tx").error_code, 0);
    clock_ += 1;
    bool done = false;
    boost::asio::co_spawn(
        io_,
        [&]() -> boost::asio::awaitable<void> {
            co_await service_->expire_now();
            done = true;
        },
        boost::asio::detached);
    ASSERT_TRUE(run_until([&] { return done; }));
    EXPECT_EQ(describe("tx").error_code, err(ErrorCode::transactional_id_not_found));
    auto log = log_of("tx");
    ASSERT_EQ(log.size(), 2u);
    EXPECT_FALSE(log[1].has_value());
    shutdown();
    boot();
    find("tx");
    ASSERT_TRUE(run_until([&] { return !service_->loading(); }));
    EXPECT_EQ(describe("tx").error_code, err(ErrorCode::transactional_id_not_found));
}

TEST_F(TxnCoordinatorTest, StateAndUnfinishedCommitsSurviveARestart) {
    auto p = ready("tx");
    create_topic("orders", 1);
    add("tx", p.producer_id, 0, "orders", {0});
    ready("open");
    add("open", init("open").producer_id, 1, "orders", {0});
    markers_->hold = true;
    EXPECT_EQ(end("tx", p.producer_id, 0, true).error_code, 0);
    ASSERT_TRUE(run_until([&] { return !markers_->sent.empty(); }));
    shutdown();  // PrepareCommit written, markers never answered

    boot();
    find("tx");
    ASSERT_TRUE(run_until([&] { return !service_->loading(); }));
    ASSERT_TRUE(markers_done());
    ASSERT_EQ(markers_->sent.size(), 1u);  // sent again by the new leader
    EXPECT_TRUE(markers_->sent[0].request.markers[0].transaction_result);
    EXPECT_EQ(describe("tx").transaction_state, "CompleteCommit");
    auto open = describe("open");
    EXPECT_EQ(open.transaction_state, "Ongoing");
    EXPECT_EQ(open.producer_epoch, 1);
    // The producer goes on with its epoch.
    EXPECT_EQ(end("open", open.producer_id, 1, false).error_code, 0);
}

TEST_F(TxnCoordinatorTest, ListTransactionsFilters) {
    auto a = ready("a");
    find("b");
    auto b = init("b");
    create_topic("orders", 1);
    add("a", a.producer_id, 0, "orders", {0});
    clock_ += 1000;
    msg::ListTransactionsRequest all;
    auto listed = send(all, 0);
    EXPECT_EQ(listed.error_code, 0);
    EXPECT_EQ(listed.transaction_states.size(), 2u);
    msg::ListTransactionsRequest filtered;
    filtered.state_filters = {"Ongoing", "Nope"};
    filtered.producer_id_filters = {a.producer_id, b.producer_id};
    filtered.duration_filter = 500;
    listed = send(filtered, 1);
    EXPECT_EQ(listed.unknown_state_filters, std::vector<std::string>{"Nope"});
    ASSERT_EQ(listed.transaction_states.size(), 1u);
    EXPECT_EQ(listed.transaction_states[0].transactional_id, "a");
    EXPECT_EQ(listed.transaction_states[0].transaction_state, "Ongoing");
    EXPECT_EQ(listed.transaction_states[0].producer_id, a.producer_id);
}

TEST_F(TxnCoordinatorTest, BatchedAddPartitionsFromBrokers) {
    auto p = ready("tx");
    create_topic("orders", 2);
    add("tx", p.producer_id, 0, "orders", {0});
    msg::AddPartitionsToTxnRequest r;
    auto& verify = r.transactions.emplace_back();
    verify.transactional_id = "tx";
    verify.producer_id = p.producer_id;
    verify.producer_epoch = 0;
    verify.verify_only = true;
    auto& topic = verify.topics.emplace_back();
    topic.name = "orders";
    topic.partitions = {0, 1};
    auto out = send(r, 4);
    ASSERT_EQ(out.results_by_transaction.size(), 1u);
    const auto& results = out.results_by_transaction[0].topic_results.at(0).results_by_partition;
    ASSERT_EQ(results.size(), 2u);
    EXPECT_EQ(results[0].partition_error_code, 0);
    EXPECT_EQ(results[1].partition_error_code, err(ErrorCode::transaction_abortable));
    r.transactions[0].verify_only = false;
    out = send(r, 4);
    EXPECT_EQ(out.results_by_transaction[0].topic_results.at(0).results_by_partition[1].partition_error_code, 0);
    EXPECT_EQ(describe("tx").topics.at(0).partitions, (std::vector<std::int32_t>{0, 1}));
}

TEST_F(TxnCoordinatorTest, StoppedCoordinatorIsNotAvailable) {
    auto p = ready("tx");
    create_topic("orders", 1);
    add("tx", p.producer_id, 0, "orders", {0});
    service_->stop();
    EXPECT_EQ(init("tx").error_code, err(ErrorCode::coordinator_not_available));
    EXPECT_EQ(add_offsets("tx", p.producer_id, 0, "g").error_code, err(ErrorCode::coordinator_not_available));
    EXPECT_EQ(end("tx", p.producer_id, 0, true).error_code, err(ErrorCode::coordinator_not_available));
    EXPECT_EQ(describe("tx").error_code, err(ErrorCode::coordinator_not_available));
    msg::ListTransactionsRequest all;
    EXPECT_EQ(send(all, 0).error_code, err(ErrorCode::coordinator_not_available));
}

}  // namespace
}  // namespace weir::coordinator::txn::test
