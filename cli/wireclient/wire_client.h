#pragma once
// Blocking Kafka requests for command-line tools, with the broker's own
// generated codecs and inter-broker connection: one connection per broker,
// each call bounded by a timeout. For APIs librdkafka 2.0.2 cannot send
// (DescribeTransactions, ListTransactions, DescribeProducers, WriteTxnMarkers,
// DescribeLogDirs).
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker/client/broker_client.h"
#include "messages/metadata.h"

namespace weir::cli::wireclient {

struct Endpoint {
    std::string host;
    std::int32_t port = 0;
};

// "host:port,host:port" -> endpoints; throws std::invalid_argument.
std::vector<Endpoint> parse_bootstrap(const std::string& servers);

// Runs a tool's `work` against the cluster and gives its exit code: 0 done, 2
// for a bad argument found on the way (std::invalid_argument, said as
// "weir TOOL: ..."), 1 for any other failure, said on `err`.
int run_against_cluster(std::string_view tool, std::ostream& err, const std::function<void()>& work);

class WireClient {
public:
    WireClient(std::vector<Endpoint> bootstrap, std::chrono::milliseconds timeout);

    // Any broker of the bootstrap list that answers; fills in the broker table.
    msg::MetadataResponse metadata(std::optional<std::vector<std::string>> topics);
    [[nodiscard]] std::optional<Endpoint> broker(std::int32_t node_id) const;
    [[nodiscard]] const std::map<std::int32_t, Endpoint>& brokers() const { return brokers_; }

    // Throws boost::system::system_error (I/O, timeout) or wire::DecodeError.
    template <typename Response, typename Request>
    Response send(const Endpoint& to, const Request& request, std::int16_t version) {
        std::optional<Response> out;
        std::exception_ptr failure;
        boost::asio::co_spawn(io_, call<Response>(connection(to), to, request, version, out),
                              [&failure](std::exception_ptr e) { failure = e; });
        io_.restart();
        io_.run();
        if (failure) std::rethrow_exception(failure);
        return std::move(*out);
    }

private:
    template <typename Response, typename Request>
    boost::asio::awaitable<void> call(client::BrokerClient& client, Endpoint to, Request request, std::int16_t version,
                                      std::optional<Response>& out) {
        if (!client.usable()) co_await client.connect(to.host, to.port, timeout_);
        out = co_await client.send<Response>(request, version, timeout_);
    }
    client::BrokerClient& connection(const Endpoint& to);

    boost::asio::io_context io_;
    std::vector<Endpoint> bootstrap_;
    std::chrono::milliseconds timeout_;
    std::map<std::string, std::unique_ptr<client::BrokerClient>> connections_;  // by host:port
    std::map<std::int32_t, Endpoint> brokers_;
};

}  // namespace weir::cli::wireclient
