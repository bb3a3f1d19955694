#include "coordinator/txn/marker_sender.h"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <deque>

#include "broker/client/broker_client.h"
#include "broker/common/logging.h"
#include "messages/api_versions.h"

namespace weir::coordinator::txn {

namespace asio = boost::asio;

namespace {

constexpr std::int16_t kNewestMarkersVersion = 1;

}  // namespace

struct BrokerMarkerSender::Node {
    explicit Node(asio::any_io_executor executor, std::string client_id) : client(executor, std::move(client_id)) {}
    weir::client::BrokerClient client;
    std::optional<std::int16_t> version;  // negotiated on each new connection
    // BrokerClient carries one request at a time: the others wait here.
    bool busy = false;
    std::deque<std::shared_ptr<asio::steady_timer>> waiting;

    void release() {
        busy = false;
        if (!waiting.empty()) {
            waiting.front()->cancel();
            waiting.pop_front();
        }
    }
};

BrokerMarkerSender::BrokerMarkerSender(asio::any_io_executor executor, metadata::MetadataStore& metadata,
                                       Options options)
    : executor_(std::move(executor)), metadata_(metadata), options_(std::move(options)) {}

BrokerMarkerSender::~BrokerMarkerSender() { stop(); }

void BrokerMarkerSender::stop() {
    stopped_ = true;
    for (auto& [_, node] : nodes_) {
        node->client.close();
        for (auto& t : node->waiting) t->cancel();
        node->waiting.clear();
    }
}

asio::awaitable<std::optional<msg::WriteTxnMarkersResponse>> BrokerMarkerSender::send(
    std::int32_t broker_id, msg::WriteTxnMarkersRequest request) {
    if (stopped_) co_return std::nullopt;
    auto& slot = nodes_[broker_id];
    if (!slot)
        slot = std::make_shared<Node>(executor_, "weir-txn-marker-sender-" + std::to_string(options_.local_broker_id));
    std::shared_ptr<Node> node = slot;
    while (node->busy) {
        auto turn = std::make_shared<asio::steady_timer>(executor_, std::chrono::steady_clock::time_point::max());
        node->waiting.push_back(turn);
        boost::system::error_code ec;
        co_await turn->async_wait(asio::redirect_error(asio::use_awaitable, ec));
        if (stopped_) co_return std::nullopt;
    }
    node->busy = true;
    std::optional<msg::WriteTxnMarkersResponse> out;
    try {
        auto call = exchange(broker_id, *node, request);
        out = co_await std::move(call);
    } catch (const std::exception& e) {
        node->client.close();
        logging::debug("transaction markers to broker {}: {}", broker_id, e.what());
    }
    node->release();
    co_return out;
}

asio::awaitable<msg::WriteTxnMarkersResponse> BrokerMarkerSender::exchange(std::int32_t broker_id, Node& node,
                                                                           const msg::WriteTxnMarkersRequest& request) {
    if (!node.client.usable()) {
        node.version.reset();
        auto snapshot = metadata_.snapshot();
        const auto* broker = snapshot->broker(broker_id);
        if (!broker) throw std::runtime_error("broker " + std::to_string(broker_id) + " is not registered");
        const auto* endpoint = broker->endpoint(options_.listener);
        if (!endpoint)
            throw std::runtime_error("broker " + std::to_string(broker_id) + " has no listener " + options_.listener);
        auto connect = node.client.connect(endpoint->host, endpoint->port, options_.timeout);
        co_await std::move(connect);
    }
    if (!node.version) {
        auto versions_call = node.client.send<msg::ApiVersionsResponse>(msg::ApiVersionsRequest{}, 0, options_.timeout);
        auto versions = co_await std::move(versions_call);
        std::int16_t chosen = 0;
        for (const auto& api : versions.api_keys) {
            if (api.api_key == msg::WriteTxnMarkersRequest::api_key && api.max_version >= kNewestMarkersVersion)
                chosen = kNewestMarkersVersion;
        }
        node.version = chosen;
    }
    auto call = node.client.send<msg::WriteTxnMarkersResponse>(request, *node.version, options_.timeout);
    co_return co_await std::move(call);
}

}  // namespace weir::coordinator::txn
