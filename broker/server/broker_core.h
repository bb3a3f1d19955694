#pragma once
// A broker without its network: the metadata store, the logs, the partition
// layer following the metadata, and the BrokerContext that handlers and
// coordinators run against. The weir binary and the handler and coordinator
// test fixtures build this same one, so what a test runs is wired as in
// production.
#include <boost/asio/any_io_executor.hpp>
#include <functional>
#include <memory>
#include <optional>

#include "broker/common/task_gate.h"
#include "broker/config/broker_config.h"
#include "broker/handler_api/broker_context.h"
#include "broker/metadata/metadata_store.h"
#include "broker/partitions/replica_manager.h"
#include "broker/replication/replica_fetcher.h"
#include "broker/storage/log_manager.h"

namespace weir::server {

// The log settings of a topic: broker defaults (static and dynamic) under its
// own overrides, as Kafka's LogConfig resolves them.
partitions::LogConfig log_config_for(const config::BrokerConfig& config, const metadata::MetadataSnapshot& snapshot,
                                     const std::string& topic);

class BrokerCore {
public:
    // Opens the metadata store the config names and the logs of every log dir,
    // then hosts the partitions the metadata assigns this broker. Logs on disk
    // of topics the metadata no longer knows (deleted while down) are removed.
    // `config` must outlive the core.
    BrokerCore(const config::BrokerConfig& config, boost::asio::any_io_executor executor);
    // Closes cleanly (flushed, checkpointed, marked clean), as shutdown().
    ~BrokerCore();
    BrokerCore(const BrokerCore&) = delete;
    BrokerCore& operator=(const BrokerCore&) = delete;

    [[nodiscard]] metadata::MetadataStore& metadata() { return *metadata_; }
    [[nodiscard]] partitions::ReplicaManager& partitions() { return *partitions_; }
    [[nodiscard]] handlers::BrokerContext& context() { return *context_; }
    // Periodic maintenance: flushes, retention, checkpoints, the log cleaner.
    [[nodiscard]] storage::LogManager& logs() { return *logs_; }

    // Called after a log dir went offline (see storage::LogDirHealth).
    void on_log_dir_offline(std::function<void()> listener) { on_log_dir_offline_ = std::move(listener); }

    // Stops the replica fetchers; resolves once their loops and the ISR
    // proposals the core started have ended (shutdown, before shutdown()).
    boost::asio::awaitable<void> stopped();

    // Stops following metadata, releases the partitions and closes the logs.
    // Idempotent; nothing may use the core afterwards but its destructor.
    void shutdown();

private:
    void on_metadata_change(const metadata::MetadataChange& change);
    void host(const metadata::TopicInfo& topic);
    boost::asio::awaitable<void> propose_isr(TopicPartition tp, std::int32_t leader_epoch,
                                             std::vector<std::int32_t> isr);

    const config::BrokerConfig& config_;
    std::unique_ptr<metadata::MetadataStore> metadata_;
    std::unique_ptr<storage::LogManager> logs_;
    std::unique_ptr<partitions::ReplicaManager> partitions_;
    std::unique_ptr<replication::ReplicaFetcherManager> fetchers_;
    boost::asio::any_io_executor executor_;
    std::unique_ptr<handlers::BrokerContext> context_;
    std::optional<metadata::MetadataStore::ListenerId> listener_;
    std::function<void()> on_log_dir_offline_;
    // Last: work it posted or spawned does nothing once the core is gone.
    common::TaskGate gate_;
};

}  // namespace weir::server
