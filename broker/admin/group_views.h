#pragma once
// GET /v1/groups and GET /v1/groups/{id} as JSON.
#include <boost/json/value.hpp>
#include <vector>

#include "broker/admin/group_state.h"

namespace weir::admin {

boost::json::value groups_json(const std::vector<GroupListing>& groups);
boost::json::value group_json(const GroupState& group);

}  // namespace weir::admin
