#pragma once
// Kafka's connection limits, shared by every listener of the broker:
// max.connections (broker-wide; the acceptors stop accepting until a connection
// closes) and max.connections.per.ip with its overrides (a connection over its
// address's limit is closed at once). Lives on the broker's one I/O thread.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace weir::net {

struct ConnectionQuotaConfig {
    std::int32_t max_connections = 2147483647;
    std::int32_t max_connections_per_ip = 2147483647;
    std::map<boost::asio::ip::address, std::int32_t> per_ip_overrides;
};

// Parses max.connections.per.ip.overrides ("host:count,host:count"); host
// names are resolved once. Throws std::invalid_argument naming the bad entry.
std::map<boost::asio::ip::address, std::int32_t> parse_per_ip_overrides(std::string_view text);

class ConnectionQuotas;

// One admitted connection's place in the quotas, released on destruction.
class ConnectionSlot {
public:
    ConnectionSlot() = default;
    ConnectionSlot(std::weak_ptr<ConnectionQuotas> quotas, boost::asio::ip::address address)
        : quotas_(std::move(quotas)), address_(address) {}
    ConnectionSlot(const ConnectionSlot&) = delete;
    ConnectionSlot& operator=(const ConnectionSlot&) = delete;
    ConnectionSlot(ConnectionSlot&&) noexcept = default;
    ConnectionSlot& operator=(ConnectionSlot&& other) noexcept;
    ~ConnectionSlot() { release(); }
    void release();

private:
    std::weak_ptr<ConnectionQuotas> quotas_;
    boost::asio::ip::address address_;
};

class ConnectionQuotas : public std::enable_shared_from_this<ConnectionQuotas> {
public:
    ConnectionQuotas(boost::asio::any_io_executor executor, ConnectionQuotaConfig config);

    // Returns once fewer than max.connections are open.
    boost::asio::awaitable<void> wait_for_slot();
    // A slot for a connection from `address`, or none if that address is at
    // its limit.
    [[nodiscard]] std::optional<ConnectionSlot> admit(const boost::asio::ip::address& address);
    [[nodiscard]] std::int32_t open() const { return total_; }
    [[nodiscard]] std::int32_t limit_for(const boost::asio::ip::address& address) const;

private:
    friend class ConnectionSlot;
    void release(const boost::asio::ip::address& address);

    ConnectionQuotaConfig config_;
    std::int32_t total_ = 0;
    std::map<boost::asio::ip::address, std::int32_t> per_ip_;
    boost::asio::steady_timer released_;  // never expires; cancelled when a slot frees
};

}  // namespace weir::net
