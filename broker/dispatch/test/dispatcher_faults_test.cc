// Injected faults through the whole dispatcher: a request frame in, the
// response frame out, over a BrokerCore.
#include <gtest/gtest.h>

#include "broker/dispatch/dispatcher.h"
#include "broker/handlers/test/handler_fixture.h"
#include "protocol/header.h"
#include "protocol/wire/writer.h"

namespace weir::dispatch {
namespace {

using handlers::test::make_batch;

class DispatcherFaultsTest : public handlers::test::HandlerTest {
protected:
    template <typename Request>
    std::optional<wire::Bytes> send(const Request& request, std::int16_t version) {
        start();
        protocol::RequestHeader header{Request::api_key, version, 42, std::string("fault-test"), {}};
        auto frame = std::make_shared<wire::Bytes>();
        wire::Writer w(*frame);
        protocol::encode_request_header(w, header, protocol::request_header_version(Request::api_key, version));
        request.encode(w, version);
        Dispatcher dispatcher(*context_, metrics_, &faults_);
        std::optional<wire::Bytes> out;
        std::exception_ptr failed;
        boost::asio::co_spawn(
            io_,
            [&]() -> boost::asio::awaitable<void> {
                auto answer = co_await dispatcher.handle(frame, connection_);
                if (answer) out = answer->flatten();
            },
            [&](std::exception_ptr e) { failed = e; });
        io_.restart();
        io_.run();
        if (failed) std::rethrow_exception(failed);
        return out;
    }

    template <typename Response>
    Response decode(const wire::Bytes& frame, std::int16_t version) {
        wire::Reader r(frame);
        r.int32();  // size
        protocol::decode_response_header(r, protocol::response_header_version(Response::api_key, version));
        return Response::decode(r, version);
    }

    static msg::ProduceRequest produce_request(const std::string& topic, std::vector<std::int32_t> partitions) {
        msg::ProduceRequest r;
        r.acks = 1;
        r.timeout_ms = 1000;
        r.topic_data.resize(1);
        r.topic_data[0].name = topic;
        for (auto p : partitions) {
            r.topic_data[0].partition_data.emplace_back();
            r.topic_data[0].partition_data.back().index = p;
            r.topic_data[0].partition_data.back().records = wire::RecordsData(make_batch(2));
        }
        return r;
    }

