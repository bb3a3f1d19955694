#include "broker/config/listener.h"

#include <cctype>

#include "broker/config/config_def.h"
#include "broker/config/config_error.h"

namespace weir::config {
namespace {

std::string upper(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return out;
}

bool valid_host_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '%' || c == '.' || c == '_' || c == ':';
}

std::optional<std::uint16_t> parse_port(std::string_view s) {
    if (s.empty() || s.size() > 5) return std::nullopt;
    std::uint32_t v = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return std::nullopt;
        v = v * 10 + static_cast<std::uint32_t>(c - '0');
    }
    if (v > 65535) return std::nullopt;
    return static_cast<std::uint16_t>(v);
}

std::vector<std::string_view> split_commas(std::string_view s) {
    std::vector<std::string_view> out;
    s = trim(s);
    if (s.empty()) return out;
    std::size_t start = 0;
    while (true) {
        std::size_t comma = s.find(',', start);
        out.push_back(trim(s.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return out;
}

}  // namespace

std::string_view to_string(SecurityProtocol protocol) noexcept {
    switch (protocol) {
        case SecurityProtocol::plaintext:
            return "PLAINTEXT";
        case SecurityProtocol::ssl:
            return "SSL";
        case SecurityProtocol::sasl_plaintext:
            return "SASL_PLAINTEXT";
        case SecurityProtocol::sasl_ssl:
            return "SASL_SSL";
    }
    return "PLAINTEXT";
}

std::optional<SecurityProtocol> parse_security_protocol(std::string_view name) {
    const std::string u = upper(name);
    if (u == "PLAINTEXT") return SecurityProtocol::plaintext;
    if (u == "SSL") return SecurityProtocol::ssl;
    if (u == "SASL_PLAINTEXT") return SecurityProtocol::sasl_plaintext;
    if (u == "SASL_SSL") return SecurityProtocol::sasl_ssl;
    return std::nullopt;
}

std::string Listener::to_string() const {
    std::string out = name + "://";
    if (host.find(':') != std::string::npos) {
        out += '[' + host + ']';
    } else {
        out += host;
    }
    out += ':' + std::to_string(port);
    return out;
}

std::optional<HostPort> parse_host_port(std::string_view text) {
    HostPort hp;
    std::string_view port_text;
    if (!text.empty() && text.front() == '[') {
        std::size_t close = text.find(']');
        if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':') return std::nullopt;
        hp.host = std::string(text.substr(1, close - 1));
        port_text = text.substr(close + 2);
    } else {
        std::size_t colon = text.rfind(':');
        if (colon == std::string_view::npos) return std::nullopt;
        hp.host = std::string(text.substr(0, colon));
        port_text = text.substr(colon + 1);
        // An unbracketed IPv6 address is ambiguous; Kafka's regex would take the
        // last colon too, so accept it the same way.
    }
    for (char c : hp.host)
        if (!valid_host_char(c)) return std::nullopt;
    auto port = parse_port(port_text);
    if (!port) return std::nullopt;
    hp.port = *port;
    return hp;
}

SecurityProtocolMap parse_security_protocol_map(std::string_view key, std::string_view value) {
    SecurityProtocolMap out;
    for (std::string_view entry : split_commas(value)) {
        std::size_t colon = entry.find(':');
        if (colon == std::string_view::npos) {
            throw ConfigError(invalid_value_message(
                key, value, "Map entry '" + std::string(entry) + "' is not of the form NAME:PROTOCOL"));
        }
        std::string name = upper(trim(entry.substr(0, colon)));
        std::string_view proto_text = trim(entry.substr(colon + 1));
        auto proto = parse_security_protocol(proto_text);
        if (name.empty() || !proto) {
            throw ConfigError(invalid_value_message(key, value,
                                                    "Unknown security protocol " + std::string(proto_text) +
                                                        " (expected PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL)"));
        }
        out.insert_or_assign(std::move(name), *proto);
    }
    return out;
}

std::vector<Listener> parse_listeners(std::string_view key, std::string_view value,
                                      const SecurityProtocolMap& protocols) {
    std::vector<Listener> out;
    for (std::string_view entry : split_commas(value)) {
        std::size_t sep = entry.find("://");
        std::optional<HostPort> hp;
        if (sep != std::string_view::npos && sep > 0) hp = parse_host_port(entry.substr(sep + 3));
        if (!hp) {
            throw ConfigError(invalid_value_message(
                key, value,
                "Unable to parse " + std::string(entry) + " to a broker endpoint (expected NAME://host:port)"));
        }
        Listener l;
        l.name = upper(entry.substr(0, sep));
        auto it = protocols.find(l.name);
        if (it == protocols.end()) {
            throw ConfigError(invalid_value_message(
                key, value,
                "No security protocol defined for listener " + l.name + " (see listener.security.protocol.map)"));
        }
        l.protocol = it->second;
        l.host = std::move(hp->host);
        l.port = hp->port;
        out.push_back(std::move(l));
    }
    return out;
}

}  // namespace weir::config
