// Offset commit checks, fetch, expiry, and the admin operations of the core.
#include "coordinator/group/test/group_test_support.h"

namespace weir::coordinator::test {
namespace {

using S = GroupState;

OffsetAndMetadata offset(std::int64_t o, TimeMs ts, std::string metadata = "") {
    OffsetAndMetadata m;
    m.offset = o;
    m.metadata = std::move(metadata);
    m.commit_timestamp = ts;
    return m;
}

class OffsetsTest : public GroupManagerTest {
protected:
    void commit(const std::string& group, std::vector<std::pair<TopicPartition, OffsetAndMetadata>> offsets) {
        std::vector<TopicPartition> tps;
        for (const auto& [tp, o] : offsets) tps.push_back(tp);
        mgr_.prepare_offset_commit(group, tps);
        mgr_.complete_offset_commit(group, offsets, true);
    }
    std::int64_t fetched(const std::string& group, const TopicPartition& tp) {
        auto r = mgr_.fetch_offsets(group, false, std::vector<TopicPartition>{tp});
        return r.at(0).offset;
    }
};

TEST_F(OffsetsTest, StandaloneCommitsCreateAnEmptyGroup) {
    EXPECT_EQ(mgr_.validate_offset_commit(now_, "solo", "", std::nullopt, -1), ErrorCode::none);
    ASSERT_NE(mgr_.find("solo"), nullptr);
    EXPECT_EQ(mgr_.find("solo")->state(), S::empty);
    commit("solo", {{{"t", 0}, offset(42, now_, "meta")}});
    auto r = mgr_.fetch_offsets("solo", false, std::nullopt);
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].offset, 42);
    EXPECT_EQ(r[0].metadata, "meta");
    // A generation for a group that does not exist is stale.
    EXPECT_EQ(mgr_.validate_offset_commit(now_, "other", "m", std::nullopt, 3), ErrorCode::illegal_generation);
}

TEST_F(OffsetsTest, TransactionalOffsetsArePendingUntilTheMarker) {
    // A producer outside any group membership commits for a group nobody is in.
    EXPECT_EQ(mgr_.validate_txn_offset_commit(now_, "eos", "", std::nullopt, -1), ErrorCode::none);
    ASSERT_NE(mgr_.find("eos"), nullptr);
    commit("eos", {{{"t", 0}, offset(5, now_)}});
    mgr_.add_pending_txn_offsets("eos", 77, {{{"t", 0}, offset(9, now_)}, {{"t", 1}, offset(3, now_)}});
    EXPECT_EQ(fetched("eos", {"t", 0}), 5);
    auto stable = mgr_.fetch_offsets("eos", true, std::vector<TopicPartition>{{"t", 0}, {"t", 2}});
    EXPECT_EQ(stable.at(0).error, ErrorCode::unstable_offset_commit);
    EXPECT_EQ(stable.at(1).error, ErrorCode::none);
    // A marker for other groups' partitions changes nothing here.
    mgr_.complete_txn_offsets(77, true, [](const std::string& g) { return g != "eos"; });
    EXPECT_EQ(fetched("eos", {"t", 0}), 5);
    mgr_.complete_txn_offsets(77, true, [](const std::string&) { return true; });
    EXPECT_EQ(fetched("eos", {"t", 0}), 9);
    EXPECT_EQ(fetched("eos", {"t", 1}), 3);
    EXPECT_EQ(mgr_.fetch_offsets("eos", true, std::vector<TopicPartition>{{"t", 0}}).at(0).error, ErrorCode::none);

    mgr_.add_pending_txn_offsets("eos", 78, {{{"t", 0}, offset(100, now_)}});
    mgr_.complete_txn_offsets(78, false, [](const std::string&) { return true; });
    EXPECT_EQ(fetched("eos", {"t", 0}), 9);
}

