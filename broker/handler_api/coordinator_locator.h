#pragma once
// Where the coordinator of a key is, as FindCoordinator asks: one locator per
// key type (groups, later transactions), implemented by that coordinator.
#include <boost/asio/awaitable.hpp>
#include <cstdint>
#include <string>
#include <string_view>

#include "protocol/errors.h"

namespace weir::handlers {

struct CoordinatorLocation {
    ErrorCode error = ErrorCode::none;
    std::string message;  // empty: the error's default message
    std::int32_t node_id = -1;
    std::string host;
    std::int32_t port = -1;
};

class CoordinatorLocator {
public:
    virtual ~CoordinatorLocator() = default;
    // The broker coordinating `key`, addressed on `listener` (the one the
    // request came in on). May create the coordinator's internal topic.
    virtual boost::asio::awaitable<CoordinatorLocation> locate(std::string key, std::string listener) = 0;
};

}  // namespace weir::handlers
