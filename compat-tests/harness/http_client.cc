#include "harness/http_client.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "harness/raw_connection.h"

namespace weir::compat {

namespace {

HttpReply parse(std::string raw) {
    HttpReply r;
    r.raw = std::move(raw);
    const auto head_end = r.raw.find("\r\n\r\n");
    if (head_end == std::string::npos || !r.raw.starts_with("HTTP/1.")) return r;
    const auto line_end = r.raw.find("\r\n");
    const auto space = r.raw.find(' ');
    if (space == std::string::npos || space > line_end) return r;
    r.status = std::atoi(r.raw.c_str() + space + 1);
    std::size_t pos = line_end + 2;
    while (pos < head_end) {
        const auto eol = r.raw.find("\r\n", pos);
        const auto line = r.raw.substr(pos, eol - pos);
        if (const auto colon = line.find(':'); colon != std::string::npos) {
            auto name = line.substr(0, colon);
            std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
            auto value = line.substr(colon + 1);
            value.erase(0, value.find_first_not_of(' '));
            r.headers[name] = value;
        }
        pos = eol + 2;
    }
    r.body = r.raw.substr(head_end + 4);
    return r;
}

}  // namespace

HttpReply http_raw(std::uint16_t port, const std::string& raw, std::chrono::milliseconds timeout) {
    RawConnection c(port);
    c.send(std::span(reinterpret_cast<const std::uint8_t*>(raw.data()), raw.size()));
    std::string received;
    std::vector<std::uint8_t> chunk;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (!c.read_some(chunk, std::max(left, std::chrono::milliseconds(1)))) break;
        received.append(chunk.begin(), chunk.end());
    }
    return parse(std::move(received));
}

HttpReply http_request(std::uint16_t port, const std::string& method, const std::string& target,
                       const std::string& body, std::chrono::milliseconds timeout) {
    std::string raw =
        method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) + "\r\nConnection: close\r\n";
    if (!body.empty() || method == "POST")
        raw += "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
    raw += "\r\n" + body;
    return http_raw(port, raw, timeout);
}

}  // namespace weir::compat
