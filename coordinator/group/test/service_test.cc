// The coordinator service end to end over real storage: APIs at their
// versions, durability across a restart, loading, expiry, compaction.
#include <boost/asio/detached.hpp>

#include "coordinator/group/partitioner.h"
#include "coordinator/group/records.h"
#include "coordinator/group/replay.h"
#include "coordinator/group/test/service_fixture.h"
#include "messages/consumer_protocol.h"

namespace weir::coordinator::test {
namespace {

using Service = CoordinatorService;

wire::Bytes subscription(const std::vector<std::string>& topics) {
    msg::ConsumerProtocolSubscription s;
    s.topics = topics;
    wire::Bytes out;
    out.reserve(64);  // (an empty vector trips GCC 12's -Wstringop-overflow)
    wire::Writer w(out);
    w.int16(0);
    s.encode(w, 0);
    return out;
}

msg::JoinGroupRequest join_request(const std::string& group, const std::string& member_id = "") {
    msg::JoinGroupRequest r;
    r.group_id = group;
    r.member_id = member_id;
    r.session_timeout_ms = 10000;
    r.rebalance_timeout_ms = 10000;
    r.protocol_type = "consumer";
    r.protocols.push_back({"range", subscription({"topic"}), {}});
    return r;
}

msg::OffsetCommitRequest commit_request(const std::string& group, std::int32_t generation, const std::string& member,
                                        std::int64_t offset, std::int32_t partition = 0) {
    msg::OffsetCommitRequest r;
    r.group_id = group;
    r.generation_id_or_member_epoch = generation;
    r.member_id = member;
    auto& t = r.topics.emplace_back();
    t.name = "topic";
    auto& p = t.partitions.emplace_back();
    p.partition_index = partition;
    p.committed_offset = offset;
    p.committed_metadata = "meta";
    return r;
}

class CoordinatorServiceTest : public ServiceTest {
protected:
    void SetUp() override {
        boot();
        create_topic("topic", 4);
    }

    msg::FindCoordinatorResponse find(const std::string& key, std::int16_t version,
                                      std::string listener = "PLAINTEXT") {
        msg::FindCoordinatorRequest r;
        r.key = key;
        r.coordinator_keys = {key};
        return find_coordinator(r, version, std::move(listener));
    }

    std::int64_t fetch_one(const std::string& group, std::int32_t partition = 0) {
        msg::OffsetFetchRequest r;
        r.group_id = group;
        r.topics = std::vector<msg::OffsetFetchRequest::OffsetFetchRequestTopic>{{"topic", {partition}, {}}};
        auto resp = send(r, 5, &Service::offset_fetch);
        EXPECT_EQ(resp.error_code, 0);
        if (resp.topics.empty() || resp.topics[0].partitions.empty()) return -2;
        return resp.topics[0].partitions[0].committed_offset;
    }

