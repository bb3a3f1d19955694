#include "broker/dispatch/request_accounting.h"

#include <gtest/gtest.h>

#include "broker/handlers/test/handler_fixture.h"

namespace weir::dispatch {
namespace {

using handlers::test::make_batch;

class RequestAccountingTest : public handlers::test::HandlerTest {
protected:
    metrics::MetricsRegistry metrics_;
};

msg::ProduceRequest produce_request() {
    msg::ProduceRequest r;
    r.topic_data.resize(2);
    r.topic_data[0].name = "b";
    r.topic_data[0].partition_data.resize(2);
    r.topic_data[0].partition_data[0].index = 0;
    r.topic_data[0].partition_data[0].records = wire::RecordsData(make_batch(3));
    r.topic_data[0].partition_data[1].index = 1;
    r.topic_data[0].partition_data[1].records = wire::RecordsData(make_batch(5));
    r.topic_data[1].name = "a";
    r.topic_data[1].partition_data.resize(1);
    r.topic_data[1].partition_data[0].index = 0;
    r.topic_data[1].partition_data[0].records = wire::RecordsData(make_batch(2));
    return r;
}

msg::ProduceResponse produce_response(std::int16_t b1_error) {
    msg::ProduceResponse r;
    r.responses.resize(2);
    r.responses[0].name = "a";
    r.responses[0].partition_responses.resize(1);
    r.responses[1].name = "b";
    r.responses[1].partition_responses.resize(2);
    r.responses[1].partition_responses[0].index = 0;
    r.responses[1].partition_responses[1].index = 1;
    r.responses[1].partition_responses[1].error_code = b1_error;
    return r;
}

TEST_F(RequestAccountingTest, ProduceCountsBytesAndRecordsOfAppendedPartitionsOnly) {
    start();
    const auto request = produce_request();
    const auto facts = facts_of(request);
    ASSERT_EQ(facts.produced.size(), 3u);
    EXPECT_EQ(facts.produced[0].topic, "a");  // sorted for lookup
    EXPECT_EQ(facts.produced[2].records, 5u);

    count_traffic(metrics_, *context_, facts, produce_response(to_int(ErrorCode::not_leader_or_follower)));
    const auto batch_bytes = [](int n) { return static_cast<std::uint64_t>(make_batch(n).size()); };
    EXPECT_EQ(metrics_.topics().at("a").bytes_in, batch_bytes(2));
    EXPECT_EQ(metrics_.topics().at("a").messages_in, 2u);
    // b-1 failed: only b-0's batch counts.
    EXPECT_EQ(metrics_.topics().at("b").bytes_in, batch_bytes(3));
    EXPECT_EQ(metrics_.topics().at("b").messages_in, 3u);
}

TEST_F(RequestAccountingTest, ErrorsAreCountedAtEveryLevel) {
    count_errors(metrics_, 0, produce_response(to_int(ErrorCode::not_leader_or_follower)));
    msg::FetchResponse fetch;
    fetch.error_code = to_int(ErrorCode::fetch_session_id_not_found);
    fetch.responses.resize(1);
    fetch.responses[0].partitions.resize(3);
    fetch.responses[0].partitions[0].error_code = to_int(ErrorCode::offset_out_of_range);
    fetch.responses[0].partitions[2].error_code = to_int(ErrorCode::offset_out_of_range);
    count_errors(metrics_, 1, fetch);
    msg::DescribeGroupsResponse groups;
    groups.groups.resize(2);
    groups.groups[1].error_code = to_int(ErrorCode::not_coordinator);
    count_errors(metrics_, 15, groups);

    using Errors = std::vector<std::pair<ErrorCode, std::uint64_t>>;
    EXPECT_EQ(metrics_.apis()[0].errors, (Errors{{ErrorCode::not_leader_or_follower, 1}}));
    EXPECT_EQ(metrics_.apis()[1].errors,
              (Errors{{ErrorCode::fetch_session_id_not_found, 1}, {ErrorCode::offset_out_of_range, 2}}));
    EXPECT_EQ(metrics_.apis()[15].errors, (Errors{{ErrorCode::not_coordinator, 1}}));
}

TEST_F(RequestAccountingTest, FetchCountsBytesOutByNameOrTopicIdButNotForFollowers) {
    create_topic("named");
    create_topic("by-id");
    msg::FetchResponse response;
    response.responses.resize(2);
    response.responses[0].topic = "named";
    response.responses[0].partitions.resize(1);
    response.responses[0].partitions[0].records = wire::RecordsData(wire::Bytes(100, 1));
    response.responses[1].topic_id = store_->topic("by-id")->id;
    response.responses[1].partitions.resize(2);
    response.responses[1].partitions[0].records = wire::RecordsData(wire::Bytes(30, 1));
    response.responses[1].partitions[1].records = wire::RecordsData(wire::Bytes(12, 1));

    msg::FetchRequest consumer;
    count_traffic(metrics_, *context_, facts_of(consumer), response);
    EXPECT_EQ(metrics_.topics().at("named").bytes_out, 100u);
    EXPECT_EQ(metrics_.topics().at("by-id").bytes_out, 42u);

    msg::FetchRequest follower;
    follower.replica_id = 2;
    count_traffic(metrics_, *context_, facts_of(follower), response);
    EXPECT_EQ(metrics_.topics().at("named").bytes_out, 100u);
}

}  // namespace
}  // namespace weir::dispatch
