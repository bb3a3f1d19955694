// WriteTxnMarkers end to end on a test broker core, and what transactions
// change for consumers: read_committed fetches stop at the last stable
// offset, report aborted transactions (null for read_uncommitted) and wake
// when a marker moves the LSO; ListOffsets LATEST answers the LSO for them.
#include <boost/asio/co_spawn.hpp>

#include "broker/handlers/test/handler_fixture.h"
#include "broker/metadata/topic_name.h"
#include "broker/partitions/replica_manager.h"

namespace weir::handlers::test {
namespace {

constexpr std::int64_t kPid = 4000;

// Records the transactions the group coordinator is told about.
class RecordingGroups : public GroupService {
public:
    struct Completed {
        std::int32_t partition;
        std::int64_t producer_id;
        bool commit;
        bool operator==(const Completed&) const = default;
    };
    std::vector<Completed> completed;

    void start() override {}
    void stop() override {}
    Task<void> stopped() override { co_return; }
    [[nodiscard]] bool loading() const override { return false; }
    CoordinatorLocator& locator() override { std::abort(); }
    Task<msg::JoinGroupResponse> join_group(const Ctx&, msg::JoinGroupRequest) override {
        co_return msg::JoinGroupResponse{};
    }
    Task<msg::SyncGroupResponse> sync_group(const Ctx&, msg::SyncGroupRequest) override {
        co_return msg::SyncGroupResponse{};
    }
    Task<msg::HeartbeatResponse> heartbeat(const Ctx&, msg::HeartbeatRequest) override {
        co_return msg::HeartbeatResponse{};
    }
    Task<msg::LeaveGroupResponse> leave_group(const Ctx&, msg::LeaveGroupRequest) override {
        co_return msg::LeaveGroupResponse{};
    }
    Task<msg::OffsetCommitResponse> offset_commit(const Ctx&, msg::OffsetCommitRequest) override {
        co_return msg::OffsetCommitResponse{};
    }
    Task<msg::OffsetFetchResponse> offset_fetch(const Ctx&, msg::OffsetFetchRequest) override {
        co_return msg::OffsetFetchResponse{};
    }
    Task<msg::DescribeGroupsResponse> describe_groups(const Ctx&, msg::DescribeGroupsRequest) override {
        co_return msg::DescribeGroupsResponse{};
    }
    Task<msg::ListGroupsResponse> list_groups(const Ctx&, msg::ListGroupsRequest) override {
        co_return msg::ListGroupsResponse{};
    }
    Task<msg::DeleteGroupsResponse> delete_groups(const Ctx&, msg::DeleteGroupsRequest) override {
        co_return msg::DeleteGroupsResponse{};
    }
    Task<msg::OffsetDeleteResponse> offset_delete(const Ctx&, msg::OffsetDeleteRequest) override {
        co_return msg::OffsetDeleteResponse{};
    }
    Task<msg::TxnOffsetCommitResponse> txn_offset_commit(const Ctx&, msg::TxnOffsetCommitRequest) override {
        co_return msg::TxnOffsetCommitResponse{};
    }
    void complete_transaction(std::int32_t partition, std::int64_t producer_id, bool commit) override {
        completed.push_back({partition, producer_id, commit});
    }
};

// Markers carry the wall clock (now_ms); data far older would roll a segment by time.
wire::Bytes txn_batch(std::int32_t first_seq, int count, std::int16_t epoch = 0) {
    records::BatchBuilderOptions options;
    options.base_timestamp = now_ms();
    options.producer_id = kPid;
    options.producer_epoch = epoch;
    options.base_sequence = first_seq;
    options.transactional = true;
    std::vector<records::Record> recs;
    for (int i = 0; i < count; ++i) {
        records::Record r;
        r.offset_delta = i;
        r.key = wire::Bytes{'k'};
        r.value = wire::Bytes(8, static_cast<std::uint8_t>('a' + i));
        recs.push_back(std::move(r));
    }
    return records::build_batch(options, recs);
}

msg::WriteTxnMarkersRequest markers(bool commit, std::vector<std::pair<std::string, std::vector<std::int32_t>>> topics,
                                    std::int16_t epoch = 0, std::int32_t coordinator_epoch = 0) {
    msg::WriteTxnMarkersRequest request;
    auto& m = request.markers.emplace_back();
    m.producer_id = kPid;
    m.producer_epoch = epoch;
    m.transaction_result = commit;
    m.coordinator_epoch = coordinator_epoch;
    for (auto& [name, partitions] : topics) {
        auto& t = m.topics.emplace_back();
        t.name = name;
        t.partition_indexes = partitions;
    }
    return request;
}

msg::FetchRequest fetch_request(const std::string& topic, std::int64_t offset, bool read_committed,
                                std::int32_t max_wait_ms = 0, std::int32_t min_bytes = 0) {
    msg::FetchRequest r;
    r.replica_id = -1;
    r.max_wait_ms = max_wait_ms;
    r.min_bytes = min_bytes;
    r.max_bytes = 1 << 20;
    r.isolation_level = read_committed ? 1 : 0;
    auto& t = r.topics.emplace_back();
    t.topic = topic;
    auto& p = t.partitions.emplace_back();
    p.partition = 0;
    p.fetch_offset = offset;
    p.partition_max_bytes = 1 << 20;
    return r;
}

std::int64_t records_end(const msg::FetchResponse::PartitionData& p) {
    std::int64_t end = -1;
    if (!p.records) return end;
    const auto bytes = p.records->contents();
    for (auto batch : records::split_batches(bytes, true)) end = records::parse_batch_header(batch).last_offset() + 1;
    return end;
}

class TxnMarkersTest : public HandlerTest {
protected:
    void SetUp() override {
        start();
        context_->group_service = &groups_;
        create_topic("t", 2);
    }
    partitions::AppendResult produce_txn(const std::string& topic, std::int32_t partition, std::int32_t first_seq,
                                         int count, std::int16_t epoch = 0) {
        auto batch = txn_batch(first_seq, count, epoch);
        return log(topic, partition)->append(batch);
    }
    std::int16_t error_of(const msg::WriteTxnMarkersResponse& r, const std::string& topic, std::int32_t partition) {
        for (const auto& m : r.markers)
            for (const auto& t : m.topics)
                if (t.name == topic)
                    for (const auto& p : t.partitions)
                        if (p.partition_index == partition) return p.error_code;
        ADD_FAILURE() << "no answer for " << topic << "-" << partition;
        return -1;
    }