    metrics::MetricsRegistry metrics_;
    faults::FaultInjector faults_;
    handlers::ConnectionInfo connection_{1, "127.0.0.1:1", "PLAINTEXT"};
};

TEST_F(DispatcherFaultsTest, PartitionErrorLandsOnThatPartitionAndNothingIsAppendedThere) {
    create_topic("t", 3);
    faults_.add({.api_key = 0,
                 .topic = "t",
                 .partition = 1,
                 .action = faults::FaultAction::error,
                 .error = ErrorCode::not_leader_or_follower,
                 .count = 1});
    auto frame = send(produce_request("t", {0, 1, 2}), 9);
    ASSERT_TRUE(frame.has_value());
    auto response = decode<msg::ProduceResponse>(*frame, 9);
    ASSERT_EQ(response.responses.size(), 1u);
    std::map<std::int32_t, std::int16_t> errors;
    for (const auto& p : response.responses[0].partition_responses) errors[p.index] = p.error_code;
    EXPECT_EQ(errors,
              (std::map<std::int32_t, std::int16_t>{{0, 0}, {1, to_int(ErrorCode::not_leader_or_follower)}, {2, 0}}));
    EXPECT_EQ(log("t", 0)->log_end_offset(), 2);
    EXPECT_EQ(log("t", 1)->log_end_offset(), 0);
    EXPECT_EQ(log("t", 2)->log_end_offset(), 2);
    // Counted like any error, and only once (count 1): the retry succeeds.
    EXPECT_EQ(metrics_.apis()[0].errors.size(), 1u);
    auto retry = decode<msg::ProduceResponse>(*send(produce_request("t", {1}), 9), 9);
    EXPECT_EQ(retry.responses[0].partition_responses[0].error_code, 0);
    EXPECT_EQ(log("t", 1)->log_end_offset(), 2);
    EXPECT_EQ(faults_.faults()[0].fired, 1u);
}

TEST_F(DispatcherFaultsTest, WholeRequestErrors) {
    create_topic("t", 1);
    faults_.add({.api_key = 3, .action = faults::FaultAction::error, .error = ErrorCode::unknown_server_error});
    msg::MetadataRequest metadata;
    metadata.topics = std::vector<msg::MetadataRequest::MetadataRequestTopic>(1);
    (*metadata.topics)[0].name = "t";
    // Metadata has no top-level error code: every error code of the answer carries it.
    auto m = decode<msg::MetadataResponse>(*send(metadata, 9), 9);
    ASSERT_EQ(m.topics.size(), 1u);
    EXPECT_EQ(m.topics[0].error_code, to_int(ErrorCode::unknown_server_error));
    for (const auto& p : m.topics[0].partitions) EXPECT_EQ(p.error_code, to_int(ErrorCode::unknown_server_error));

    faults_.add({.api_key = 10, .action = faults::FaultAction::error, .error = ErrorCode::coordinator_not_available});
    msg::FindCoordinatorRequest find;
    find.key = "g";
    auto f = decode<msg::FindCoordinatorResponse>(*send(find, 1), 1);
    EXPECT_EQ(f.error_code, to_int(ErrorCode::coordinator_not_available));
    // The handler did not run: __consumer_offsets was not created.
    EXPECT_EQ(store_->topic("__consumer_offsets"), nullptr);
}

TEST_F(DispatcherFaultsTest, DropDisconnectAndDelay) {
    create_topic("t", 1);
    faults_.add({.api_key = 0, .action = faults::FaultAction::drop, .count = 1});
    EXPECT_FALSE(send(produce_request("t", {0}), 9).has_value());
    EXPECT_EQ(log("t", 0)->log_end_offset(), 0);

    faults_.add({.api_key = 0, .action = faults::FaultAction::disconnect, .count = 1});
    EXPECT_THROW(send(produce_request("t", {0}), 9), net::CloseConnection);
    EXPECT_EQ(log("t", 0)->log_end_offset(), 0);

    faults_.add(
        {.api_key = 0, .action = faults::FaultAction::delay, .delay = std::chrono::milliseconds(150), .count = 1});
    const auto t0 = std::chrono::steady_clock::now();
    auto delayed = decode<msg::ProduceResponse>(*send(produce_request("t", {0}), 9), 9);
    EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(150));
    EXPECT_EQ(delayed.responses[0].partition_responses[0].error_code, 0);
    EXPECT_EQ(log("t", 0)->log_end_offset(), 2);
}

TEST_F(DispatcherFaultsTest, FetchPartitionErrorByTopicId) {
    create_topic("t", 2);
    produce("t", 0, 3);
    produce("t", 1, 3);
    faults_.add({.api_key = 1,
                 .topic = "t",
                 .partition = 0,
                 .action = faults::FaultAction::error,
                 .error = ErrorCode::offset_out_of_range});
    msg::FetchRequest fetch;
    fetch.max_wait_ms = 0;
    fetch.topics.resize(1);
    fetch.topics[0].topic_id = store_->topic("t")->id;
    fetch.topics[0].partitions.resize(2);
    fetch.topics[0].partitions[0].partition = 0;
    fetch.topics[0].partitions[0].partition_max_bytes = 1 << 20;
    fetch.topics[0].partitions[1].partition = 1;
    fetch.topics[0].partitions[1].partition_max_bytes = 1 << 20;
    auto response = decode<msg::FetchResponse>(*send(fetch, 13), 13);
    ASSERT_EQ(response.responses.size(), 1u);
    const auto& parts = response.responses[0].partitions;
    ASSERT_EQ(parts.size(), 2u);
    for (const auto& p : parts) {
        if (p.partition_index == 0) {
            EXPECT_EQ(p.error_code, to_int(ErrorCode::offset_out_of_range));
            EXPECT_TRUE(!p.records || p.records->empty());
        } else {
            EXPECT_EQ(p.error_code, 0);
            ASSERT_TRUE(p.records.has_value());
            EXPECT_FALSE(p.records->empty());
        }
    }
}

}  // namespace
}  // namespace weir::dispatch
