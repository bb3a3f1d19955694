#pragma once
// What a handler knows about the request it serves besides its body. Defined
// here, below the network layer that fills it in, so that handlers and the
// coordinators behind their interfaces never include the layers that call them.
#include <chrono>
#include <cstdint>
#include <string>

#include "protocol/header.h"

namespace weir::handlers {

struct ConnectionInfo {
    std::uint64_t id = 0;
    std::string peer;  // "host:port", for logs
    std::string listener;
};

struct RequestContext {
    protocol::RequestHeader header;
    const ConnectionInfo& connection;
    std::chrono::steady_clock::time_point received;
    [[nodiscard]] std::int16_t version() const { return header.api_version; }
};

}  // namespace weir::handlers
