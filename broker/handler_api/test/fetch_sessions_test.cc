#include "broker/handler_api/fetch_sessions.h"

#include <boost/asio/steady_timer.hpp>

#include "broker/handlers/test/handler_fixture.h"

namespace weir::handlers::test {
namespace {

using namespace std::chrono_literals;
using TimePoint = std::chrono::steady_clock::time_point;

// A clock the test moves by hand.
struct FakeClock {
    std::shared_ptr<TimePoint> now = std::make_shared<TimePoint>(TimePoint{} + 1h);
    FetchSessionCache::Clock fn() const {
        return [n = now] { return *n; };
    }
    void advance(std::chrono::milliseconds d) const { *now += d; }
};

FetchSessionCache::Options options_with(const FakeClock& clock, std::size_t slots = 1000) {
    FetchSessionCache::Options o;
    o.max_slots = slots;
    o.clock = clock.fn();
    o.seed = 42;
    return o;
}

std::list<CachedPartition> partitions_of(const std::string& topic, int count) {
    std::list<CachedPartition> out;
    for (int p = 0; p < count; ++p) {
        CachedPartition c;
        c.key.topic = topic;
        c.key.partition = p;
        c.high_watermark = 10;
        c.log_start_offset = 0;
        out.push_back(c);
    }
    return out;
}

PartitionOutcome outcome(std::int64_t hw, bool records = false, std::int16_t error = 0) {
    PartitionOutcome o;
    o.has_records = records;
    o.error_code = error;
    o.high_watermark = hw;
    o.log_start_offset = 0;
    return o;
}

// ---- The cache and the session on their own.

TEST(FetchSessionCacheTest, CreateFindRemove) {
    FakeClock clock;
    FetchSessionCache cache(options_with(clock));
    auto s = cache.create(partitions_of("t", 2), false, false);
    ASSERT_TRUE(s);
    EXPECT_GT(s->id(), 0);
    EXPECT_EQ(s->epoch(), 1);
    EXPECT_EQ(s->size(), 2u);
    EXPECT_EQ(cache.find(s->id()), s);
    EXPECT_EQ(cache.find(s->id() + 1), nullptr);
    EXPECT_TRUE(cache.remove(s->id()));
    EXPECT_FALSE(cache.remove(s->id()));
    EXPECT_EQ(cache.find(s->id()), nullptr);
    EXPECT_EQ(cache.size(), 0u);
}

TEST(FetchSessionCacheTest, IdsAreDistinctAndNonZero) {
    FakeClock clock;
    FetchSessionCache cache(options_with(clock));
    std::set<std::int32_t> ids;
    for (int i = 0; i < 200; ++i) {
        auto s = cache.create(partitions_of("t", 1), false, false);
        ASSERT_TRUE(s);
        EXPECT_NE(s->id(), 0);
        ids.insert(s->id());
    }
    EXPECT_EQ(ids.size(), 200u);
}

TEST(FetchSessionCacheTest, IdleSessionsExpire) {
    FakeClock clock;
    FetchSessionCache cache(options_with(clock));
    auto a = cache.create(partitions_of("t", 1), false, false);
    auto b = cache.create(partitions_of("t", 1), false, false);
    clock.advance(100s);
    cache.touch(*b);
    clock.advance(30s);  // a idle 130 s, b idle 30 s
    EXPECT_EQ(cache.find(a->id()), nullptr);
    EXPECT_EQ(cache.find(b->id()), b);
    EXPECT_EQ(cache.size(), 1u);
}

TEST(FetchSessionCacheTest, FullCacheDeclinesThenEvictsIdle) {
    FakeClock clock;
    FetchSessionCache cache(options_with(clock, 2));
    auto a = cache.create(partitions_of("t", 1), false, false);
    auto b = cache.create(partitions_of("t", 1), false, false);
    ASSERT_TRUE(a && b);
    EXPECT_EQ(cache.create(partitions_of("t", 5), false, false), nullptr);  // both young
    clock.advance(60s);
    cache.touch(*b);
    clock.advance(61s);  // a idle past the interval, b not
    auto c = cache.create(partitions_of("t", 1), false, false);
    ASSERT_TRUE(c);
    EXPECT_EQ(cache.find(a->id()), nullptr);
    EXPECT_EQ(cache.find(b->id()), b);
    EXPECT_EQ(cache.size(), 2u);
}

TEST(FetchSessionCacheTest, OldSmallSessionGivesWayToLargerOne) {
    FakeClock clock;
    FetchSessionCache cache(options_with(clock, 2));
    auto small = cache.create(partitions_of("t", 1), false, false);
    auto large = cache.create(partitions_of("t", 3), false, false);
    clock.advance(121s);
    cache.touch(*small);
    cache.touch(*large);  // in use, but created more than the interval ago
    EXPECT_EQ(cache.create(partitions_of("t", 1), false, false), nullptr);  // equal size never displaces
    auto bigger = cache.create(partitions_of("t", 2), false, false);
    ASSERT_TRUE(bigger);
    EXPECT_EQ(cache.find(small->id()), nullptr);
    EXPECT_EQ(cache.find(large->id()), large);
}

TEST(FetchSessionCacheTest, FollowerEvictsYoungConsumerSession) {
    FakeClock clock;
    FetchSessionCache cache(options_with(clock, 1));
    auto consumer = cache.create(partitions_of("t", 4), false, false);
    EXPECT_EQ(cache.create(partitions_of("t", 4), false, false), nullptr);
    auto follower = cache.create(partitions_of("t", 1), false, true);
    ASSERT_TRUE(follower);
    EXPECT_EQ(cache.find(consumer->id()), nullptr);
    EXPECT_EQ(cache.create(partitions_of("t", 9), false, false), nullptr);  // a consumer cannot evict it
}

TEST(FetchSessionCacheTest, ZeroSlotsNeverCreates) {
    FakeClock clock;
    FetchSessionCache cache(options_with(clock, 0));
    EXPECT_EQ(cache.create(partitions_of("t", 1), false, false), nullptr);
}

TEST(FetchSessionCacheTest, TouchIgnoresRemovedSession) {
    FakeClock clock;
    FetchSessionCache cache(options_with(clock));
    auto s = cache.create(partitions_of("t", 1), false, false);
    cache.remove(s->id());
    cache.touch(*s);
    EXPECT_EQ(cache.size(), 0u);
    EXPECT_EQ(cache.find(s->id()), nullptr);
}

TEST(FetchSessionTest, EpochAdvancesAndWrapsToOne) {
    FetchSession s(5, false, false, TimePoint{});
    EXPECT_EQ(s.epoch(), 1);
    s.advance_epoch();
    EXPECT_EQ(s.epoch(), 2);
    for (int i = 0; i < 3; ++i) s.advance_epoch();
    EXPECT_EQ(s.epoch(), 5);
}

TEST(FetchSessionTest, UpsertUpdatesRequestSideOnly) {
    FetchSession s(1, false, false, TimePoint{});
    CachedPartition c;
    c.key = {"t", {}, 0};
    c.fetch_offset = 3;
    c.max_bytes = 100;
    s.upsert(c);
    EXPECT_TRUE(s.record_response(c.key, outcome(10)));
    c.fetch_offset = 7;
    c.max_bytes = 200;
    c.high_watermark = 99;  // ignored: the response side is the broker's
    s.upsert(c);
    auto* cached = s.find(c.key);
    ASSERT_NE(cached, nullptr);
    EXPECT_EQ(cached->fetch_offset, 7);
    EXPECT_EQ(cached->max_bytes, 200);
    EXPECT_EQ(cached->high_watermark, 10);
    EXPECT_EQ(s.size(), 1u);
}

TEST(FetchSessionTest, FollowerPositionsRefreshOncePerInterval) {
    FetchSession s(1, false, true, TimePoint{});
    const TimePoint t0 = TimePoint{} + 1h;
    EXPECT_TRUE(s.refresh_due(t0));
    EXPECT_FALSE(s.refresh_due(t0 + 499ms));
    EXPECT_TRUE(s.refresh_due(t0 + 500ms));
    EXPECT_FALSE(s.refresh_due(t0 + 900ms));
    EXPECT_TRUE(s.refresh_due(t0 + 1100ms));
}

TEST(FetchSessionTest, APartitionSentAgainIsReadAgain) {
    FetchSession s(1, false, false, TimePoint{});
    CachedPartition c;
    c.key = {"t", {}, 0};
    s.upsert(c);
    const auto* cached = s.find(c.key);
    ASSERT_TRUE(cached->watch);
    EXPECT_FALSE(cached->watch->quiet);  // never read
    cached->watch->quiet = true;
    c.fetch_offset = 4;
    s.upsert(c);
    EXPECT_FALSE(cached->watch->quiet);
}

TEST(FetchSessionTest, RecordResponseSendsOnlyNews) {
    FetchSession s(1, false, false, TimePoint{});
    SessionPartitionKey k{"t", {}, 0};
    s.upsert(CachedPartition{k});
    EXPECT_TRUE(s.record_response(k, outcome(10)));        // new: never told
    EXPECT_FALSE(s.record_response(k, outcome(10)));       // nothing changed
    EXPECT_TRUE(s.record_response(k, outcome(10, true)));  // records
    EXPECT_TRUE(s.record_response(k, outcome(11)));        // high watermark moved
    auto lso = outcome(11);
    lso.last_stable_offset = 11;
    EXPECT_TRUE(s.record_response(k, lso));
    lso.log_start_offset = 4;
    EXPECT_TRUE(s.record_response(k, lso));
    EXPECT_FALSE(s.record_response(k, lso));
    EXPECT_TRUE(s.record_response(k, outcome(-1, false, 1)));  // an error
    auto after = outcome(11);
    after.last_stable_offset = 11;
    after.log_start_offset = 4;
    EXPECT_TRUE(s.record_response(k, after));                                      // error cleared: sent again
    EXPECT_FALSE(s.record_response(SessionPartitionKey{"t", {}, 9}, outcome(1)));  // not in the session
}

TEST(FetchSessionTest, PartitionsWithRecordsMoveToTheEnd) {
    FetchSession s(1, false, false, TimePoint{});
    for (int p = 0; p < 3; ++p) s.upsert(CachedPartition{SessionPartitionKey{"t", {}, p}});
    s.record_response({"t", {}, 0}, outcome(5, true));
    std::vector<std::int32_t> order;
    for (const auto& c : s.partitions()) order.push_back(c.key.partition);
    EXPECT_EQ(order, (std::vector<std::int32_t>{1, 2, 0}));
    EXPECT_TRUE(s.forget({"t", {}, 2}));
    EXPECT_FALSE(s.forget({"t", {}, 2}));
    EXPECT_EQ(s.size(), 2u);
}

// ---- Through the Fetch handler.

using FetchReq = msg::FetchRequest;
using Response = msg::FetchResponse;

class FetchSessionHandlerTest : public HandlerTest {
protected:
    void SetUp() override {
        create_topic("t", 2);
        produce("t", 0, 3);  // t-0: offsets 0-2; t-1 empty
    }

