#pragma once
// GET /metrics: the registry's counters and the gauges read from their owners
// (partition offsets and sizes, group lag and members, connections) in
// Prometheus' text format. With many partitions or groups the walk yields to
// the I/O thread every `batch` items, so a scrape delays no request by more
// than one batch's work.
#include <boost/asio/awaitable.hpp>
#include <cstddef>
#include <string>

#include "broker/admin/admin_context.h"

namespace weir::admin {

boost::asio::awaitable<std::string> render_metrics(const AdminContext& context, std::size_t batch = 500);

}  // namespace weir::admin
