#pragma once
// The admin surface of one broker (weir.admin.listener): its routes served
// by an HTTP listener on the broker's I/O thread.
#include <boost/asio/ip/tcp.hpp>
#include <memory>

#include "broker/admin/admin_context.h"
#include "broker/admin/http_listener.h"
#include "broker/admin/router.h"

namespace weir::admin {

class AdminServer {
public:
    // Binds at once (throws when the address is in use).
    AdminServer(AdminContext context, const boost::asio::ip::tcp::endpoint& endpoint, HttpLimits limits = {});
    AdminServer(const AdminServer&) = delete;
    AdminServer& operator=(const AdminServer&) = delete;

    void start() { listener_.start(); }
    void stop() { listener_.stop(); }
    [[nodiscard]] boost::asio::ip::tcp::endpoint local_endpoint() const { return listener_.local_endpoint(); }

private:
    AdminContext context_;
    Router router_;
    HttpListener listener_;
};

}  // namespace weir::admin
