#pragma once
// What the admin endpoints read: the broker's parts, by reference, owned by
// the Broker (or a test's BrokerCore). Everything runs on the I/O thread.
#include <cstddef>
#include <functional>

#include "broker/faults/fault_injector.h"
#include "broker/handler_api/broker_context.h"
#include "broker/metrics/metrics_registry.h"

namespace weir::storage {
class LogManager;
}

namespace weir::admin {

struct AdminContext {
    handlers::BrokerContext& broker;  // config, metadata, partitions, the group coordinator
    storage::LogManager& logs;        // partition sizes on disk
    metrics::MetricsRegistry& metrics;
    // Open Kafka client connections (weir_connections).
    std::function<std::size_t()> open_connections = [] { return std::size_t{0}; };
    // Logs recovered and every coordinator partition this broker leads loaded,
    // and not shutting down (GET /readyz).
    std::function<bool()> ready = [] { return true; };
    // Null unless weir.admin.faults.enable: /v1/faults is then 404.
    faults::FaultInjector* faults = nullptr;
};

}  // namespace weir::admin