TEST_F(OffsetsTest, TheLaterRecordInTheLogWinsNotTheLaterCompletion) {
    auto at = [&](std::int64_t o, std::int64_t record_offset) {
        auto m = offset(o, now_);
        m.record_offset = record_offset;
        return m;
    };
    EXPECT_EQ(mgr_.validate_txn_offset_commit(now_, "eos", "", std::nullopt, -1), ErrorCode::none);
    // TxnOffsetCommit written at 10, then a plain OffsetCommit at 11, then the COMMIT marker.
    mgr_.add_pending_txn_offsets("eos", 77, {{{"t", 0}, at(9, 10)}});
    commit("eos", {{{"t", 0}, at(12, 11)}});
    mgr_.complete_txn_offsets(77, true, [](const std::string&) { return true; });
    EXPECT_EQ(fetched("eos", {"t", 0}), 12);
    // Two plain commits acknowledged out of order: the one written later stays.
    commit("eos", {{{"t", 1}, at(30, 21)}});
    commit("eos", {{{"t", 1}, at(20, 20)}});
    EXPECT_EQ(fetched("eos", {"t", 1}), 30);
}

TEST_F(OffsetsTest, TransactionalCommitChecksOnlyANamedMember) {
    auto ids = stable_group(2);
    auto gen = group().generation_id;
    EXPECT_EQ(mgr_.validate_txn_offset_commit(now_, "g", ids[0], std::nullopt, gen), ErrorCode::none);
    EXPECT_EQ(mgr_.validate_txn_offset_commit(now_, "g", ids[0], std::nullopt, gen - 1), ErrorCode::illegal_generation);
    EXPECT_EQ(mgr_.validate_txn_offset_commit(now_, "g", "stranger", std::nullopt, gen), ErrorCode::unknown_member_id);
    // Unlike OffsetCommit, an anonymous transactional commit to a group with members is allowed (v0-v2 clients).
    EXPECT_EQ(mgr_.validate_txn_offset_commit(now_, "g", "", std::nullopt, -1), ErrorCode::none);
}

TEST_F(OffsetsTest, MemberCommitChecks) {
    auto ids = stable_group(2);
    auto gen = group().generation_id;
    EXPECT_EQ(mgr_.validate_offset_commit(now_, "g", ids[0], std::nullopt, gen), ErrorCode::none);
    EXPECT_EQ(mgr_.validate_offset_commit(now_, "g", ids[0], std::nullopt, gen - 1), ErrorCode::illegal_generation);
    EXPECT_EQ(mgr_.validate_offset_commit(now_, "g", "stranger", std::nullopt, gen), ErrorCode::unknown_member_id);
    EXPECT_EQ(mgr_.validate_offset_commit(now_, "g", "", std::nullopt, -1), ErrorCode::unknown_member_id);
    // During a rebalance commits of the old generation are still accepted...
    join(join_request(ids[0]));
    ASSERT_EQ(state(), S::preparing_rebalance);
    EXPECT_EQ(mgr_.validate_offset_commit(now_, "g", ids[1], std::nullopt, gen), ErrorCode::none);
    // ...but not while the new generation's assignment is pending.
    join(join_request(ids[1]));
    ASSERT_EQ(state(), S::completing_rebalance);
    EXPECT_EQ(mgr_.validate_offset_commit(now_, "g", ids[1], std::nullopt, gen + 1), ErrorCode::rebalance_in_progress);
}

TEST_F(OffsetsTest, CommittingCountsAsAHeartbeat) {
    auto ids = stable_group(1);
    auto gen = group().generation_id;
    for (int i = 0; i < 5; ++i) {
        advance(5000);
        EXPECT_EQ(mgr_.validate_offset_commit(now_, "g", ids[0], std::nullopt, gen), ErrorCode::none);
    }
    EXPECT_TRUE(group().has(ids[0]));
}

TEST_F(OffsetsTest, RequireStableReportsCommitsInFlight) {
    mgr_.validate_offset_commit(now_, "g", "", std::nullopt, -1);
    TopicPartition tp{"t", 0};
    mgr_.prepare_offset_commit("g", {tp});
    auto stable = mgr_.fetch_offsets("g", true, std::vector<TopicPartition>{tp});
    EXPECT_EQ(stable[0].error, ErrorCode::unstable_offset_commit);
    auto plain = mgr_.fetch_offsets("g", false, std::vector<TopicPartition>{tp});
    EXPECT_EQ(plain[0].error, ErrorCode::none);
    EXPECT_EQ(plain[0].offset, -1);
    mgr_.complete_offset_commit("g", {{tp, offset(7, now_)}}, false);  // the append failed
    EXPECT_EQ(mgr_.fetch_offsets("g", true, std::vector<TopicPartition>{tp})[0].offset, -1);
}