    wire::Uuid topic_id(const std::string& name) { return store_->topic(name)->id; }

    // A fetch of `partitions` (partition, fetch offset) of topic t.
    FetchReq request(std::int16_t version, std::int32_t session_id, std::int32_t epoch,
                     std::vector<std::pair<std::int32_t, std::int64_t>> partitions, std::int32_t max_wait_ms = 0) {
        FetchReq r;
        r.replica_id = -1;
        r.max_wait_ms = max_wait_ms;
        r.min_bytes = 1;
        r.max_bytes = 1 << 20;
        r.session_id = session_id;
        r.session_epoch = epoch;
        if (!partitions.empty()) {
            auto& t = r.topics.emplace_back();
            t.topic = "t";
            if (version >= 13) t.topic_id = topic_id("t");
            for (auto [p, offset] : partitions) {
                auto& in = t.partitions.emplace_back();
                in.partition = p;
                in.fetch_offset = offset;
                in.partition_max_bytes = 1 << 20;
            }
        }
        return r;
    }

    void forget(FetchReq& r, std::int16_t version, std::vector<std::int32_t> partitions) {
        auto& f = r.forgotten_topics_data.emplace_back();
        if (version >= 13)
            f.topic_id = topic_id("t");
        else
            f.topic = "t";
        f.partitions = std::move(partitions);
    }

