// BrokerMarkerSender against a fake peer broker on a real socket: version
// negotiation through ApiVersions, framing, and failures answered as "no answer".
#include "coordinator/txn/marker_sender.h"

#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include "broker/common/temp_dir.h"
#include "broker/server/broker_core.h"
#include "messages/api_versions.h"
#include "protocol/header.h"
#include "protocol/wire/writer.h"

namespace weir::coordinator::txn {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;

// Answers ApiVersions (listing WriteTxnMarkers up to `max_markers_version`)
// and WriteTxnMarkers (every partition NONE), or closes the connection on a
// marker request when `hang_up` is set, or after answering one when
// `close_after_answer` is (as a broker closes an idle connection).
struct FakePeer {
    explicit FakePeer(asio::io_context& io) : acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)) {
        asio::co_spawn(io, accept(), asio::detached);
    }

    asio::awaitable<void> accept() {
        for (;;) {
            auto socket = co_await acceptor.async_accept(asio::use_awaitable);
            ++connections;
            asio::co_spawn(acceptor.get_executor(), serve(std::move(socket)), asio::detached);
        }
    }

    asio::awaitable<void> serve(tcp::socket socket) {
        try {
            for (;;) {
                std::array<std::uint8_t, 4> size_bytes{};
                co_await asio::async_read(socket, asio::buffer(size_bytes), asio::use_awaitable);
                std::uint32_t size = 0;
                for (auto b : size_bytes) size = (size << 8) | b;
                wire::Bytes frame(size);
                co_await asio::async_read(socket, asio::buffer(frame), asio::use_awaitable);
                wire::Reader r(frame);
                auto header = protocol::decode_request_header(r);
                wire::Bytes body;
                wire::Writer w(body);
                if (header.api_key == msg::ApiVersionsRequest::api_key) {
                    msg::ApiVersionsResponse response;
                    auto& api = response.api_keys.emplace_back();
                    api.api_key = msg::WriteTxnMarkersRequest::api_key;
                    api.min_version = 0;
                    api.max_version = max_markers_version;
                    response.encode(w, header.api_version);
                } else {
                    if (hang_up) co_return;
                    auto request = msg::WriteTxnMarkersRequest::decode(r, header.api_version);
                    versions.push_back(header.api_version);
                    msg::WriteTxnMarkersResponse response;
                    for (const auto& marker : request.markers) {
                        auto& m = response.markers.emplace_back();
                        m.producer_id = marker.producer_id;
                        for (const auto& topic : marker.topics) {
                            auto& t = m.topics.emplace_back();
                            t.name = topic.name;
                            for (auto p : topic.partition_indexes) t.partitions.emplace_back().partition_index = p;
                        }
                    }
                    response.encode(w, header.api_version);
                }
                wire::Bytes out(4);
                wire::Writer ow(out);
                protocol::encode_response_header(ow, header.correlation_id,
                                                 protocol::response_header_version(header.api_key, header.api_version));
                out.insert(out.end(), body.begin(), body.end());
                const auto n = static_cast<std::uint32_t>(out.size() - 4);
                for (int i = 0; i < 4; ++i)
                    out[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(n >> (24 - 8 * i));
                co_await asio::async_write(socket, asio::buffer(out), asio::use_awaitable);
                if (close_after_answer && header.api_key != msg::ApiVersionsRequest::api_key) co_return;
            }
        } catch (const std::exception&) {
        }
    }

    tcp::acceptor acceptor;
    std::int16_t max_markers_version = 1;
    bool hang_up = false;
    bool close_after_answer = false;
    int connections = 0;
    std::vector<std::int16_t> versions;
};

class MarkerSenderTest : public ::testing::Test {
protected:
    static constexpr std::int32_t kBrokerId = 7;

