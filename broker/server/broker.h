#pragma once
// One Weir broker process: a BrokerCore (metadata, storage, partitions), the
// group coordinator, the dispatcher and the listeners, run on one I/O thread.
#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "broker/admin/admin_server.h"
#include "broker/admin/metadata_metrics.h"
#include "broker/config/broker_config.h"
#include "broker/dispatch/dispatcher.h"
#include "broker/faults/fault_injector.h"
#include "broker/handler_api/broker_context.h"
#include "broker/handler_api/group_service.h"
#include "broker/handler_api/transaction_service.h"
#include "broker/metadata/cluster_service.h"
#include "broker/metrics/metrics_registry.h"
#include "broker/net/listener.h"
#include "broker/server/broker_core.h"
#include "broker/storage/log_scrubber.h"

namespace weir::metadata {
class ZkMetadataStore;
}

namespace weir::server {

// Builds the group coordinator over the broker's parts (coordinator/ depends
// on the broker, so main wires it in).
using GroupServiceFactory = std::function<std::unique_ptr<handlers::GroupService>(handlers::BrokerContext&)>;
// Builds the transaction coordinator likewise.
using TransactionServiceFactory =
    std::function<std::unique_ptr<handlers::TransactionService>(handlers::BrokerContext&)>;
// Builds the cluster controller, or nullptr when the metadata backend needs
// none (single node).
using ControllerFactory =
    std::function<std::unique_ptr<metadata::ClusterService>(metadata::MetadataStore&, const config::BrokerConfig&)>;

class Broker {
public:
    Broker(config::BrokerConfig config, GroupServiceFactory groups, ControllerFactory controller = {},
           TransactionServiceFactory transactions = {});
    ~Broker();
    Broker(const Broker&) = delete;
    Broker& operator=(const Broker&) = delete;

    // Opens storage and metadata, binds every listener (throws on failure),
    // then serves until stop() or SIGTERM/SIGINT. Returns the exit code.
    int run();
    // Stop accepting, wake parked fetches, let in-flight requests finish,
    // flush and close storage. Safe to call from any handler or signal.
    void stop();

private:
    void start();
    void start_admin(const config::AdminListener& where);
    boost::asio::awaitable<void> hand_over_leadership(metadata::ZkMetadataStore& zk);
    void finish_stop();
    // The owners' background tasks, each ended (their gates' wait()).
    boost::asio::awaitable<void> background_stopped();
    void close_and_stop_io(bool timed_out);
    // After a log dir went offline: the metric, and a stop once none is left.
    void log_dir_offline();
    // Takes the Kafka listeners down or up as broker_down faults say.
    void apply_broker_down();
    void schedule_periodic();
    // True once `interval_ms` has passed since `last` (then moved to now).
    static bool due(std::chrono::steady_clock::time_point& last, std::int64_t interval_ms);
    [[nodiscard]] std::int64_t static_int(std::string_view key) const;
    // producer.id.expiration.check.interval.ms has passed since the last check.
    [[nodiscard]] std::int64_t producer_id_expiration_ms() const;
    void schedule_cleaner(std::chrono::steady_clock::duration delay);
    // weir.log.scrub.*: one step a tenth of a second at the configured rate.
    void schedule_scrub(std::chrono::milliseconds delay);
    [[nodiscard]] std::chrono::milliseconds cleaner_backoff() const;

    config::BrokerConfig config_;
    boost::asio::io_context io_{1};
    // Before everything that counts into it.
    metrics::MetricsRegistry metrics_;
    faults::FaultInjector faults_;
    bool faults_enabled_ = false;
    std::unique_ptr<BrokerCore> core_;
    GroupServiceFactory group_factory_;
    std::unique_ptr<handlers::GroupService> groups_;
    TransactionServiceFactory transaction_factory_;
    std::unique_ptr<handlers::TransactionService> transactions_;
    ControllerFactory controller_factory_;
    std::unique_ptr<metadata::ClusterService> controller_;
    std::unique_ptr<dispatch::Dispatcher> dispatcher_;
    std::shared_ptr<net::MemoryBudget> request_memory_;
    std::shared_ptr<net::ConnectionQuotas> connection_quotas_;
    std::vector<std::unique_ptr<net::Listener>> listeners_;
    std::unique_ptr<admin::MetadataMetrics> metadata_metrics_;
    std::unique_ptr<admin::AdminServer> admin_;
    boost::asio::steady_timer periodic_{io_};
    boost::asio::steady_timer cleaner_timer_{io_};
    boost::asio::steady_timer broker_up_timer_{io_};
    boost::asio::steady_timer scrub_timer_{io_};
    boost::asio::steady_timer shutdown_bound_{io_};
    bool io_stopping_ = false;
    std::unique_ptr<storage::LogScrubber> scrubber_;
    std::int64_t scrub_bytes_per_second_ = 0;
    bool listeners_down_ = false;
    std::chrono::steady_clock::time_point last_retention_ = std::chrono::steady_clock::now();
    std::chrono::steady_clock::time_point last_producer_expiration_ = std::chrono::steady_clock::now();
    std::chrono::steady_clock::time_point last_high_watermark_checkpoint_ = std::chrono::steady_clock::now();
    bool stopped_ = false;
    int exit_code_ = 0;
};

}  // namespace weir::server
