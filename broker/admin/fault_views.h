#pragma once
// The fault injection API (weir.admin.faults.enable):
//   POST   /v1/faults       {"api": "Produce", "topic": "t", "partition": 0, "action": "error",
//                            "error": "NOT_LEADER_OR_FOLLOWER", "count": 3}
//   GET    /v1/faults       every fault with how often it fired
//   DELETE /v1/faults/{id}  and  DELETE /v1/faults
// `api` by name or key; `topic`, `partition` and `count` optional; actions
// error (with `error` by name or code), delay (with `delay_ms`), disconnect,
// drop (never answer).
#include <boost/json/value.hpp>
#include <string_view>
#include <variant>

#include "broker/admin/http_message.h"
#include "broker/faults/fault_injector.h"

namespace weir::admin {

// A fault from a POST body, or why it is refused (the message of a 400).
std::variant<faults::FaultSpec, std::string> parse_fault(std::string_view body);
boost::json::value fault_json(const faults::Fault& fault);
boost::json::value faults_json(const faults::FaultInjector& faults);

}  // namespace weir::admin
