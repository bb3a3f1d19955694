#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace weir::config {

enum class SecurityProtocol : std::uint8_t { plaintext, ssl, sasl_plaintext, sasl_ssl };

std::string_view to_string(SecurityProtocol protocol) noexcept;  // "PLAINTEXT", ...
// Case-insensitive, as Kafka's SecurityProtocol.forName.
std::optional<SecurityProtocol> parse_security_protocol(std::string_view name);

// listener.security.protocol.map: listener name (upper case) -> protocol.
using SecurityProtocolMap = std::map<std::string, SecurityProtocol, std::less<>>;

// One entry of listeners / advertised.listeners: NAME://host:port.
struct Listener {
    std::string name;  // upper-cased, as Kafka's ListenerName.normalised
    SecurityProtocol protocol = SecurityProtocol::plaintext;
    std::string host;  // empty: all interfaces (bind) / machine host name (advertise)
    std::uint16_t port = 0;

    // NAME://host:port, IPv6 hosts in brackets.
    std::string to_string() const;
    bool operator==(const Listener&) const = default;
};

struct HostPort {
    std::string host;
    std::uint16_t port = 0;
};

// "host:port", "[ipv6]:port" or ":port" (empty host). Host characters follow
// Kafka's endpoint syntax [0-9a-zA-Z-%._:]. Returns nullopt when malformed.
std::optional<HostPort> parse_host_port(std::string_view text);

// Parses "NAME:PROTOCOL,..." (throws ConfigError naming `key`).
SecurityProtocolMap parse_security_protocol_map(std::string_view key, std::string_view value);

// Parses a comma-separated listener list. Every name must be in `protocols`.
// Throws ConfigError naming `key` and the bad entry. Empty value -> empty list.
std::vector<Listener> parse_listeners(std::string_view key, std::string_view value,
                                      const SecurityProtocolMap& protocols);

}  // namespace weir::config
