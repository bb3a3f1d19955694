#pragma once
// The broker's group coordinator (Kafka's consumer groups and committed
// offsets), built over the broker's parts. See coordinator/README.md.
#include <memory>

#include "broker/handlers/broker_context.h"
#include "broker/handlers/group_service.h"

namespace weir::coordinator {

std::unique_ptr<handlers::GroupService> make_group_coordinator(handlers::BrokerContext& broker);

}  // namespace weir::coordinator
