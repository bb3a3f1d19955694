#pragma once
// How the transaction coordinator reaches the leaders of a transaction's
// partitions with WriteTxnMarkers (Kafka's TransactionMarkerChannelManager
// network side): one connection per broker on the inter-broker listener,
// this broker included, one request at a time on each.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "broker/metadata/metadata_store.h"
#include "messages/write_txn_markers.h"

namespace weir::client {
class BrokerClient;
}

namespace weir::coordinator::txn {

class MarkerSender {
public:
    virtual ~MarkerSender() = default;
    // The broker's answer, or nullopt when there is none (broker not
    // registered, unreachable, connection lost, timeout): send again later.
    virtual boost::asio::awaitable<std::optional<msg::WriteTxnMarkersResponse>> send(
        std::int32_t broker_id, msg::WriteTxnMarkersRequest request) = 0;
    // Closes connections; later sends fail.
    virtual void stop() = 0;
};

// Over client::BrokerClient. WriteTxnMarkers v1 (flexible) where the
// broker's ApiVersions lists it, else v0.
class BrokerMarkerSender final : public MarkerSender {
public:
    struct Options {
        std::string listener;  // inter.broker.listener.name
        std::int32_t local_broker_id = 0;
        std::chrono::milliseconds timeout{30000};  // request.timeout.ms
    };
    BrokerMarkerSender(boost::asio::any_io_executor executor, metadata::MetadataStore& metadata, Options options);
    ~BrokerMarkerSender() override;

    boost::asio::awaitable<std::optional<msg::WriteTxnMarkersResponse>> send(
        std::int32_t broker_id, msg::WriteTxnMarkersRequest request) override;
    void stop() override;

private:
    struct Node;
    boost::asio::awaitable<msg::WriteTxnMarkersResponse> exchange(std::int32_t broker_id, Node& node,
                                                                  const msg::WriteTxnMarkersRequest& request);

    boost::asio::any_io_executor executor_;
    metadata::MetadataStore& metadata_;
    Options options_;
    std::map<std::int32_t, std::shared_ptr<Node>> nodes_;
    bool stopped_ = false;
};

}  // namespace weir::coordinator::txn
