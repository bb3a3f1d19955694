#include "broker/admin/metrics_view.h"

#include <gmock/gmock.h>

#include <set>
#include <sstream>

#include "broker/admin/test/admin_fixture.h"

namespace weir::admin::test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class MetricsViewTest : public AdminTest {};

TEST_F(MetricsViewTest, ExposesCountersFromTheRegistry) {
    metrics_.record_request(0, std::chrono::microseconds(700));  // Produce
    metrics_.record_request(0, std::chrono::milliseconds(30));
    metrics_.record_request(1, std::chrono::milliseconds(2));  // Fetch
    metrics_.record_error(0, ErrorCode::not_leader_or_follower, 2);
    metrics_.topic("t").bytes_in = 123;
    metrics_.topic("t").messages_in = 4;
    metrics_.topic("t").bytes_out = 77;
    admin().open_connections = [] { return std::size_t{5}; };
    auto r = get("/metrics");
    ASSERT_EQ(r.status, 200u);
    EXPECT_EQ(r.content_type, "text/plain; version=0.0.4; charset=utf-8");
    const auto& text = r.body;
    EXPECT_THAT(text, HasSubstr("# TYPE weir_requests_total counter\n"));
    EXPECT_THAT(text, HasSubstr("weir_requests_total{api=\"Produce\"} 2\n"));
    EXPECT_THAT(text, HasSubstr("weir_requests_total{api=\"Fetch\"} 1\n"));
    EXPECT_THAT(text, Not(HasSubstr("api=\"ListOffsets\"")));
    EXPECT_THAT(text, HasSubstr("weir_request_errors_total{api=\"Produce\",error=\"NOT_LEADER_OR_FOLLOWER\"} 2\n"));
    EXPECT_THAT(text, HasSubstr("# TYPE weir_request_duration_seconds histogram\n"));
    // Cumulative buckets: 0.7 ms is within 1 ms, 30 ms within 50 ms.
    EXPECT_THAT(text, HasSubstr("weir_request_duration_seconds_bucket{api=\"Produce\",le=\"0.0005\"} 0\n"));
    EXPECT_THAT(text, HasSubstr("weir_request_duration_seconds_bucket{api=\"Produce\",le=\"0.001\"} 1\n"));
    EXPECT_THAT(text, HasSubstr("weir_request_duration_seconds_bucket{api=\"Produce\",le=\"0.025\"} 1\n"));
    EXPECT_THAT(text, HasSubstr("weir_request_duration_seconds_bucket{api=\"Produce\",le=\"0.05\"} 2\n"));
    EXPECT_THAT(text, HasSubstr("weir_request_duration_seconds_bucket{api=\"Produce\",le=\"+Inf\"} 2\n"));
    EXPECT_THAT(text, HasSubstr("weir_request_duration_seconds_count{api=\"Produce\"} 2\n"));
    EXPECT_THAT(text, HasSubstr("weir_request_duration_seconds_sum{api=\"Produce\"} 0.030"));
    EXPECT_THAT(text, HasSubstr("weir_bytes_in_total{topic=\"t\"} 123\n"));
    EXPECT_THAT(text, HasSubstr("weir_bytes_out_total{topic=\"t\"} 77\n"));
    EXPECT_THAT(text, HasSubstr("weir_messages_in_total{topic=\"t\"} 4\n"));
    EXPECT_THAT(text, HasSubstr("weir_connections 5\n"));
    // Single node: no replication families.
    EXPECT_THAT(text, Not(HasSubstr("weir_under_replicated_partitions")));
}

TEST_F(MetricsViewTest, PartitionGaugesForEveryHostedPartition) {
    create_topic("t", 2);
    produce("t", 0, 3);
    produce("t", 1, 10);
    auto text = get("/metrics").body;
    EXPECT_THAT(text, HasSubstr("weir_partition_log_end_offset{topic=\"t\",partition=\"0\"} 3\n"));
    EXPECT_THAT(text, HasSubstr("weir_partition_log_end_offset{topic=\"t\",partition=\"1\"} 10\n"));
    EXPECT_THAT(text, HasSubstr("weir_partition_log_start_offset{topic=\"t\",partition=\"1\"} 0\n"));
    const auto size = core_->logs().get({"t", 1})->size_bytes();
    EXPECT_GT(size, 0u);
    EXPECT_THAT(text,
                HasSubstr("weir_partition_size_bytes{topic=\"t\",partition=\"1\"} " + std::to_string(size) + "\n"));
}

TEST_F(MetricsViewTest, YieldingBetweenBatchesGivesTheSameText) {
    create_topic("many", 7);
    for (int p = 0; p < 7; ++p) produce("many", p, p + 1);
    auto whole = run(render_metrics(admin(), 1000));
    auto in_steps = run(render_metrics(admin(), 2));
    EXPECT_EQ(whole, in_steps);
    EXPECT_THAT(in_steps, HasSubstr("weir_partition_log_end_offset{topic=\"many\",partition=\"6\"} 7\n"));
}

TEST_F(MetricsViewTest, EveryFamilyIsDeclaredOnceAndSamplesFollowTheirFamily) {
    create_topic("t", 1);
    metrics_.record_request(3, std::chrono::milliseconds(1));
    metrics_.record_error(3, ErrorCode::unknown_topic_or_partition);
    auto text = get("/metrics").body;
    std::set<std::string> declared;
    std::string current;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (line.starts_with("# TYPE ")) {
            current = line.substr(7, line.find(' ', 7) - 7);
            EXPECT_TRUE(declared.insert(current).second) << current;
            continue;
        }
        if (line.starts_with("#")) continue;
        const auto name = line.substr(0, line.find_first_of("{ "));
        EXPECT_TRUE(name == current || name.starts_with(current + "_")) << line;
    }
    EXPECT_FALSE(declared.contains("weir_consumer_group_lag"));  // no coordinator in this fixture
    EXPECT_TRUE(declared.contains("weir_partition_size_bytes"));
}

}  // namespace
}  // namespace weir::admin::test
