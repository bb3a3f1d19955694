// Long polling: a fetch on an empty partition is held by the broker (no busy
// loop of empty responses) and answered as soon as a message is appended.
#include <gtest/gtest.h>

#include <atomic>
#include <boost/json.hpp>
#include <iostream>
#include <mutex>

#include "harness/admin.h"
#include "harness/broker_process.h"
#include "harness/kafka_client.h"

namespace weir::compat {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// Keeps the total number of Fetch requests from librdkafka's statistics.
class FetchCounter : public RdKafka::EventCb {
public:
    void event_cb(RdKafka::Event& event) override {
        if (event.type() != RdKafka::Event::EVENT_STATS) return;
        try {
            const auto doc = boost::json::parse(event.str());
            std::int64_t total = 0;
            for (const auto& [name, broker] : doc.at("brokers").as_object()) {
                const auto* req = broker.as_object().if_contains("req");
                if (!req) continue;
                if (const auto* f = req->as_object().if_contains("Fetch")) total += f->to_number<std::int64_t>();
            }
            fetches_ = total;
            ++samples_;
        } catch (const std::exception&) {
            // An unexpected stats layout only disables the busy-loop check.
        }
    }
    std::int64_t fetches() const { return fetches_; }
    int samples() const { return samples_; }

private:
    std::atomic<std::int64_t> fetches_{0};
    std::atomic<int> samples_{0};
};

class LongPoll : public ::testing::TestWithParam<int> {};

TEST_P(LongPoll, FetchAnsweredOnAppend) {
    const int max_wait_ms = GetParam();
    BrokerProcess broker;
    broker.start();
    const std::string topic = "longpoll";
    {
        Admin admin(broker.bootstrap());
        const auto r = admin.create_topic(topic, 1);
        ASSERT_EQ(r.err, RD_KAFKA_RESP_ERR_NO_ERROR) << r.describe();
    }

    FetchCounter counter;
    Consumer consumer(broker.bootstrap(),
                      {{"fetch.wait.max.ms", std::to_string(max_wait_ms)}, {"statistics.interval.ms", "250"}},
                      &counter);
    consumer.assign({{topic, 0, 0}});
    Producer producer(broker.bootstrap(), {{"linger.ms", "0"}});
    ASSERT_EQ(topic_metadata(producer.handle(), topic, 5s).err, RdKafka::ERR_NO_ERROR);  // connect before timing

    // Sit on the empty partition for a while, counting the fetches it costs.
    ASSERT_FALSE(consumer.consume_one(750ms).has_value());
    const auto fetches_before = counter.fetches();
    const auto idle_start = Clock::now();
    ASSERT_FALSE(consumer.consume_one(2500ms).has_value());
    const auto idle_ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - idle_start).count();
    const auto idle_fetches = counter.fetches() - fetches_before;
    RecordProperty("idle_fetches", std::to_string(idle_fetches));
    std::cout << "[compat] fetch.wait.max.ms=" << max_wait_ms << ": " << idle_fetches << " Fetch requests in "
              << idle_ms << " ms on an empty partition\n";
    if (counter.samples() > 0) {
        // A broker that answers empty fetches at once makes the client spin (hundreds per second).
        EXPECT_LE(idle_fetches, 2 * idle_ms / max_wait_ms + 4) << "broker does not hold empty fetches";
    }

    const auto sent_at = Clock::now();
    producer.send({topic, 0, "late-key", "late-value", {}, 0});
    const auto got = consumer.consume_one(10s);
    const auto latency_ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - sent_at).count();
    ASSERT_TRUE(got.has_value()) << "message never arrived";
    EXPECT_EQ(got->value, "late-value");
    EXPECT_EQ(got->offset, 0);
    RecordProperty("latency_ms", std::to_string(latency_ms));
    std::cout << "[compat] fetch.wait.max.ms=" << max_wait_ms << ": produce-to-consume latency " << latency_ms
              << " ms\n";
    // Generous: must not depend on the max wait running out when that is long.
    EXPECT_LT(latency_ms, 2500) << "fetch was not completed on append";
    ASSERT_TRUE(producer.flush(5s));
    EXPECT_EQ(producer.deliveries().at(0).err, RdKafka::ERR_NO_ERROR);
}

INSTANTIATE_TEST_SUITE_P(MaxWait, LongPoll, ::testing::Values(500, 5000), [](const ::testing::TestParamInfo<int>& p) {
    return "max_wait_" + std::to_string(p.param) + "ms";
});

}  // namespace
}  // namespace weir::compat
