#pragma once
// The admin endpoints and their paths. The router's endpoints keep a
// reference to `context`, which must outlive it.
#include "broker/admin/admin_context.h"
#include "broker/admin/router.h"

namespace weir::admin {

Router make_router(const AdminContext& context);

}  // namespace weir::admin