TEST_F(OffsetsTest, FetchOfUnknownGroupGivesNoOffsets) {
    auto r = mgr_.fetch_offsets("nobody", false, std::vector<TopicPartition>{{"t", 3}});
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].offset, -1);
    EXPECT_EQ(r[0].metadata, "");
    EXPECT_TRUE(mgr_.fetch_offsets("nobody", false, std::nullopt).empty());
}

TEST_F(OffsetsTest, EmptyGroupOffsetsExpireRetentionAfterItEmptied) {
    auto ids = stable_group(1);
    commit("g", {{{"t", 0}, offset(5, now_ - 100000000)}});  // an old commit
    advance(1000);
    leave({{ids[0], std::nullopt}});
    ASSERT_EQ(state(), S::empty);
    const std::int64_t retention = 60000;
    EXPECT_TRUE(mgr_.expire_offsets(now_ + retention - 1, retention).empty());
    auto expired = mgr_.expire_offsets(now_ + retention, retention);
    ASSERT_EQ(expired.size(), 1u);
    EXPECT_EQ(expired[0].offsets, (std::vector<TopicPartition>{{"t", 0}}));
    EXPECT_TRUE(expired[0].group_tombstone);  // generation > 0 had a group record
    EXPECT_EQ(mgr_.find("g"), nullptr);
}

TEST_F(OffsetsTest, StableConsumerGroupKeepsOffsetsOfSubscribedTopics) {
    stable_group(1);  // subscribes to "t"
    commit("g", {{{"t", 0}, offset(1, now_)}, {{"old", 0}, offset(2, now_)}});
    auto expired = mgr_.expire_offsets(now_ + 1000, 1000);
    ASSERT_EQ(expired.size(), 1u);
    EXPECT_EQ(expired[0].offsets, (std::vector<TopicPartition>{{"old", 0}}));
    EXPECT_FALSE(expired[0].group_tombstone);
    EXPECT_EQ(fetched("g", {"t", 0}), 1);
}

TEST_F(OffsetsTest, SimpleConsumerOffsetsExpireByCommitTimeAndExplicitExpiry) {
    mgr_.validate_offset_commit(now_, "simple", "", std::nullopt, -1);
    auto with_expiry = offset(3, now_);
    with_expiry.expire_timestamp = now_ + 10;
    commit("simple", {{{"t", 0}, offset(1, now_)}, {{"t", 1}, with_expiry}});
    auto first = mgr_.expire_offsets(now_ + 10, 1000);
    ASSERT_EQ(first.size(), 1u);
    EXPECT_EQ(first[0].offsets, (std::vector<TopicPartition>{{"t", 1}}));
    auto second = mgr_.expire_offsets(now_ + 1000, 1000);
    ASSERT_EQ(second.size(), 1u);
    EXPECT_FALSE(second[0].group_tombstone);  // generation 0: never had a group record
    EXPECT_EQ(mgr_.find("simple"), nullptr);
}

TEST_F(OffsetsTest, DeleteGroup) {
    Tombstones t;
    EXPECT_EQ(mgr_.delete_group(now_, "g", t), ErrorCode::group_id_not_found);
    auto ids = stable_group(1);
    EXPECT_EQ(mgr_.delete_group(now_, "g", t), ErrorCode::non_empty_group);
    commit("g", {{{"t", 0}, offset(9, now_)}});
    leave({{ids[0], std::nullopt}});
    EXPECT_EQ(mgr_.delete_group(now_, "g", t), ErrorCode::none);
    EXPECT_EQ(t.offsets, (std::vector<TopicPartition>{{"t", 0}}));
    EXPECT_TRUE(t.group_tombstone);
    EXPECT_EQ(mgr_.find("g"), nullptr);
    EXPECT_EQ(mgr_.describe("g").state, "Dead");
}

