#pragma once
// What a connection hands each request frame to. The handler returns the
// whole response frame (size prefix included; records may stay in their
// files, see wire::Frame) or nothing for requests that
// get no answer (Produce with acks=0). Throwing CloseConnection (or any
// exception) closes this connection only.
//
// A connection starts each request as soon as it arrives, so requests of one
// connection run concurrently while one of them is suspended; only their
// responses are kept in order. A request whose effects the requests after it
// must see even if it suspends (a metadata change waiting for ZooKeeper) is a
// barrier: requests that arrive after it on its connection start only once it
// has finished.
#include <boost/asio/awaitable.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "broker/handler_api/request_context.h"
#include "protocol/wire/frame.h"
#include "protocol/wire/reader.h"

namespace weir::net {

// Who sent a request: handlers see it in their RequestContext.
using handlers::ConnectionInfo;

class CloseConnection : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class RequestHandler {
public:
    virtual ~RequestHandler() = default;
    virtual boost::asio::awaitable<std::optional<wire::Frame>> handle(std::shared_ptr<const wire::Bytes> frame,
                                                                      const ConnectionInfo& connection) = 0;
    // Called on arrival, before handle(); `frame` is the request without its
    // size prefix.
    [[nodiscard]] virtual bool is_barrier(const wire::Bytes& /*frame*/) const { return false; }
};

}  // namespace weir::net
