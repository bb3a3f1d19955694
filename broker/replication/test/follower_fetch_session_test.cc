#include "broker/replication/follower_fetch_session.h"

#include <gtest/gtest.h>

#include "broker/handlers/test/handler_fixture.h"

namespace weir::replication {
namespace {

using Asks = std::map<TopicPartition, FollowerFetchSession::Ask>;

// A fetcher that states its whole wish list at each fill (the real one states
// each change as it happens).
class Follower : public FollowerFetchSession {
public:
    using FollowerFetchSession::fill;
    void fill(msg::FetchRequest& request, const Asks& asks) {
        for (const auto& [tp, ask] : wanted_)
            if (!asks.contains(tp)) drop(tp);
        for (const auto& [tp, ask] : asks) want(tp, ask);
        wanted_ = asks;
        fill(request);
    }

private:
    Asks wanted_;
};

// (topic, partition, fetch offset) of every partition a request names.
std::vector<std::tuple<std::string, std::int32_t, std::int64_t>> named(const msg::FetchRequest& r) {
    std::vector<std::tuple<std::string, std::int32_t, std::int64_t>> out;
    for (const auto& t : r.topics)
        for (const auto& p : t.partitions) out.emplace_back(t.topic, p.partition, p.fetch_offset);
    return out;
}

std::vector<std::pair<std::string, std::int32_t>> forgotten(const msg::FetchRequest& r) {
    std::vector<std::pair<std::string, std::int32_t>> out;
    for (const auto& t : r.forgotten_topics_data)
        for (auto p : t.partitions) out.emplace_back(t.topic, p);
    return out;
}

Asks three_partitions() {
    return {{{"a", 0}, {10, 0, 4, 1024}}, {{"a", 1}, {20, 0, 4, 1024}}, {{"b", 0}, {30, 0, 2, 1024}}};
}

// A session the leader opened (id 77) over three_partitions().
Follower opened() {
    Follower s;
    msg::FetchRequest first;
    s.fill(first, three_partitions());
    s.answered(ErrorCode::none, 77);
    return s;
}

TEST(FollowerFetchSessionTest, FirstFetchNamesEveryPartitionAndOpensASession) {
    Follower s;
    msg::FetchRequest r;
    s.fill(r, three_partitions());
    EXPECT_EQ(r.session_id, 0);
    EXPECT_EQ(r.session_epoch, 0);
    EXPECT_EQ(named(r), (decltype(named(r)){{"a", 0, 10}, {"a", 1, 20}, {"b", 0, 30}}));
    ASSERT_EQ(r.topics.size(), 2u);
    EXPECT_EQ(r.topics[0].partitions[1].current_leader_epoch, 4);
    EXPECT_EQ(r.topics[0].partitions[1].partition_max_bytes, 1024);
    EXPECT_TRUE(r.forgotten_topics_data.empty());
    s.answered(ErrorCode::none, 77);
    EXPECT_EQ(s.session_id(), 77);
    EXPECT_EQ(s.epoch(), 1);
}

TEST(FollowerFetchSessionTest, LaterFetchesNameOnlyChangesAndForgetWhatIsNoLongerAsked) {
    auto s = opened();
    msg::FetchRequest quiet;
    s.fill(quiet, three_partitions());
    EXPECT_EQ(quiet.session_id, 77);
    EXPECT_EQ(quiet.session_epoch, 1);
    EXPECT_TRUE(quiet.topics.empty());
    s.answered(ErrorCode::none, 77);

    auto asks = three_partitions();
    asks[{"a", 1}].fetch_offset = 25;         // records came back
    asks[{"b", 0}].current_leader_epoch = 3;  // a new leader epoch
    asks.erase({"a", 0});                     // truncating, or no longer followed
    asks[{"c", 0}] = {0, 0, 1, 1024};         // newly followed
    msg::FetchRequest changed;
    s.fill(changed, asks);
    EXPECT_EQ(changed.session_epoch, 2);
    EXPECT_EQ(named(changed), (decltype(named(changed)){{"a", 1, 25}, {"b", 0, 30}, {"c", 0, 0}}));
    EXPECT_EQ(forgotten(changed), (decltype(forgotten(changed)){{"a", 0}}));
    s.answered(ErrorCode::none, 77);

    msg::FetchRequest after;
    s.fill(after, asks);
    EXPECT_EQ(after.session_epoch, 3);
    EXPECT_TRUE(after.topics.empty());
    EXPECT_TRUE(after.forgotten_topics_data.empty());
}

TEST(FollowerFetchSessionTest, ARoundTripCostsWhatChanged) {
    FollowerFetchSession s;
    for (std::int32_t p = 0; p < 100; ++p) s.want({"idle", p}, {5, 0, 1, 1024});
    msg::FetchRequest first;
    s.fill(first);
    EXPECT_EQ(named(first).size(), 100u);
    s.answered(ErrorCode::none, 9);

    s.want({"idle", 42}, {6, 0, 1, 1024});  // one append
    s.want({"idle", 7}, {5, 0, 1, 1024});   // told again, unchanged
    s.drop({"idle", 3});                    // being truncated
    msg::FetchRequest next;
    s.fill(next);
    EXPECT_EQ(named(next), (decltype(named(next)){{"idle", 42, 6}}));
    EXPECT_EQ(forgotten(next), (decltype(forgotten(next)){{"idle", 3}}));
    EXPECT_EQ(s.held_offset({"idle", 42}), 5);  // until the leader answers
    s.answered(ErrorCode::none, 9);
    EXPECT_EQ(s.held_offset({"idle", 42}), 6);
    EXPECT_EQ(s.held_offset({"idle", 3}), std::nullopt);

    msg::FetchRequest quiet;
    s.fill(quiet);
    EXPECT_TRUE(quiet.topics.empty());
    EXPECT_TRUE(quiet.forgotten_topics_data.empty());
}

TEST(FollowerFetchSessionTest, AnErrorOrALostAnswerStartsOverWithAFullFetch) {
    for (int how = 0; how < 4; ++how) {
        auto s = opened();
        msg::FetchRequest second;
        s.fill(second, three_partitions());
        if (how == 0) s.answered(ErrorCode::fetch_session_id_not_found, 0);
        if (how == 1) s.answered(ErrorCode::invalid_fetch_session_epoch, 77);
        if (how == 2) s.reset();
        if (how == 3) s.answered(ErrorCode::none, 78);  // not the session it asked for
        msg::FetchRequest again;
        s.fill(again, three_partitions());
        EXPECT_EQ(again.session_id, 0) << how;
        EXPECT_EQ(again.session_epoch, 0) << how;
        EXPECT_EQ(named(again).size(), 3u) << how;
        EXPECT_TRUE(again.forgotten_topics_data.empty()) << how;
    }
}

TEST(FollowerFetchSessionTest, ALeaderWithoutRoomForASessionGetsFullFetches) {
    Follower s;
    for (int i = 0; i < 3; ++i) {
        msg::FetchRequest r;
        s.fill(r, three_partitions());
        EXPECT_EQ(r.session_id, 0);
        EXPECT_EQ(r.session_epoch, 0);  // asks for one each time, as Kafka's followers do
        EXPECT_EQ(named(r).size(), 3u);
        s.answered(ErrorCode::none, 0);
    }
}

// ---- Against the leader's Fetch handler.

class FollowerSessionAgainstLeaderTest : public handlers::test::HandlerTest {
protected:
    // One round trip: what the follower's session names, the leader answers.
    msg::FetchResponse round_trip(const Asks& asks) {
        msg::FetchRequest r;
        r.max_wait_ms = 0;
        r.min_bytes = 1;
        r.max_bytes = 1 << 20;
        session_.fill(r, asks);
        auto response = call(r, 12);
        session_.answered(static_cast<ErrorCode>(response.error_code), response.session_id);
        return response;
    }
    static std::map<TopicPartition, std::size_t> record_bytes(const msg::FetchResponse& r) {
        std::map<TopicPartition, std::size_t> out;
        for (const auto& t : r.responses)
            for (const auto& p : t.partitions) out[{t.topic, p.partition_index}] = p.records ? p.records->size() : 0;
        return out;
    }

