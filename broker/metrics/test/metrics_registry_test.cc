#include "broker/metrics/metrics_registry.h"

#include <gtest/gtest.h>

namespace weir::metrics {
namespace {

using namespace std::chrono_literals;

TEST(MetricsRegistryTest, RequestsAndDurationsByApiKey) {
    MetricsRegistry m;
    m.record_request(1, 300us);
    m.record_request(1, 1ms);  // a bound belongs to its bucket (le)
    m.record_request(1, 20s);
    ASSERT_GE(m.apis().size(), 2u);
    const auto& fetch = m.apis()[1];
    EXPECT_EQ(fetch.requests, 3u);
    EXPECT_EQ(fetch.duration.count, 3u);
    EXPECT_EQ(fetch.duration.counts[0], 1u);                        // <= 0.5 ms
    EXPECT_EQ(fetch.duration.counts[1], 1u);                        // <= 1 ms
    EXPECT_EQ(fetch.duration.counts[kDurationBuckets.size()], 1u);  // +Inf
    EXPECT_NEAR(fetch.duration.sum, 20.0013, 1e-9);
    EXPECT_EQ(m.apis()[0].requests, 0u);
}

TEST(MetricsRegistryTest, ErrorsAccumulatePerCode) {
    MetricsRegistry m;
    m.record_error(0, ErrorCode::not_leader_or_follower);
    m.record_error(0, ErrorCode::not_leader_or_follower, 2);
    m.record_error(0, ErrorCode::message_too_large);
    const auto& errors = m.apis()[0].errors;
    ASSERT_EQ(errors.size(), 2u);
    EXPECT_EQ(errors[0], std::make_pair(ErrorCode::not_leader_or_follower, std::uint64_t{3}));
    EXPECT_EQ(errors[1], std::make_pair(ErrorCode::message_too_large, std::uint64_t{1}));
}

TEST(MetricsRegistryTest, TopicTrafficIsCreatedOnUseAndForgotten) {
    MetricsRegistry m;
    m.topic("a").bytes_in += 10;
    m.topic("a").bytes_in += 5;
    m.topic("b").bytes_out += 1;
    EXPECT_EQ(m.topics().at("a").bytes_in, 15u);
    m.forget_topic("a");
    EXPECT_EQ(m.topics().count("a"), 0u);
    EXPECT_EQ(m.topics().size(), 1u);
}

}  // namespace
}  // namespace weir::metrics
