#include "broker/net/connection_quotas.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <charconv>
#include <stdexcept>

namespace weir::net {

namespace asio = boost::asio;

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

}  // namespace

std::map<asio::ip::address, std::int32_t> parse_per_ip_overrides(std::string_view text) {
    std::map<asio::ip::address, std::int32_t> out;
    while (!trim(text).empty()) {
        auto comma = text.find(',');
        auto entry = trim(text.substr(0, comma));
        text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
        if (entry.empty()) continue;
        // The count follows the last colon, so IPv6 addresses keep theirs.
        auto colon = entry.rfind(':');
        if (colon == std::string_view::npos)
            throw std::invalid_argument("max.connections.per.ip.overrides: '" + std::string(entry) +
                                        "' is not host:count");
        auto host = trim(entry.substr(0, colon));
        auto count_text = trim(entry.substr(colon + 1));
        std::int32_t count = 0;
        auto [end, ec] = std::from_chars(count_text.data(), count_text.data() + count_text.size(), count);
        if (ec != std::errc{} || end != count_text.data() + count_text.size() || count < 0 || host.empty())
            throw std::invalid_argument("max.connections.per.ip.overrides: '" + std::string(entry) +
                                        "' is not host:count");
        if (host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
        boost::system::error_code parse_error;
        auto address = asio::ip::make_address(std::string(host), parse_error);
        if (!parse_error) {
            out[address] = count;
            continue;
        }
        // A host name, as Kafka allows: every address it resolves to gets the limit.
        asio::io_context io;
        asio::ip::tcp::resolver resolver(io);
        boost::system::error_code resolve_error;
        auto results = resolver.resolve(std::string(host), "", resolve_error);
        if (resolve_error || results.empty())
            throw std::invalid_argument("max.connections.per.ip.overrides: cannot resolve '" + std::string(host) + "'");
        for (const auto& r : results) out[r.endpoint().address()] = count;
    }
    return out;
}

ConnectionSlot& ConnectionSlot::operator=(ConnectionSlot&& other) noexcept {
    if (this != &other) {
        release();
        quotas_ = std::move(other.quotas_);
        address_ = other.address_;
    }
    return *this;
}

void ConnectionSlot::release() {
    if (auto q = quotas_.lock()) q->release(address_);
    quotas_.reset();
}

ConnectionQuotas::ConnectionQuotas(asio::any_io_executor executor, ConnectionQuotaConfig config)
    : config_(std::move(config)), released_(std::move(executor)) {
    released_.expires_at(asio::steady_timer::time_point::max());
}

asio::awaitable<void> ConnectionQuotas::wait_for_slot() {
    while (total_ >= config_.max_connections) {
        boost::system::error_code ec;
        co_await released_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
}

std::int32_t ConnectionQuotas::limit_for(const asio::ip::address& address) const {
    auto it = config_.per_ip_overrides.find(address);
    return it != config_.per_ip_overrides.end() ? it->second : config_.max_connections_per_ip;
}

std::optional<ConnectionSlot> ConnectionQuotas::admit(const asio::ip::address& address) {
    auto& n = per_ip_[address];
    if (n >= limit_for(address)) {
        if (n == 0) per_ip_.erase(address);
        return std::nullopt;
    }
    ++n;
    ++total_;
    return ConnectionSlot(weak_from_this(), address);
}

void ConnectionQuotas::release(const asio::ip::address& address) {
    if (auto it = per_ip_.find(address); it != per_ip_.end() && --it->second <= 0) per_ip_.erase(it);
    --total_;
    released_.cancel();
}

}  // namespace weir::net
