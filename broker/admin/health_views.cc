#include "broker/admin/health_views.h"

namespace weir::admin {

// Liveness only: a broker that answers at all is alive, even while it loads
// or shuts down (a probe must not restart it for that).
HttpResponse healthz(const AdminContext&) { return text_response(200, "ok\n"); }

HttpResponse readyz(const AdminContext& context) {
    if (context.broker.stopping()) return text_response(503, "stopping\n");
    if (!context.ready()) return text_response(503, "loading\n");
    return text_response(200, "ready\n");
}

}  // namespace weir::admin
