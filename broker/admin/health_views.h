#pragma once
// GET /healthz: 200 while the broker serves at all (a liveness probe).
// GET /readyz: 200 once it can serve clients, else 503 (a readiness probe).
#include "broker/admin/admin_context.h"
#include "broker/admin/http_message.h"

namespace weir::admin {

HttpResponse healthz(const AdminContext& context);
HttpResponse readyz(const AdminContext& context);

}  // namespace weir::admin