    // One member through JoinGroup v5 (member id round trip) and SyncGroup: Stable.
    std::pair<std::string, std::int32_t> stable_member(const std::string& group) {
        auto first = send(join_request(group), 5, &Service::join_group);
        EXPECT_EQ(first.error_code, to_int(ErrorCode::member_id_required));
        auto joined = send(join_request(group, first.member_id), 5, &Service::join_group);
        EXPECT_EQ(joined.error_code, 0);
        EXPECT_EQ(joined.leader, first.member_id);
        msg::SyncGroupRequest s;
        s.group_id = group;
        s.generation_id = joined.generation_id;
        s.member_id = first.member_id;
        s.assignments.push_back({first.member_id, {1, 2, 3}, {}});
        auto synced = send(s, 3, &Service::sync_group);
        EXPECT_EQ(synced.error_code, 0);
        EXPECT_EQ(synced.assignment, (wire::Bytes{1, 2, 3}));
        return {first.member_id, joined.generation_id};
    }
};

TEST_F(CoordinatorServiceTest, FindCoordinatorCreatesTheOffsetsTopicAndNamesThisBroker) {
    EXPECT_EQ(store_->topic("__consumer_offsets"), nullptr);
    auto v0 = find("group", 0);
    EXPECT_EQ(v0.error_code, 0);
    EXPECT_EQ(v0.node_id, kBrokerId);
    EXPECT_EQ(v0.host, "broker.example");
    EXPECT_EQ(v0.port, 19092);
    auto topic = store_->topic("__consumer_offsets");
    ASSERT_NE(topic, nullptr);
    EXPECT_TRUE(topic->internal);
    EXPECT_EQ(topic->partitions.size(), 4u);
    EXPECT_EQ(topic->configs.at("cleanup.policy"), "compact");
    auto internal = find("group", 3, "INTERNAL");
    EXPECT_EQ(internal.host, "internal.example");
    EXPECT_EQ(internal.port, 19093);
    auto v4 = find("group", 4);
    ASSERT_EQ(v4.coordinators.size(), 1u);
    EXPECT_EQ(v4.coordinators[0].key, "group");
    EXPECT_EQ(v4.coordinators[0].node_id, kBrokerId);
    msg::FindCoordinatorRequest txn;
    txn.key_type = 1;
    txn.coordinator_keys = {"tx-1", "tx-2"};
    auto t = find_coordinator(txn, 4);
    ASSERT_EQ(t.coordinators.size(), 2u);
    EXPECT_EQ(t.coordinators[1].error_code, to_int(ErrorCode::coordinator_not_available));
}

TEST_F(CoordinatorServiceTest, FindCoordinatorRoutesOnTheKeyType) {
    msg::FindCoordinatorRequest r;
    r.key = "tx";
    r.key_type = 1;  // no transaction coordinator yet
    auto txn = find_coordinator(r, 3);
    EXPECT_EQ(txn.error_code, to_int(ErrorCode::coordinator_not_available));
    EXPECT_EQ(txn.error_message, "transactions are not supported");
    r.key_type = 2;
    auto unknown = find_coordinator(r, 3);
    EXPECT_EQ(unknown.error_code, to_int(ErrorCode::invalid_request));
    EXPECT_EQ(unknown.error_message, "unknown coordinator key type 2");
    EXPECT_EQ(store_->topic("__consumer_offsets"), nullptr);  // neither is a group lookup
}

TEST_F(CoordinatorServiceTest, GroupRequestsBeforeTheTopicExistsAreNotCoordinator) {
    auto j = send(join_request("g"), 5, &Service::join_group);
    EXPECT_EQ(j.error_code, to_int(ErrorCode::not_coordinator));
    find("g", 2);
    auto empty = send(join_request(""), 5, &Service::join_group);
    EXPECT_EQ(empty.error_code, to_int(ErrorCode::invalid_group_id));
}

TEST_F(CoordinatorServiceTest, MembershipAcrossVersions) {
    find("g", 2);
    auto [member, generation] = stable_member("g");
    msg::HeartbeatRequest hb;
    hb.group_id = "g";
    hb.generation_id = generation;
    hb.member_id = member;
    EXPECT_EQ(send(hb, 0, &Service::heartbeat).error_code, 0);
    hb.generation_id = generation + 5;
    EXPECT_EQ(send(hb, 4, &Service::heartbeat).error_code, to_int(ErrorCode::illegal_generation));
    // JoinGroup v7 reports the protocol type; SyncGroup v5 checks it.
    auto rejoin = send(join_request("g", member), 7, &Service::join_group);
    EXPECT_EQ(rejoin.protocol_type, "consumer");
    EXPECT_EQ(rejoin.protocol_name, "range");
    msg::SyncGroupRequest bad;
    bad.group_id = "g";
    bad.generation_id = rejoin.generation_id;
    bad.member_id = member;
    bad.protocol_type = "connect";
    bad.protocol_name = "range";
    EXPECT_EQ(send(bad, 5, &Service::sync_group).error_code, to_int(ErrorCode::inconsistent_group_protocol));
    // LeaveGroup v0 (one member) and v3 (batched).
    msg::LeaveGroupRequest leave;
    leave.group_id = "g";
    leave.member_id = "nobody";
    EXPECT_EQ(send(leave, 1, &Service::leave_group).error_code, to_int(ErrorCode::unknown_member_id));
    leave.members.push_back({member, std::nullopt, std::nullopt, {}});
    auto left = send(leave, 3, &Service::leave_group);
    EXPECT_EQ(left.error_code, 0);
    ASSERT_EQ(left.members.size(), 1u);
    EXPECT_EQ(left.members[0].error_code, 0);
    msg::DescribeGroupsRequest d;
    d.groups = {"g"};
    auto described = send(d, 5, &Service::describe_groups);
    EXPECT_EQ(described.groups[0].group_state, "Empty");
}

TEST_F(CoordinatorServiceTest, ParkedJoinsAreAnsweredWhenTheRebalanceCompletes) {
    find("g", 2);
    auto [a, generation] = stable_member("g");
    // A second member joins: the group rebalances and waits for a.
    std::optional<msg::JoinGroupResponse> b;
    start_request(join_request("g"), 3, b, &Service::join_group);
    run_for(50);
    EXPECT_FALSE(b.has_value());
    msg::HeartbeatRequest hb;
    hb.group_id = "g";
    hb.generation_id = generation;
    hb.member_id = a;
    EXPECT_EQ(send(hb, 2, &Service::heartbeat).error_code, to_int(ErrorCode::rebalance_in_progress));
    auto a_rejoin = send(join_request("g", a), 3, &Service::join_group);
    ASSERT_TRUE(run_until([&] { return b.has_value(); }));
    EXPECT_EQ(b->error_code, 0);
    EXPECT_EQ(b->generation_id, generation + 1);
    EXPECT_EQ(a_rejoin.members.size(), 2u);
    EXPECT_EQ(b->member_id.rfind("tester-", 0), 0u);  // client id + "-" + UUID
    EXPECT_EQ(b->member_id.size(), std::string("tester-").size() + 36);
}

TEST_F(CoordinatorServiceTest, OffsetsCommitFetchAcrossVersions) {
    find("g", 2);
    // A standalone consumer (generation -1) commits.
    auto c = send(commit_request("g", -1, "", 17), 2, &Service::offset_commit);
    ASSERT_EQ(c.topics.size(), 1u);
    EXPECT_EQ(c.topics[0].partitions[0].error_code, 0);
    EXPECT_EQ(fetch_one("g"), 17);
    // Unknown topic, too much metadata.
    auto unknown = commit_request("g", -1, "", 1);
    unknown.topics[0].name = "no-such-topic";
    EXPECT_EQ(send(unknown, 8, &Service::offset_commit).topics[0].partitions[0].error_code,
              to_int(ErrorCode::unknown_topic_or_partition));
    auto big = commit_request("g", -1, "", 1);
    big.topics[0].partitions[0].committed_metadata = std::string(4097, 'x');
    EXPECT_EQ(send(big, 8, &Service::offset_commit).topics[0].partitions[0].error_code,
              to_int(ErrorCode::offset_metadata_too_large));
    // v1 fetch of an unknown partition; v2+ null topics = everything; v8 several groups.
    EXPECT_EQ(fetch_one("g", 3), -1);
    msg::OffsetFetchRequest all;
    all.group_id = "g";
    all.topics = std::nullopt;
    auto everything = send(all, 2, &Service::offset_fetch);
    ASSERT_EQ(everything.topics.size(), 1u);
    EXPECT_EQ(everything.topics[0].partitions[0].metadata, "meta");
    msg::OffsetFetchRequest multi;
    multi.groups.push_back({"g", std::nullopt, -1, std::nullopt, {}});
    multi.groups.push_back({"", std::nullopt, -1, std::nullopt, {}});
    multi.require_stable = true;
    auto many = send(multi, 8, &Service::offset_fetch);
    ASSERT_EQ(many.groups.size(), 2u);
    EXPECT_EQ(many.groups[0].topics.at(0).partitions.at(0).committed_offset, 17);
    EXPECT_EQ(many.groups[1].error_code, 0);  // the empty group id is valid for fetches
}

TEST_F(CoordinatorServiceTest, MemberCommitsNeedTheCurrentGeneration) {
    find("g", 2);
    auto [member, generation] = stable_member("g");
    EXPECT_EQ(
        send(commit_request("g", generation, member, 5), 7, &Service::offset_commit).topics[0].partitions[0].error_code,
        0);
    EXPECT_EQ(send(commit_request("g", generation - 1, member, 6), 7, &Service::offset_commit)
                  .topics[0]
                  .partitions[0]
                  .error_code,
              to_int(ErrorCode::illegal_generation));
    EXPECT_EQ(send(commit_request("g", -1, "", 6), 7, &Service::offset_commit).topics[0].partitions[0].error_code,
              to_int(ErrorCode::unknown_member_id));
    EXPECT_EQ(fetch_one("g"), 5);
}

msg::TxnOffsetCommitRequest txn_commit_request(const std::string& group, std::int64_t producer_id,
                                               std::int64_t offset) {
    msg::TxnOffsetCommitRequest r;
    r.transactional_id = "txn-" + std::to_string(producer_id);
    r.group_id = group;
    r.producer_id = producer_id;
    r.producer_epoch = 0;
    auto& topic = r.topics.emplace_back();
    topic.name = "topic";
    auto& p = topic.partitions.emplace_back();
    p.partition_index = 0;
    p.committed_offset = offset;
    return r;
}

TEST_F(CoordinatorServiceTest, TransactionalOffsetsShowAfterTheCommitMarkerAndSurviveARestart) {
    find("eos", 2);
    const auto partition = store::partition_for("eos", 4);
    auto committed = send(txn_commit_request("eos", 500, 40), 3, &Service::txn_offset_commit);
    ASSERT_EQ(committed.topics.at(0).partitions.at(0).error_code, 0);
    EXPECT_EQ(fetch_one("eos"), -1);  // pending: invisible

    // What WriteTxnMarkers does: the marker, then the hook.
    ASSERT_EQ(offsets_log(partition)->append_txn_marker(500, 0, 0, true).error, ErrorCode::none);
    service_->complete_transaction(partition, 500, true);
    EXPECT_EQ(fetch_one("eos"), 40);

    // An aborted transaction's offsets never show; an open one's block require_stable.
    send(txn_commit_request("eos", 501, 90), 3, &Service::txn_offset_commit);
    // What WriteTxnMarkers does: the marker, then the hook.
    ASSERT_EQ(offsets_log(partition)->append_txn_marker(501, 0, 0, false).error, ErrorCode::none);
    service_->complete_transaction(partition, 501, false);
    EXPECT_EQ(fetch_one("eos"), 40);
    send(txn_commit_request("eos", 502, 70), 3, &Service::txn_offset_commit);
    msg::OffsetFetchRequest stable;
    stable.group_id = "eos";
    stable.require_stable = true;
    stable.topics = std::vector<msg::OffsetFetchRequest::OffsetFetchRequestTopic>{{"topic", {0}, {}}};
    EXPECT_EQ(send(stable, 7, &Service::offset_fetch).topics.at(0).partitions.at(0).error_code,
              to_int(ErrorCode::unstable_offset_commit));

    // The log replays to the same state: committed, aborted and still-open transactions.
    shutdown();
    boot();
    ASSERT_TRUE(run_until([&] { return !service_->loading(); }));
    EXPECT_EQ(fetch_one("eos"), 40);
    EXPECT_EQ(send(stable, 7, &Service::offset_fetch).topics.at(0).partitions.at(0).error_code,
              to_int(ErrorCode::unstable_offset_commit));
    // What WriteTxnMarkers does: the marker, then the hook.
    ASSERT_EQ(offsets_log(partition)->append_txn_marker(502, 0, 0, true).error, ErrorCode::none);
    service_->complete_transaction(partition, 502, true);
    EXPECT_EQ(fetch_one("eos"), 70);
}

TEST_F(CoordinatorServiceTest, TxnOffsetCommitChecks) {
    find("eos", 2);
    auto unknown = txn_commit_request("eos", 600, 1);
    unknown.topics[0].name = "no-such-topic";
    EXPECT_EQ(send(unknown, 3, &Service::txn_offset_commit).topics[0].partitions[0].error_code,
              to_int(ErrorCode::unknown_topic_or_partition));
    auto empty = txn_commit_request("", 600, 1);
    EXPECT_EQ(send(empty, 3, &Service::txn_offset_commit).topics[0].partitions[0].error_code,
              to_int(ErrorCode::invalid_group_id));
    auto [member, generation] = stable_member("members");
    auto stale = txn_commit_request("members", 600, 1);
    stale.member_id = member;
    stale.generation_id = generation + 1;
    EXPECT_EQ(send(stale, 3, &Service::txn_offset_commit).topics[0].partitions[0].error_code,
              to_int(ErrorCode::illegal_generation));
}

TEST_F(CoordinatorServiceTest, StateSurvivesARestartInKafkasRecordFormat) {
    find("g", 2);
    auto [member, generation] = stable_member("g");
    send(commit_request("g", generation, member, 99, 2), 8, &Service::offset_commit);
    // The log holds Kafka-format records: a v1 offset key, a v3 value, a v2 group key.
    auto partition = store::partition_for("g", 4);
    auto log = offsets_log(partition);
    ASSERT_NE(log, nullptr);
    auto read = log->read(0);
    store::Replayer replay;
    int offset_records = 0;
    store::for_each_record(read.records.bytes(), 0, [&](const store::StoredRecord& r) {
        if (r.key[1] == 1) ++offset_records;
        replay.apply(r.key, r.value, r.offset);
    });
    EXPECT_EQ(offset_records, 1);
    auto loaded = replay.take();
    ASSERT_TRUE(loaded.contains("g"));
    EXPECT_EQ(loaded.at("g").offsets.at({"topic", 2}).offset, 99);
    ASSERT_TRUE(loaded.at("g").metadata.has_value());
    EXPECT_EQ(loaded.at("g").metadata->members.at(0).assignment, (wire::Bytes{1, 2, 3}));

    shutdown();
    boot();
    ASSERT_TRUE(run_until([&] { return !service_->loading(); }));
    EXPECT_EQ(fetch_one("g", 2), 99);
    msg::DescribeGroupsRequest d;
    d.groups = {"g"};
    auto described = send(d, 4, &Service::describe_groups);
    ASSERT_EQ(described.groups.size(), 1u);
    EXPECT_EQ(described.groups[0].group_state, "Stable");
    ASSERT_EQ(described.groups[0].members.size(), 1u);
    EXPECT_EQ(described.groups[0].members[0].member_id, member);
    EXPECT_EQ(described.groups[0].members[0].client_host, "/127.0.0.1");
    EXPECT_EQ(described.groups[0].members[0].member_assignment, (wire::Bytes{1, 2, 3}));
    // The member carries on with its generation.
    msg::HeartbeatRequest hb;
    hb.group_id = "g";
    hb.generation_id = generation;
    hb.member_id = member;
    EXPECT_EQ(send(hb, 3, &Service::heartbeat).error_code, 0);
}

TEST_F(CoordinatorServiceTest, RequestsWhileLoadingAreToldToRetry) {
    find("g", 2);
    for (int i = 0; i < 200; ++i) send(commit_request("g", -1, "", i), 8, &Service::offset_commit);
    shutdown();
    config_.offsets_load_buffer_size = 200;  // many small reads: loading takes many turns
    boot();
    EXPECT_TRUE(service_->loading());
    msg::OffsetFetchRequest r;
    r.group_id = "g";
    std::optional<msg::OffsetFetchResponse> early;
    start_request(r, 5, early, &Service::offset_fetch);
    if (!run_until([&] { return early.has_value(); })) {
        shutdown();  // the parked request refers to `early`
        FAIL() << "OffsetFetch while loading was not answered";
    }
    EXPECT_EQ(early->error_code, to_int(ErrorCode::coordinator_load_in_progress));
    msg::ListGroupsRequest lg;
    EXPECT_EQ(send(lg, 3, &Service::list_groups).error_code, to_int(ErrorCode::coordinator_load_in_progress));
    ASSERT_TRUE(run_until([&] { return !service_->loading(); }));
    EXPECT_EQ(fetch_one("g"), 199);
}

TEST_F(CoordinatorServiceTest, ListDescribeAndDeleteGroups) {
    find("a", 2);
    find("b", 2);
    stable_member("a");
    send(commit_request("b", -1, "", 1), 8, &Service::offset_commit);
    msg::ListGroupsRequest all;
    auto listed = send(all, 4, &Service::list_groups);
    EXPECT_EQ(listed.groups.size(), 2u);
    msg::ListGroupsRequest stable;
    stable.states_filter = {"stable"};
    auto only = send(stable, 4, &Service::list_groups);
    ASSERT_EQ(only.groups.size(), 1u);
    EXPECT_EQ(only.groups[0].group_id, "a");
    EXPECT_EQ(only.groups[0].group_state, "Stable");
    msg::ListGroupsRequest consumer_type;
    consumer_type.types_filter = {"consumer"};
    EXPECT_TRUE(send(consumer_type, 5, &Service::list_groups).groups.empty());

    msg::DescribeGroupsRequest d;
    d.groups = {"a", "missing"};
    d.include_authorized_operations = true;
    auto described = send(d, 5, &Service::describe_groups);
    ASSERT_EQ(described.groups.size(), 2u);
    EXPECT_EQ(described.groups[0].protocol_data, "range");
    EXPECT_EQ(described.groups[0].members.at(0).client_id, "tester");
    EXPECT_EQ(described.groups[0].members.at(0).member_metadata, subscription({"topic"}));
    EXPECT_EQ(described.groups[0].authorized_operations, 328);
    EXPECT_EQ(described.groups[1].group_state, "Dead");

    msg::DeleteGroupsRequest del;
    del.groups_names = {"a", "b", "missing"};
    auto deleted = send(del, 2, &Service::delete_groups);
    ASSERT_EQ(deleted.results.size(), 3u);
    EXPECT_EQ(deleted.results[0].error_code, to_int(ErrorCode::non_empty_group));
    EXPECT_EQ(deleted.results[1].error_code, 0);
    EXPECT_EQ(deleted.results[2].error_code, to_int(ErrorCode::group_id_not_found));
    EXPECT_EQ(fetch_one("b"), -1);
    shutdown();
    boot();
    ASSERT_TRUE(run_until([&] { return !service_->loading(); }));
    EXPECT_EQ(fetch_one("b"), -1);  // the tombstones were durable
}

TEST_F(CoordinatorServiceTest, OffsetDelete) {
    find("g", 2);
    auto [member, generation] = stable_member("g");
    create_topic("other", 1);
    auto c = commit_request("g", generation, member, 3);
    auto& t = c.topics.emplace_back();
    t.name = "other";
    t.partitions.push_back({0, 8, -1, -1, std::string(""), {}});
    send(c, 8, &Service::offset_commit);
    msg::OffsetDeleteRequest r;
    r.group_id = "g";
    r.topics.push_back({"topic", {{0, {}}}, {}});
    r.topics.push_back({"other", {{0, {}}}, {}});
    r.topics.push_back({"gone", {{0, {}}}, {}});
    auto resp = send(r, 0, &Service::offset_delete);
    EXPECT_EQ(resp.error_code, 0);
    ASSERT_EQ(resp.topics.size(), 3u);
    EXPECT_EQ(resp.topics[0].partitions[0].error_code, to_int(ErrorCode::group_subscribed_to_topic));
    EXPECT_EQ(resp.topics[1].partitions[0].error_code, 0);
    EXPECT_EQ(resp.topics[2].partitions[0].error_code, to_int(ErrorCode::unknown_topic_or_partition));
    r.group_id = "nobody";
    EXPECT_EQ(send(r, 0, &Service::offset_delete).error_code, to_int(ErrorCode::group_id_not_found));
}

TEST_F(CoordinatorServiceTest, CompactionKeepsTheLatestRecordPerKey) {
    find("g", 2);
    for (int i = 0; i < 300; ++i) send(commit_request("g", -1, "", i, i % 2), 8, &Service::offset_commit);
    auto log = offsets_log(store::partition_for("g", 4));
    auto before_end = log->log_end_offset();
    EXPECT_EQ(log->log_start_offset(), 0);
    service_->compact_now(true);
    EXPECT_EQ(log->log_start_offset(), before_end);    // everything older is gone
    EXPECT_EQ(log->log_end_offset(), before_end + 2);  // two live offsets rewritten
    send(commit_request("g", -1, "", 1000, 0), 8, &Service::offset_commit);
    shutdown();
    boot();
    ASSERT_TRUE(run_until([&] { return !service_->loading(); }));
    EXPECT_EQ(fetch_one("g", 0), 1000);
    EXPECT_EQ(fetch_one("g", 1), 299);
}

TEST_F(CoordinatorServiceTest, EmptyGroupOffsetsExpire) {
    shutdown();
    TimeMs fake_now = 1'700'000'000'000;
    config_.offsets_retention_minutes = 1;
    CoordinatorService::Options options;
    options.clock = [&] { return fake_now; };
    boot(std::move(options));
    find("g", 2);
    send(commit_request("g", -1, "", 5), 8, &Service::offset_commit);
    fake_now += 59'999;
    bool done = false;
    boost::asio::co_spawn(
        io_,
        [&]() -> boost::asio::awaitable<void> {
            co_await service_->expire_offsets_now();
            done = true;
        },
        boost::asio::detached);
    ASSERT_TRUE(run_until([&] { return done; }));
    EXPECT_EQ(fetch_one("g"), 5);
    fake_now += 1;
    done = false;
    boost::asio::co_spawn(
        io_,
        [&]() -> boost::asio::awaitable<void> {
            co_await service_->expire_offsets_now();
            done = true;
        },
        boost::asio::detached);
    ASSERT_TRUE(run_until([&] { return done; }));
    EXPECT_EQ(fetch_one("g"), -1);
    EXPECT_EQ(service_->manager().find("g"), nullptr);
}

}  // namespace
}  // namespace weir::coordinator::test