    MarkerSenderTest() {
        config_.broker_id = kBrokerId;
        config_.log_dirs = {dir_.path()};
        const auto port = peer_.acceptor.local_endpoint().port();
        config_.listeners = {{"PLAINTEXT", config::SecurityProtocol::plaintext, "127.0.0.1", port}};
        config_.advertised_listeners = {{"PLAINTEXT", config::SecurityProtocol::plaintext, "127.0.0.1", port}};
        core_ = std::make_unique<server::BrokerCore>(config_, io_.get_executor());
        BrokerMarkerSender::Options o;
        o.listener = "PLAINTEXT";
        o.local_broker_id = kBrokerId;
        o.timeout = std::chrono::milliseconds(2000);
        sender_ = std::make_unique<BrokerMarkerSender>(io_.get_executor(), core_->metadata(), o);
    }
    ~MarkerSenderTest() override {
        sender_->stop();
        io_.restart();
        io_.poll();
        sender_.reset();
        core_.reset();
    }

    static msg::WriteTxnMarkersRequest request() {
        msg::WriteTxnMarkersRequest r;
        auto& m = r.markers.emplace_back();
        m.producer_id = 42;
        m.producer_epoch = 3;
        m.transaction_result = true;
        m.coordinator_epoch = 9;
        auto& t = m.topics.emplace_back();
        t.name = "orders";
        t.partition_indexes = {0, 1};
        return r;
    }

    std::optional<msg::WriteTxnMarkersResponse> send(std::int32_t broker_id) {
        std::optional<std::optional<msg::WriteTxnMarkersResponse>> out;
        asio::co_spawn(
            io_, [&]() -> asio::awaitable<void> { out = co_await sender_->send(broker_id, request()); },
            asio::detached);
        auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        io_.restart();
        while (!out && std::chrono::steady_clock::now() < deadline) io_.run_one_for(std::chrono::milliseconds(10));
        EXPECT_TRUE(out.has_value()) << "no result";
        return out.value_or(std::nullopt);
    }

    config::BrokerConfig config_;
    TempDir dir_{"weir-markers"};
    asio::io_context io_{1};
    FakePeer peer_{io_};
    std::unique_ptr<server::BrokerCore> core_;
    std::unique_ptr<BrokerMarkerSender> sender_;
};

TEST_F(MarkerSenderTest, NegotiatesVersionOneAndReusesTheConnection) {
    auto response = send(kBrokerId);
    ASSERT_TRUE(response.has_value());
    ASSERT_EQ(response->markers.size(), 1u);
    EXPECT_EQ(response->markers[0].producer_id, 42);
    ASSERT_EQ(response->markers[0].topics.at(0).partitions.size(), 2u);
    EXPECT_EQ(response->markers[0].topics[0].partitions[1].partition_index, 1);
    ASSERT_TRUE(send(kBrokerId).has_value());
    EXPECT_EQ(peer_.versions, (std::vector<std::int16_t>{1, 1}));
    EXPECT_EQ(peer_.connections, 1);
}

// Markers after a quiet spell go out at once: a connection the peer closed
// meanwhile is replaced before sending, not found dead by a failed request
// (which would hold the markers, and the read_committed end offset, for a
// retry backoff).
TEST_F(MarkerSenderTest, AConnectionThePeerClosedIsReplacedBeforeSending) {
    peer_.close_after_answer = true;
    ASSERT_TRUE(send(kBrokerId).has_value());
    io_.restart();
    io_.run_for(std::chrono::milliseconds(100));  // the peer closes its end
    EXPECT_TRUE(send(kBrokerId).has_value());
    EXPECT_EQ(peer_.connections, 2);
    EXPECT_EQ(peer_.versions.size(), 2u);
}

TEST_F(MarkerSenderTest, FallsBackToVersionZero) {
    peer_.max_markers_version = 0;
    ASSERT_TRUE(send(kBrokerId).has_value());
    EXPECT_EQ(peer_.versions, std::vector<std::int16_t>{0});
}

TEST_F(MarkerSenderTest, FailuresAreNoAnswerAndTheNextSendReconnects) {
    EXPECT_FALSE(send(99).has_value());  // not registered
    peer_.hang_up = true;
    EXPECT_FALSE(send(kBrokerId).has_value());
    peer_.hang_up = false;
    EXPECT_TRUE(send(kBrokerId).has_value());
    EXPECT_EQ(peer_.connections, 2);
    sender_->stop();
    EXPECT_FALSE(send(kBrokerId).has_value());
}

}  // namespace
}  // namespace weir::coordinator::txn
