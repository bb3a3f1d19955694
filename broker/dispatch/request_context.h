#pragma once
// What a handler knows about the request it serves besides its body.
#include <chrono>

#include "broker/net/request_handler.h"
#include "protocol/header.h"

namespace weir::dispatch {

struct RequestContext {
    protocol::RequestHeader header;
    const net::ConnectionInfo& connection;
    std::chrono::steady_clock::time_point received;
    [[nodiscard]] std::int16_t version() const { return header.api_version; }
};

}  // namespace weir::dispatch