    RecordingGroups groups_;
};

TEST_F(TxnMarkersTest, ACommitMarkerEndsTheTransactionOnEachPartition) {
    ASSERT_EQ(produce_txn("t", 0, 0, 2).error, ErrorCode::none);
    ASSERT_EQ(produce_txn("t", 1, 0, 3).error, ErrorCode::none);
    EXPECT_EQ(log("t", 0)->last_stable_offset(), 0);
    for (std::int16_t version : {0, 1}) {
        auto r = call(markers(true, {{"t", {0, 1}}}), version);
        ASSERT_EQ(r.markers.size(), 1u);
        EXPECT_EQ(r.markers[0].producer_id, kPid);
        EXPECT_EQ(error_of(r, "t", 0), 0);
        EXPECT_EQ(error_of(r, "t", 1), 0);
    }
    // The second round ended nothing: no data in between.
    EXPECT_EQ(log("t", 0)->log_end_offset(), 4);
    EXPECT_EQ(log("t", 0)->last_stable_offset(), 4);
    EXPECT_EQ(log("t", 1)->last_stable_offset(), 5);
    EXPECT_TRUE(groups_.completed.empty());
}

TEST_F(TxnMarkersTest, PerPartitionErrors) {
    ASSERT_EQ(produce_txn("t", 0, 0, 1, 3).error, ErrorCode::none);
    auto r = call(markers(false, {{"t", {0, 1, 9}}, {"missing", {0}}}, 2), 1);
    EXPECT_EQ(error_of(r, "t", 0), to_int(ErrorCode::invalid_producer_epoch));
    EXPECT_EQ(error_of(r, "t", 1), 0);  // the producer is unknown there: nothing to check against
    EXPECT_EQ(error_of(r, "t", 9), to_int(ErrorCode::unknown_topic_or_partition));
    EXPECT_EQ(error_of(r, "missing", 0), to_int(ErrorCode::unknown_topic_or_partition));
    EXPECT_EQ(log("t", 0)->last_stable_offset(), 0);

    ASSERT_EQ(call(markers(false, {{"t", {0}}}, 3, 5), 1).markers[0].topics[0].partitions[0].error_code, 0);
    ASSERT_EQ(produce_txn("t", 0, 1, 1, 3).error, ErrorCode::none);
    auto fenced = call(markers(true, {{"t", {0}}}, 3, 4), 1);
    EXPECT_EQ(error_of(fenced, "t", 0), to_int(ErrorCode::transaction_coordinator_fenced));
}

TEST_F(TxnMarkersTest, AFollowerAnswersNotLeader) {
    ASSERT_EQ(log("t", 0)->make_follower({99, 5, {kBrokerId, 99}, {kBrokerId, 99}}), ErrorCode::none);
    auto r = call(markers(true, {{"t", {0}}}), 1);
    EXPECT_EQ(error_of(r, "t", 0), to_int(ErrorCode::not_leader_or_follower));
}

TEST_F(TxnMarkersTest, AMarkerOnTheOffsetsTopicCompletesTheGroupsTransaction) {
    create_topic(std::string(metadata::kConsumerOffsetsTopic), 2);
    ASSERT_EQ(produce_txn(std::string(metadata::kConsumerOffsetsTopic), 1, 0, 1).error, ErrorCode::none);
    auto r = call(markers(true, {{std::string(metadata::kConsumerOffsetsTopic), {1}}, {"t", {0}}}), 1);
    EXPECT_EQ(error_of(r, std::string(metadata::kConsumerOffsetsTopic), 1), 0);
    EXPECT_EQ(groups_.completed, (std::vector<RecordingGroups::Completed>{{1, kPid, true}}));
    groups_.completed.clear();
    // A failed marker tells the groups nothing.
    auto fenced = call(markers(false, {{std::string(metadata::kConsumerOffsetsTopic), {1}}}, 0, -1), 1);
    EXPECT_EQ(error_of(fenced, std::string(metadata::kConsumerOffsetsTopic), 1),
              to_int(ErrorCode::transaction_coordinator_fenced));
    EXPECT_TRUE(groups_.completed.empty());
}

TEST_F(TxnMarkersTest, ReadCommittedFetchesStopAtTheLsoAndListAbortedTransactions) {
    const auto later = now_ms() + 60'000;
    ASSERT_EQ(produce_txn("t", 0, 0, 2).error, ErrorCode::none);          // 0-1
    ASSERT_EQ(call(markers(false, {{"t", {0}}}), 1).markers.size(), 1u);  // 2
    produce("t", 0, 1, now_ms());                                         // 3
    ASSERT_EQ(produce_txn("t", 0, 2, 1).error, ErrorCode::none);          // 4 open
    produce("t", 0, 1, later);                                            // 5

    auto committed = call(fetch_request("t", 0, true), 11).responses[0].partitions[0];
    EXPECT_EQ(committed.error_code, 0);
    EXPECT_EQ(committed.high_watermark, 6);
    EXPECT_EQ(committed.last_stable_offset, 4);
    EXPECT_EQ(records_end(committed), 4);
    ASSERT_TRUE(committed.aborted_transactions);
    ASSERT_EQ(committed.aborted_transactions->size(), 1u);
    EXPECT_EQ((*committed.aborted_transactions)[0].producer_id, kPid);
    EXPECT_EQ((*committed.aborted_transactions)[0].first_offset, 0);

    auto uncommitted = call(fetch_request("t", 0, false), 11).responses[0].partitions[0];
    EXPECT_EQ(records_end(uncommitted), 6);
    EXPECT_FALSE(uncommitted.aborted_transactions);

    // Out of range: an error, and null as Kafka sends.
    auto failed = call(fetch_request("t", 99, true), 11).responses[0].partitions[0];
    EXPECT_EQ(failed.error_code, to_int(ErrorCode::offset_out_of_range));
    EXPECT_FALSE(failed.aborted_transactions);

    msg::ListOffsetsRequest list;
    list.replica_id = -1;
    list.isolation_level = 1;
    auto& lt = list.topics.emplace_back();
    lt.name = "t";
    lt.partitions.emplace_back().timestamp = -1;
    EXPECT_EQ(call(list, 5).topics[0].partitions[0].offset, 4);
    list.isolation_level = 0;
    EXPECT_EQ(call(list, 5).topics[0].partitions[0].offset, 6);
    // A timestamp lookup finds nothing at or past the LSO for read_committed.
    list.topics[0].partitions[0].timestamp = later;
    EXPECT_EQ(call(list, 5).topics[0].partitions[0].offset, 5);
    list.isolation_level = 1;
    EXPECT_EQ(call(list, 5).topics[0].partitions[0].offset, -1);
}

TEST_F(TxnMarkersTest, AParkedReadCommittedFetchWakesWhenAMarkerMovesTheLso) {
    ASSERT_EQ(produce_txn("t", 0, 0, 2).error, ErrorCode::none);
    std::optional<msg::FetchResponse> response;
    handlers::ConnectionInfo connection{1, "127.0.0.1:50000", "PLAINTEXT"};
    protocol::RequestHeader header;
    header.api_key = msg::FetchRequest::api_key;
    header.api_version = 11;
    RequestContext ctx{header, connection, std::chrono::steady_clock::now()};
    boost::asio::co_spawn(
        io_,
        [&]() -> boost::asio::awaitable<void> {
            response = co_await handle(*context_, ctx, fetch_request("t", 0, true, 10'000, 1));
        },
        [](std::exception_ptr e) {
            if (e) std::rethrow_exception(e);
        });
    io_.restart();
    io_.poll();
    ASSERT_FALSE(response) << "nothing is committed yet: the fetch parks";
    ASSERT_EQ(context_->partitions.append_txn_marker({"t", 0}, kPid, 0, 0, true).error, ErrorCode::none);
    const auto bound = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    io_.restart();
    while (!response && std::chrono::steady_clock::now() < bound) io_.run_one_for(std::chrono::milliseconds(10));
    ASSERT_TRUE(response);
    const auto& p = response->responses[0].partitions[0];
    EXPECT_EQ(p.last_stable_offset, 3);
    EXPECT_EQ(records_end(p), 3);
}

}  // namespace
}  // namespace weir::handlers::test