    Follower session_;
};

TEST_F(FollowerSessionAgainstLeaderTest, IdlePartitionsStayOutOfTheAnswersAndNewRecordsComeUnasked) {
    create_topic("idle", 50);
    create_topic("busy", 1);
    Asks asks;
    for (std::int32_t p = 0; p < 50; ++p) asks[{"idle", p}] = {0, 0, -1, 1 << 20};
    asks[{"busy", 0}] = {0, 0, -1, 1 << 20};

    auto first = round_trip(asks);
    EXPECT_EQ(first.error_code, 0);
    EXPECT_NE(first.session_id, 0);
    EXPECT_EQ(record_bytes(first).size(), 51u);  // a full fetch answers every partition

    auto quiet = round_trip(asks);
    EXPECT_EQ(quiet.error_code, 0);
    EXPECT_TRUE(record_bytes(quiet).empty());

    // New records at the offset the session holds: answered although this
    // fetch names no partition.
    produce("busy", 0, 3);
    auto news = round_trip(asks);
    auto got = record_bytes(news);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_GT(got.at({"busy", 0}), 0u);

    // The follower appended them and moves its offset: the next fetch names
    // only that partition, and nothing comes back.
    asks[{"busy", 0}].fetch_offset = 3;
    auto caught_up = round_trip(asks);
    EXPECT_EQ(caught_up.error_code, 0);
    EXPECT_TRUE(record_bytes(caught_up).empty());

    // A partition no longer followed is forgotten: records there stay unsent.
    asks.erase({"idle", 7});
    round_trip(asks);
    produce("idle", 7, 2);
    EXPECT_TRUE(record_bytes(round_trip(asks)).empty());
}

}  // namespace
}  // namespace weir::replication
