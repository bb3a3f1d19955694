#include "cli/wireclient/wire_client.h"

#include <boost/asio/error.hpp>
#include <boost/system/system_error.hpp>
#include <charconv>
#include <ostream>
#include <stdexcept>

#include "protocol/wire/reader.h"

namespace weir::cli::wireclient {

int run_against_cluster(std::string_view tool, std::ostream& err, const std::function<void()>& work) {
    try {
        work();
        return 0;
    } catch (const std::invalid_argument& e) {
        err << "weir " << tool << ": " << e.what() << "\n";
        return 2;
    } catch (const boost::system::system_error& e) {
        // Brokers close the connection on an API or version they do not serve.
        if (e.code() == boost::asio::error::eof)
            err << "Error: the broker closed the connection (it may not serve this request)\n";
        else
            err << "Error: " << e.code().message() << "\n";
    } catch (const std::exception& e) {
        err << "Error: " << e.what() << "\n";
    }
    return 1;
}

std::vector<Endpoint> parse_bootstrap(const std::string& servers) {
    std::vector<Endpoint> out;
    std::size_t start = 0;
    while (start <= servers.size()) {
        auto end = servers.find(',', start);
        if (end == std::string::npos) end = servers.size();
        std::string one = servers.substr(start, end - start);
        auto colon = one.rfind(':');
        if (colon == std::string::npos || colon == 0) throw std::invalid_argument("not host:port: " + one);
        Endpoint e;
        e.host = one.substr(0, colon);
        if (e.host.size() > 2 && e.host.front() == '[' && e.host.back() == ']')
            e.host = e.host.substr(1, e.host.size() - 2);
        auto port = std::string_view(one).substr(colon + 1);
        auto [p, ec] = std::from_chars(port.data(), port.data() + port.size(), e.port);
        if (ec != std::errc{} || p != port.data() + port.size() || e.port <= 0 || e.port > 65535)
            throw std::invalid_argument("bad port in " + one);
        out.push_back(std::move(e));
        start = end + 1;
    }
    return out;
}

WireClient::WireClient(std::vector<Endpoint> bootstrap, std::chrono::milliseconds timeout)
    : bootstrap_(std::move(bootstrap)), timeout_(timeout) {}

client::BrokerClient& WireClient::connection(const Endpoint& to) {
    auto key = to.host + ":" + std::to_string(to.port);
    auto& slot = connections_[key];
    if (!slot) slot = std::make_unique<client::BrokerClient>(io_.get_executor(), "weir-transactions");
    return *slot;
}

msg::MetadataResponse WireClient::metadata(std::optional<std::vector<std::string>> topics) {
    msg::MetadataRequest request;
    if (topics) {
        request.topics.emplace();
        for (auto& t : *topics) {
            auto& out = request.topics->emplace_back();
            out.name = t;
        }
    } else {
        request.topics = std::nullopt;
    }
    request.allow_auto_topic_creation = false;
    std::string last_error = "no bootstrap server";
    for (const auto& server : bootstrap_) {
        try {
            auto response = send<msg::MetadataResponse>(server, request, 7);
            brokers_.clear();
            for (const auto& b : response.brokers) brokers_[b.node_id] = Endpoint{b.host, b.port};
            return response;
        } catch (const boost::system::system_error& e) {
            last_error = server.host + ":" + std::to_string(server.port) + ": " + e.code().message();
        } catch (const wire::DecodeError& e) {
            last_error = server.host + ":" + std::to_string(server.port) + ": " + e.what();
        }
    }
    throw std::runtime_error("no broker answered: " + last_error);
}

std::optional<Endpoint> WireClient::broker(std::int32_t node_id) const {
    auto it = brokers_.find(node_id);
    if (it == brokers_.end()) return std::nullopt;
    return it->second;
}

}  // namespace weir::cli::wireclient