    // (partition, record bytes, high watermark) of every partition answered.
    struct Answer {
        std::int32_t partition;
        std::size_t bytes;
        std::int64_t high_watermark;
        std::int16_t error;
        bool operator==(const Answer&) const = default;
    };
    static std::vector<Answer> answers(const Response& r) {
        std::vector<Answer> out;
        for (const auto& t : r.responses)
            for (const auto& p : t.partitions)
                out.push_back({p.partition_index, p.records ? p.records->size() : 0, p.high_watermark, p.error_code});
        return out;
    }

    // Opens a session over both partitions of t; returns its id.
    std::int32_t open(std::int16_t version = 12) {
        auto r = call(request(version, 0, 0, {{0, 0}, {1, 0}}), version);
        EXPECT_EQ(r.error_code, 0);
        EXPECT_NE(r.session_id, 0);
        EXPECT_EQ(answers(r).size(), 2u);
        return r.session_id;
    }

    void use_clock(const FakeClock& clock, std::size_t slots = 1000) {
        start();
        context_->fetch_sessions = FetchSessionCache(options_with(clock, slots));
    }
};

TEST_F(FetchSessionHandlerTest, SessionlessFetchUnchanged) {
    for (std::int16_t v : {4, 7, 11, 12, 13, 16}) {
        auto r = call(request(v, 0, -1, {{0, 0}, {1, 0}}), v);
        EXPECT_EQ(r.error_code, 0) << v;
        EXPECT_EQ(r.session_id, 0) << v;
        auto a = answers(r);
        ASSERT_EQ(a.size(), 2u) << v;
        EXPECT_GT(a[0].bytes, 0u);
        EXPECT_EQ(a[0].high_watermark, 3);
        EXPECT_EQ(a[1].bytes, 0u);
        EXPECT_EQ(a[1].high_watermark, 0);
        if (v >= 13)
            EXPECT_EQ(r.responses[0].topic_id, topic_id("t"));
        else
            EXPECT_EQ(r.responses[0].topic, "t");
    }
    EXPECT_EQ(context_->fetch_sessions.size(), 0u);
}

TEST_F(FetchSessionHandlerTest, InitialEpochCreatesSession) {
    auto r = call(request(12, 0, 0, {{0, 0}, {1, 0}}), 12);
    EXPECT_EQ(r.error_code, 0);
    EXPECT_NE(r.session_id, 0);
    EXPECT_EQ(answers(r).size(), 2u);
    EXPECT_GT(answers(r)[0].bytes, 0u);
    auto session = context_->fetch_sessions.find(r.session_id);
    ASSERT_TRUE(session);
    EXPECT_EQ(session->size(), 2u);
    EXPECT_EQ(session->epoch(), 1);
}

TEST_F(FetchSessionHandlerTest, IncrementalReturnsOnlyChangedPartitions) {
    auto id = open();
    // The client consumed t-0 up to 3 and says so; nothing is new anywhere.
    auto quiet = call(request(12, id, 1, {{0, 3}}, 20), 12);
    EXPECT_EQ(quiet.error_code, 0);
    EXPECT_EQ(quiet.session_id, id);
    EXPECT_TRUE(answers(quiet).empty());

    produce("t", 1, 2);
    auto r = call(request(12, id, 2, {}), 12);  // nothing to update
    EXPECT_EQ(r.session_id, id);
    auto a = answers(r);
    ASSERT_EQ(a.size(), 1u);
    EXPECT_EQ(a[0].partition, 1);
    EXPECT_GT(a[0].bytes, 0u);
    EXPECT_EQ(a[0].high_watermark, 2);
    ASSERT_EQ(r.responses.size(), 1u);
    EXPECT_EQ(r.responses[0].topic, "t");

    // The session keeps the old fetch offset until the client sends a new one,
    // so t-1 comes back again; once sent, it stays quiet.
    auto again = call(request(12, id, 3, {}), 12);
    ASSERT_EQ(answers(again).size(), 1u);
    EXPECT_EQ(answers(again)[0].partition, 1);
    auto settled = call(request(12, id, 4, {{1, 2}}, 10), 12);
    EXPECT_TRUE(answers(settled).empty());
}

TEST_F(FetchSessionHandlerTest, QuietPartitionsAreReadAgainOnceTheyChange) {
    auto id = open();
    call(request(12, id, 1, {{0, 3}}), 12);  // the first incremental fetch reads every partition
    auto session = context_->fetch_sessions.find(id);
    ASSERT_TRUE(session);
    const auto* t0 = session->find({"t", {}, 0});
    const auto* t1 = session->find({"t", {}, 1});
    EXPECT_TRUE(t0->watch->quiet);
    EXPECT_TRUE(t1->watch->quiet);
    EXPECT_FALSE(t1->watch->changed);

    produce("t", 1, 2);
    EXPECT_TRUE(t1->watch->changed);
    EXPECT_FALSE(t0->watch->changed);
    // t-1 is read because it changed; t-0, quiet and unchanged, is not.
    auto r = call(request(12, id, 2, {}), 12);
    auto a = answers(r);
    ASSERT_EQ(a.size(), 1u);
    EXPECT_EQ(a[0].partition, 1);
    EXPECT_GT(a[0].bytes, 0u);
    EXPECT_FALSE(t1->watch->changed);
    EXPECT_FALSE(t1->watch->quiet);  // the session's offset is still 0: records wait there
    EXPECT_TRUE(t0->watch->quiet);
}

TEST_F(FetchSessionHandlerTest, EmptyIncrementalAnswerAfterMaxWait) {
    auto id = open();
    call(request(12, id, 1, {{0, 3}}, 0), 12);
    const auto t0 = std::chrono::steady_clock::now();
    auto r = call(request(12, id, 2, {}, 150), 12);
    const auto waited = std::chrono::steady_clock::now() - t0;
    EXPECT_EQ(r.error_code, 0);
    EXPECT_EQ(r.session_id, id);
    EXPECT_TRUE(r.responses.empty());
    EXPECT_GE(waited, 140ms);
    EXPECT_LT(waited, 5s);
}

TEST_F(FetchSessionHandlerTest, IncrementalLongPollWakesOnAppendToAnySessionPartition) {
    auto id = open();
    call(request(12, id, 1, {{0, 3}}, 0), 12);
    boost::asio::steady_timer timer(io_, 50ms);
    timer.async_wait([this](boost::system::error_code) { produce("t", 1, 1); });
    const auto t0 = std::chrono::steady_clock::now();
    auto r = call(request(12, id, 2, {}, 10'000), 12);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
    auto a = answers(r);
    ASSERT_EQ(a.size(), 1u);
    EXPECT_EQ(a[0].partition, 1);
    EXPECT_GT(a[0].bytes, 0u);
}

TEST_F(FetchSessionHandlerTest, EpochMovedDuringLongPollIsRejected) {
    auto id = open();
    call(request(12, id, 1, {{0, 3}}, 0), 12);
    // While the epoch-2 fetch waits, a pipelined epoch-3 fetch is served; an
    // append then wakes the first, which must not answer as if nothing happened.
    handlers::ConnectionInfo connection{2, "127.0.0.1:50001", "PLAINTEXT"};
    std::optional<Response> duplicate;
    boost::asio::steady_timer timer(io_, 50ms);
    timer.async_wait([&](boost::system::error_code) {
        protocol::RequestHeader header;
        header.api_key = FetchReq::api_key;
        header.api_version = 12;
        boost::asio::co_spawn(
            io_,
            [&, header]() -> boost::asio::awaitable<void> {
                RequestContext ctx{header, connection, std::chrono::steady_clock::now()};
                duplicate = co_await handle(*context_, ctx, request(12, id, 3, {}, 0));
                produce("t", 1, 1);
            },
            [](std::exception_ptr e) {
                if (e) std::rethrow_exception(e);
            });
    });
    auto r = call(request(12, id, 2, {}, 10'000), 12);
    ASSERT_TRUE(duplicate);
    EXPECT_EQ(duplicate->error_code, 0);
    EXPECT_EQ(r.error_code, static_cast<std::int16_t>(ErrorCode::invalid_fetch_session_epoch));
    EXPECT_EQ(r.session_id, id);
    EXPECT_TRUE(r.responses.empty());
    EXPECT_EQ(context_->fetch_sessions.find(id)->epoch(), 4);
}

TEST_F(FetchSessionHandlerTest, NewPartitionJoinsAndForgottenPartitionLeaves) {
    create_topic("u", 1);
    produce("u", 0, 1);
    auto id = open();
    // Add u-0 (sent in full: the session never told its offsets) and forget t-0.
    auto req = request(12, id, 1, {});
    auto& u = req.topics.emplace_back();
    u.topic = "u";
    u.partitions.push_back({});
    u.partitions.back().partition_max_bytes = 1 << 20;
    forget(req, 12, {0});
    auto r = call(req, 12);
    ASSERT_EQ(answers(r).size(), 1u);
    EXPECT_EQ(r.responses[0].topic, "u");
    EXPECT_GT(answers(r)[0].bytes, 0u);
    EXPECT_EQ(context_->fetch_sessions.find(id)->size(), 2u);

    produce("t", 0, 2);  // t-0 is forgotten: its news stays unsent
    auto req2 = request(12, id, 2, {});
    auto& u2 = req2.topics.emplace_back();
    u2.topic = "u";
    u2.partitions.push_back({});
    u2.partitions.back().fetch_offset = 1;
    u2.partitions.back().partition_max_bytes = 1 << 20;
    auto r2 = call(req2, 12);
    EXPECT_TRUE(answers(r2).empty());
}

TEST_F(FetchSessionHandlerTest, ForgetByTopicIdFromV13) {
    auto id = open(13);
    auto req = request(13, id, 1, {{0, 3}});
    forget(req, 13, {1});
    auto r = call(req, 13);
    EXPECT_EQ(r.error_code, 0);
    EXPECT_EQ(context_->fetch_sessions.find(id)->size(), 1u);
    produce("t", 1, 1);
    produce("t", 0, 1);
    auto r2 = call(request(13, id, 2, {}), 13);
    auto a = answers(r2);
    ASSERT_EQ(a.size(), 1u);
    EXPECT_EQ(a[0].partition, 0);
    EXPECT_EQ(r2.responses[0].topic_id, topic_id("t"));
}

TEST_F(FetchSessionHandlerTest, ForgettingEverythingEndsTheSession) {
    auto id = open();
    auto req = request(12, id, 1, {});
    forget(req, 12, {0, 1});
    auto r = call(req, 12);
    EXPECT_EQ(r.error_code, 0);
    EXPECT_EQ(r.session_id, 0);
    EXPECT_EQ(context_->fetch_sessions.find(id), nullptr);
}

TEST_F(FetchSessionHandlerTest, EpochMismatchIsRejected) {
    auto id = open();
    auto r = call(request(12, id, 5, {{0, 3}}), 12);
    EXPECT_EQ(r.error_code, static_cast<std::int16_t>(ErrorCode::invalid_fetch_session_epoch));
    EXPECT_EQ(r.session_id, 0);
    EXPECT_TRUE(r.responses.empty());
    // The session is untouched: the right epoch still works.
    auto ok = call(request(12, id, 1, {{0, 3}}), 12);
    EXPECT_EQ(ok.error_code, 0);
    EXPECT_EQ(ok.session_id, id);
}

TEST_F(FetchSessionHandlerTest, UnknownSessionIsRejected) {
    for (std::int16_t v : {7, 12, 16}) {
        auto r = call(request(v, 12345, 1, {{0, 0}}), v);
        EXPECT_EQ(r.error_code, static_cast<std::int16_t>(ErrorCode::fetch_session_id_not_found)) << v;
        EXPECT_EQ(r.session_id, 0);
        EXPECT_TRUE(r.responses.empty());
    }
}

TEST_F(FetchSessionHandlerTest, TopicIdUseMustNotChange) {
    auto id = open(13);
    auto r = call(request(12, id, 1, {}), 12);
    EXPECT_EQ(r.error_code, static_cast<std::int16_t>(ErrorCode::fetch_session_topic_id_error));
}

TEST_F(FetchSessionHandlerTest, FinalEpochClosesAndServesSessionless) {
    auto id = open();
    auto r = call(request(12, id, -1, {{0, 0}, {1, 0}}), 12);
    EXPECT_EQ(r.error_code, 0);
    EXPECT_EQ(r.session_id, 0);
    EXPECT_EQ(answers(r).size(), 2u);
    EXPECT_EQ(context_->fetch_sessions.size(), 0u);
    auto gone = call(request(12, id, 1, {}), 12);
    EXPECT_EQ(gone.error_code, static_cast<std::int16_t>(ErrorCode::fetch_session_id_not_found));
}

TEST_F(FetchSessionHandlerTest, InitialEpochWithIdReplacesSession) {
    auto id = open();
    auto r = call(request(12, id, 0, {{0, 0}}), 12);
    EXPECT_NE(r.session_id, 0);
    EXPECT_NE(r.session_id, id);
    EXPECT_EQ(context_->fetch_sessions.size(), 1u);
    EXPECT_EQ(context_->fetch_sessions.find(id), nullptr);
    EXPECT_EQ(context_->fetch_sessions.find(r.session_id)->size(), 1u);
}

TEST_F(FetchSessionHandlerTest, IdleSessionExpires) {
    FakeClock clock;
    use_clock(clock);
    auto id = open();
    clock.advance(100s);
    EXPECT_EQ(call(request(12, id, 1, {{0, 3}}), 12).error_code, 0);  // use refreshes it
    clock.advance(100s);
    EXPECT_EQ(call(request(12, id, 2, {}), 12).error_code, 0);
    clock.advance(121s);
    auto r = call(request(12, id, 3, {}), 12);
    EXPECT_EQ(r.error_code, static_cast<std::int16_t>(ErrorCode::fetch_session_id_not_found));
    EXPECT_EQ(context_->fetch_sessions.size(), 0u);
}

TEST_F(FetchSessionHandlerTest, FullCacheServesSessionless) {
    FakeClock clock;
    use_clock(clock, 1);
    auto first = open();
    auto r = call(request(12, 0, 0, {{0, 0}, {1, 0}}), 12);
    EXPECT_EQ(r.error_code, 0);
    EXPECT_EQ(r.session_id, 0);
    EXPECT_EQ(answers(r).size(), 2u);
    EXPECT_GT(answers(r)[0].bytes, 0u);
    EXPECT_TRUE(context_->fetch_sessions.find(first));
    // Once the first session is idle past the interval, its slot is reused.
    clock.advance(121s);
    auto later = call(request(12, 0, 0, {{0, 0}}), 12);
    EXPECT_NE(later.session_id, 0);
    EXPECT_EQ(context_->fetch_sessions.size(), 1u);
}

TEST_F(FetchSessionHandlerTest, ErrorPartitionsAlwaysAnswered) {
    auto r0 = call(request(12, 0, 0, {{0, 0}, {5, 0}}), 12);  // t-5 does not exist
    auto id = r0.session_id;
    ASSERT_NE(id, 0);
    auto r = call(request(12, id, 1, {{0, 3}}), 12);
    auto a = answers(r);
    ASSERT_EQ(a.size(), 1u);
    EXPECT_EQ(a[0].partition, 5);
    EXPECT_EQ(a[0].error, static_cast<std::int16_t>(ErrorCode::unknown_topic_or_partition));
}

}  // namespace
}  // namespace weir::handlers::test
