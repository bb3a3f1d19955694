#pragma once
// GET /v1/topics and GET /v1/topics/{name}: topics from the metadata, with
// the offsets and size of the partitions this broker hosts (null for the
// others: another broker holds them).
#include <boost/json/value.hpp>
#include <optional>
#include <string_view>

#include "broker/admin/admin_context.h"

namespace weir::admin {

boost::json::value topics_json(const AdminContext& context);
// nullopt: no such topic.
std::optional<boost::json::value> topic_json(const AdminContext& context, std::string_view name);

}  // namespace weir::admin
