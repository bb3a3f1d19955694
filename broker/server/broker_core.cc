#include "broker/server/broker_core.h"

#include <fmt/ranges.h>

#include "broker/common/logging.h"
#include "broker/config/config_def.h"
#include "broker/config/config_keys.h"
#include "broker/config/topic_config.h"
#include "broker/metadata/open_store.h"

namespace weir::server {

namespace {

storage::CleanerOptions cleaner_options(const config::BrokerConfig& c) {
    storage::CleanerOptions o;
    auto threads = config::as_int(c.static_value("log.cleaner.threads"));
    // Kafka starts no cleaner thread for log.cleaner.threads=0.
    o.enabled = c.log_cleaner_enable && threads > 0;
    auto dedupe = config::as_int(c.static_value("log.cleaner.dedupe.buffer.size"));
    o.dedupe_buffer_bytes =
        static_cast<std::size_t>(std::max<std::int64_t>(dedupe / std::max<std::int64_t>(threads, 1), 1));
    return o;
}

}  // namespace

partitions::LogConfig log_config_for(const config::BrokerConfig& config, const metadata::MetadataSnapshot& snapshot,
                                     const std::string& topic) {
    auto info = snapshot.topic(topic);
    auto log_config = config::resolve_topic_config(config, info ? info->configs : config::ConfigMap{},
                                                   snapshot.dynamic_broker_configs(config.broker_id))
                          .log;
    // The group coordinator compacts its own log (__consumer_offsets) by
    // re-appending a snapshot of the live records; the log cleaner keeps out.
    if (info && info->internal) log_config.cleanup_compact = false;
    return log_config;
}

BrokerCore::BrokerCore(const config::BrokerConfig& config, boost::asio::any_io_executor executor)
    : config_(config), executor_(executor), gate_(executor, "broker core") {
    metadata_ = metadata::open_metadata_store(config_, executor);
    auto config_for_topic = [this](const std::string& topic) {
        return log_config_for(config_, *metadata_->snapshot(), topic);
    };
    storage::LogManagerOptions log_options;
    log_options.log_dirs = config_.log_dirs;
    log_options.config_for_topic = config_for_topic;
    log_options.cleaner = cleaner_options(config_);
    log_options.max_open_files = static_cast<std::size_t>(config_.log_max_open_files);
    // Rolls, checkpoints and cleaned segments are synced by the log
    // manager's own thread (as Kafka's scheduler flushes a rolled segment),
    // so the I/O thread never waits on fsync.
    log_options.background_sync = true;
    log_options.recovery_threads_per_dir =
        static_cast<std::size_t>(config::as_int(config_.static_value("num.recovery.threads.per.data.dir")));
    log_options.on_dir_offline = [this](const std::filesystem::path&, const std::string&) {
        // Not from inside the failed call: its caller still holds the partition.
        gate_.post([this] {
            if (partitions_) partitions_->log_dir_failed();
            if (on_log_dir_offline_) on_log_dir_offline_();
        });
    };
    logs_ = std::make_unique<storage::LogManager>(std::move(log_options));
    partitions_ = std::make_unique<partitions::ReplicaManager>(executor, *logs_, config_for_topic, config_.broker_id);
    if (!config_.single_node()) {
        // Cluster mode: followers fetch from their leaders, leaders keep
        // their ISR in the metadata.
        fetchers_ = std::make_unique<replication::ReplicaFetcherManager>(
            executor, replication::FetcherOptions::from(config_), *metadata_, *partitions_);
        partitions_->set_isr_proposer(
            [this](const TopicPartition& tp, std::int32_t epoch, std::vector<std::int32_t> isr) {
                gate_.spawn(propose_isr(tp, epoch, std::move(isr)));
            },
            std::chrono::milliseconds(config_.replica_lag_time_max_ms));
    }
    context_ = std::make_unique<handlers::BrokerContext>(
        handlers::BrokerContext{config_, *metadata_, *partitions_, std::move(executor)});
    context_->fetch_sessions = handlers::FetchSessionCache(
        {.max_slots = static_cast<std::size_t>(config_.max_incremental_fetch_session_cache_slots)});

    // Partitions follow metadata: created, grown, deleted, reconfigured.
    listener_ = metadata_->add_listener([this](const metadata::MetadataChange& change) { on_metadata_change(change); });
    for (const auto& topic : metadata_->topics()) host(*topic);
    for (const auto& tp : logs_->partitions())
        if (!metadata_->topic(tp.topic)) logs_->remove(tp);
}

BrokerCore::~BrokerCore() { shutdown(); }

boost::asio::awaitable<void> BrokerCore::stopped() {
    if (fetchers_) {
        fetchers_->stop();
        co_await fetchers_->stopped();
    }
    gate_.close();
    co_await gate_.wait();
}

void BrokerCore::shutdown() {
    if (!logs_) return;
    if (listener_) metadata_->remove_listener(*listener_);
    listener_.reset();
    if (fetchers_) fetchers_->stop();
    partitions_->wake_all();
    partitions_->write_producer_snapshots();
    partitions_->checkpoint_high_watermarks();
    context_.reset();
    fetchers_.reset();
    partitions_.reset();
    logs_->shutdown();
    logs_.reset();
}

void BrokerCore::host(const metadata::TopicInfo& topic) {
    for (const auto& p : topic.partitions) {
        TopicPartition tp{topic.name, p.partition};
        partitions_->apply(tp, {p.leader, p.leader_epoch, p.replicas, p.isr});
        if (fetchers_) fetchers_->update(tp);
    }
}

boost::asio::awaitable<void> BrokerCore::propose_isr(TopicPartition tp, std::int32_t leader_epoch,
                                                     std::vector<std::int32_t> isr) {
    auto call = metadata_->alter_partition_isr(tp, leader_epoch, isr);
    auto status = co_await std::move(call);
    if (status.ok()) {
        logging::info("{}: ISR now [{}] (leader epoch {})", tp.to_string(), fmt::join(isr, ","), leader_epoch);
    } else {
        logging::info("{}: ISR change refused: {}", tp.to_string(), status.message);
    }
}

void BrokerCore::on_metadata_change(const metadata::MetadataChange& change) {
    using Kind = metadata::MetadataChange::Kind;
    switch (change.kind) {
        case Kind::topic_created:
        case Kind::partitions_added:
        case Kind::partition_state_changed:
            if (change.after) host(*change.after);
            break;
        case Kind::topic_deleted:
            if (fetchers_ && change.before)
                for (const auto& p : change.before->partitions) fetchers_->remove({change.topic, p.partition});
            partitions_->remove_topic(change.topic);
            break;
        case Kind::topic_configs_changed:
            partitions_->topic_config_changed(change.topic);
            break;
        case Kind::brokers_changed:
            break;
        case Kind::broker_configs_changed:
            // New broker defaults reach every log without its own override
            // (Kafka's DynamicLogConfig.updateLogsConfig).
            if (!change.broker_id || *change.broker_id == config_.broker_id)
                for (const auto& topic : metadata_->topics()) partitions_->topic_config_changed(topic->name);
            break;
    }
}

}  // namespace weir::server