TEST_F(OffsetsTest, DeleteOffsetsOfSubscribedTopicIsRefused) {
    stable_group(1);
    commit("g", {{{"t", 0}, offset(1, now_)}, {{"u", 0}, offset(2, now_)}});
    auto r = mgr_.delete_offsets(now_, "g", {{"t", 0}, {"u", 0}});
    EXPECT_EQ(r.error, ErrorCode::none);
    ASSERT_EQ(r.partitions.size(), 2u);
    EXPECT_EQ(r.partitions[0].second, ErrorCode::group_subscribed_to_topic);
    EXPECT_EQ(r.partitions[1].second, ErrorCode::none);
    EXPECT_EQ(r.tombstones.offsets, (std::vector<TopicPartition>{{"u", 0}}));
    EXPECT_EQ(fetched("g", {"u", 0}), -1);
    EXPECT_EQ(mgr_.delete_offsets(now_, "nobody", {{"t", 0}}).error, ErrorCode::group_id_not_found);
}

TEST_F(OffsetsTest, DescribeShowsMetadataOnlyWhenStable) {
    auto ids = stable_group(2);
    auto d = mgr_.describe("g");
    EXPECT_EQ(d.state, "Stable");
    EXPECT_EQ(d.protocol_type, "consumer");
    EXPECT_EQ(d.protocol, "range");
    ASSERT_EQ(d.members.size(), 2u);
    for (const auto& m : d.members) {
        EXPECT_EQ(m.client_id, "client");
        EXPECT_EQ(m.client_host, "/127.0.0.1");
        EXPECT_EQ(m.metadata, subscription({"t"}));
        EXPECT_EQ(m.assignment, bytes("assignment-" + m.member_id));
    }
    join(join_request(ids[0]));
    d = mgr_.describe("g");
    EXPECT_EQ(d.state, "PreparingRebalance");
    EXPECT_EQ(d.protocol, "");
    EXPECT_TRUE(d.members[0].metadata.empty());
    auto list = mgr_.list();
    ASSERT_EQ(list.size(), 1u);
    EXPECT_EQ(list[0].state, S::preparing_rebalance);
}

TEST_F(OffsetsTest, LoadedGroupIsStableUntilItsMembersFailToHeartbeat) {
    msg::GroupMetadataValue v;
    v.protocol_type = "consumer";
    v.generation = 7;
    v.protocol = "range";
    v.leader = "m-1";
    v.current_state_timestamp = now_ - 5;
    msg::GroupMetadataValue::MemberMetadata m;
    m.member_id = "m-1";
    m.client_id = "c";
    m.client_host = "/10.0.0.1";
    m.rebalance_timeout = 20000;
    m.session_timeout = 10000;
    m.subscription = subscription({"t"});
    m.assignment = bytes("A");
    v.members.push_back(m);
    Effects fx;
    mgr_.load_group(now_, "g", &v, {{{"t", 0}, offset(11, now_)}}, fx);
    absorb(std::move(fx));
    EXPECT_EQ(state(), S::stable);
    EXPECT_EQ(group().generation_id, 7);
    EXPECT_EQ(fetched("g", {"t", 0}), 11);
    EXPECT_EQ(heartbeat("m-1", 7), ErrorCode::none);
    EXPECT_EQ(sync_result(sync("m-1", 7)).assignment, bytes("A"));
    EXPECT_EQ(group().to_record(nullptr), v);  // round trip, assignment included
    advance(10000);
    EXPECT_FALSE(group().has("m-1"));
    EXPECT_EQ(state(), S::empty);
    EXPECT_EQ(fetched("g", {"t", 0}), 11);  // offsets outlive the members
}

TEST_F(OffsetsTest, DeletedTopicOffsetsAreRemoved) {
    mgr_.validate_offset_commit(now_, "a", "", std::nullopt, -1);
    commit("a", {{{"t", 0}, offset(1, now_)}, {{"u", 0}, offset(1, now_)}});
    auto t = mgr_.remove_topic_offsets(now_, "t");
    ASSERT_EQ(t.size(), 1u);
    EXPECT_EQ(t[0].offsets, (std::vector<TopicPartition>{{"t", 0}}));
    EXPECT_EQ(fetched("a", {"u", 0}), 1);
}

}  // namespace
}  // namespace weir::coordinator::test
