#pragma once
// The broker's group coordinator (Kafka's consumer groups and committed
// offsets), built over the broker's parts. See coordinator/README.md.
#include <memory>

#include "broker/handler_api/broker_context.h"
#include "broker/handler_api/group_service.h"

namespace weir::coordinator {

std::unique_ptr<handlers::GroupService> make_group_coordinator(handlers::BrokerContext& broker);

}  // namespace weir::coordinator
