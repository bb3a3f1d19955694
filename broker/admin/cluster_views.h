#pragma once
// GET /v1/cluster and GET /v1/brokers: the cluster as this broker's metadata
// sees it.
#include <boost/json/value.hpp>

#include "broker/admin/admin_context.h"

namespace weir::admin {

boost::json::value cluster_json(const AdminContext& context);
boost::json::value brokers_json(const AdminContext& context);

}  // namespace weir::admin
