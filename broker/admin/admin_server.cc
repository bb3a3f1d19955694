#include "broker/admin/admin_server.h"

#include "broker/admin/admin_routes.h"

namespace weir::admin {

AdminServer::AdminServer(AdminContext context, const boost::asio::ip::tcp::endpoint& endpoint, HttpLimits limits)
    : context_(std::move(context)),
      router_(make_router(context_)),
      listener_(context_.broker.executor, endpoint, router_, limits) {}

}  // namespace weir::admin
