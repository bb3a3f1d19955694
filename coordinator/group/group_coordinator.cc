#include "coordinator/group/group_coordinator.h"

#include "coordinator/group/coordinator_service.h"

namespace weir::coordinator {

std::unique_ptr<handlers::GroupService> make_group_coordinator(handlers::BrokerContext& broker) {
    return std::make_unique<CoordinatorService>(broker);
}

}  // namespace weir::coordinator
