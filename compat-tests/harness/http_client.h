#pragma once
// A minimal HTTP/1.1 client for the admin listener's tests: one request per
// connection (Connection: close), everything bounded by a timeout. Also sends
// raw bytes, for requests no proper client would make.
#include <chrono>
#include <cstdint>
#include <map>
#include <string>

namespace weir::compat {

struct HttpReply {
    int status = 0;                              // 0: no parsable answer (closed, timed out)
    std::map<std::string, std::string> headers;  // names lower-cased
    std::string body;
    std::string raw;
};

// Sends `raw` to 127.0.0.1:port and reads until the server closes or `timeout` passes.
HttpReply http_raw(std::uint16_t port, const std::string& raw,
                   std::chrono::milliseconds timeout = std::chrono::seconds(10));
HttpReply http_request(std::uint16_t port, const std::string& method, const std::string& target,
                       const std::string& body = {}, std::chrono::milliseconds timeout = std::chrono::seconds(10));
inline HttpReply http_get(std::uint16_t port, const std::string& target) { return http_request(port, "GET", target); }

}  // namespace weir::compat
