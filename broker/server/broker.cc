#include "broker/server/broker.h"

#include <boost/asio/ip/address.hpp>
#include <boost/asio/signal_set.hpp>
#include <chrono>

#include "broker/common/logging.h"
#include "broker/config/config_def.h"
#include "broker/config/config_keys.h"
#include "broker/config/dynamic_broker_config.h"
#include "broker/metadata/open_store.h"

namespace weir::server {

namespace asio = boost::asio;

namespace {

storage::LogConfig to_log_config(const config::TopicConfig& t) {
    storage::LogConfig c;
    c.segment_bytes = t.segment_bytes;
    c.segment_ms = t.segment_ms;
    c.index_interval_bytes = t.index_interval_bytes;
    c.segment_index_bytes = t.segment_index_bytes;
    c.retention_ms = t.retention_ms;
    c.retention_bytes = t.retention_bytes;
    c.flush_interval_messages = t.flush_messages;
    c.flush_interval_ms = t.flush_ms;
    c.message_timestamp_type = t.message_timestamp_type;
    c.cleanup_delete = t.cleanup_policy.remove;
    c.cleanup_compact = t.cleanup_policy.compact;
    c.delete_retention_ms = t.delete_retention_ms;
    c.min_compaction_lag_ms = t.min_compaction_lag_ms;
    c.max_compaction_lag_ms = t.max_compaction_lag_ms;
    c.min_cleanable_dirty_ratio = t.min_cleanable_dirty_ratio;
    return c;
}

// A broker key as server.properties sets it, else Kafka's default.
std::string broker_value(const config::ConfigMap& props, const std::string& key) {
    if (auto it = props.find(key); it != props.end()) return it->second;
    const auto* k = config::find_broker_config_key(key);
    return k && k->default_value ? std::string(*k->default_value) : std::string();
}

storage::CleanerOptions cleaner_options(const config::BrokerConfig& c) {
    storage::CleanerOptions o;
    auto threads = config::as_int(broker_value(c.static_props, "log.cleaner.threads"));
    // Kafka starts no cleaner thread for log.cleaner.threads=0.
    o.enabled = c.log_cleaner_enable && threads > 0;
    auto dedupe = config::as_int(broker_value(c.static_props, "log.cleaner.dedupe.buffer.size"));
    o.dedupe_buffer_bytes = static_cast<std::size_t>(std::max<std::int64_t>(dedupe / std::max<std::int64_t>(threads, 1), 1));
    return o;
}

asio::ip::tcp::endpoint bind_endpoint(const config::Listener& l) {
    if (l.host.empty()) return {asio::ip::tcp::v6(), l.port};
    asio::ip::tcp::resolver resolver(asio::system_executor{});
    auto results = resolver.resolve(l.host, std::to_string(l.port), asio::ip::tcp::resolver::numeric_service);
    return results.begin()->endpoint();
}

}  // namespace

Broker::Broker(config::BrokerConfig config, GroupServiceFactory groups)
    : config_(std::move(config)), group_factory_(std::move(groups)) {}

Broker::~Broker() = default;

void Broker::start() {
    auto t0 = std::chrono::steady_clock::now();
    metadata_ = metadata::open_metadata_store(config_);

    auto config_for_topic = [this](const std::string& topic) {
        auto snapshot = metadata_->snapshot();
        auto info = snapshot->topic(topic);
        auto log_config = to_log_config(config::resolve_topic_config(
            config_, info ? info->configs : config::ConfigMap{}, snapshot->dynamic_broker_configs(config_.broker_id)));
        // The group coordinator compacts its own log (__consumer_offsets) by
        // re-appending a snapshot of the live records; the log cleaner keeps out.
        if (info && info->internal) log_config.cleanup_compact = false;
        return log_config;
    };
    storage::LogManagerOptions log_options;
    log_options.log_dirs = config_.log_dirs;
    log_options.config_for_topic = config_for_topic;
    log_options.cleaner = cleaner_options(config_);
    logs_ = std::make_unique<storage::LogManager>(std::move(log_options));

    partitions_ =
        std::make_unique<partitions::ReplicaManager>(io_.get_executor(), *logs_, config_for_topic, config_.broker_id);
    context_ = std::make_unique<handlers::BrokerContext>(
        handlers::BrokerContext{config_, *metadata_, *partitions_, io_.get_executor()});
    context_->fetch_sessions = handlers::FetchSessionCache({.max_slots = static_cast<std::size_t>(
        config_.max_incremental_fetch_session_cache_slots)});
    groups_ = group_factory_(*context_);
    context_->group_service = groups_.get();
    dispatcher_ = std::make_unique<dispatch::Dispatcher>(*context_);

    // Partitions follow metadata: created, grown, deleted, reconfigured.
    metadata_->add_listener([this](const metadata::MetadataChange& change) { on_metadata_change(change); });
    for (const auto& topic : metadata_->topics()) sync_partitions(*topic);
    // Logs on disk for topics the metadata no longer knows were deleted while down.
    for (const auto& tp : logs_->partitions())
        if (!metadata_->topic(tp.topic)) logs_->remove(tp);

    groups_->start();

    net::ConnectionLimits limits;
    limits.max_request_bytes = config_.socket_request_max_bytes;
    limits.max_idle = std::chrono::milliseconds(config_.connections_max_idle_ms);
    for (const auto& l : config_.listeners) {
        auto listener = std::make_unique<net::Listener>(io_.get_executor(), bind_endpoint(l), l.name, *dispatcher_, limits);
        listener->start();
        logging::info("listening on {} ({})", l.to_string(), listener->local_endpoint().address().to_string());
        listeners_.push_back(std::move(listener));
    }
    schedule_periodic();
    if (logs_->cleaner().enabled()) schedule_cleaner(std::chrono::milliseconds(0));
    auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    logging::info("Weir broker {} started in {:.1f} ms (cluster id {}, {} topics, log.dirs {})", config_.broker_id, ms,
                  metadata_->cluster_id(), metadata_->topics().size(), config_.log_dirs.front().string());
}

void Broker::sync_partitions(const metadata::TopicInfo& topic) {
    for (const auto& p : topic.partitions)
        partitions_->apply({topic.name, p.partition}, {p.leader, p.leader_epoch, p.replicas, p.isr});
}

void Broker::on_metadata_change(const metadata::MetadataChange& change) {
    using Kind = metadata::MetadataChange::Kind;
    switch (change.kind) {
        case Kind::topic_created:
        case Kind::partitions_added:
        case Kind::partition_state_changed:
            if (change.after) sync_partitions(*change.after);
            break;
        case Kind::topic_deleted:
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

void Broker::schedule_periodic() {
    // Retention, time-based flushes and checkpoints. Kafka runs retention every
    // log.retention.check.interval.ms; flushes are checked more often so
    // flush.ms stays meaningful.
    auto interval = std::chrono::milliseconds(std::min<std::int64_t>(config_.log_retention_check_interval_ms, 1000));
    periodic_.expires_after(interval);
    periodic_.async_wait([this](boost::system::error_code ec) {
        if (ec || stopped_) return;
        try {
            logs_->flush_due();
            if (retention_due()) logs_->enforce_retention();
            logs_->checkpoint();
        } catch (const std::exception& e) {
            logging::error("periodic log maintenance failed: {}", e.what());
        }
        schedule_periodic();
    });
}

void Broker::schedule_cleaner(std::chrono::milliseconds delay) {
    // The cleaner works in bounded steps on this thread (see LogCleanerManager):
    // while one is under way the next step is queued behind whatever requests
    // arrived meanwhile; when nothing is worth cleaning it sleeps
    // log.cleaner.backoff.ms, as Kafka's cleaner threads do.
    cleaner_timer_.expires_after(delay);
    cleaner_timer_.async_wait([this](boost::system::error_code ec) {
        if (ec || stopped_) return;
        bool working = false;
        try {
            working = logs_->clean_step();
        } catch (const std::exception& e) {
            logging::error("log cleaner failed: {}", e.what());
        }
        schedule_cleaner(working ? std::chrono::milliseconds(0) : cleaner_backoff());
    });
}

std::chrono::milliseconds Broker::cleaner_backoff() const {
    auto props = config::current_broker_props(config_.static_props,
                                              metadata_->snapshot()->dynamic_broker_configs(config_.broker_id));
    return std::chrono::milliseconds(std::max<std::int64_t>(config::as_int(broker_value(props, "log.cleaner.backoff.ms")), 0));
}

bool Broker::retention_due() {
    auto now = std::chrono::steady_clock::now();
    if (now - last_retention_ < std::chrono::milliseconds(config_.log_retention_check_interval_ms)) return false;
    last_retention_ = now;
    return true;
}

void Broker::stop() {
    if (stopped_) return;
    stopped_ = true;
    logging::info("shutting down");
    for (auto& l : listeners_) l->stop();
    if (context_) context_->stopping_flag = true;
    if (partitions_) partitions_->wake_all();
    if (groups_) groups_->stop();
    periodic_.cancel();
    cleaner_timer_.cancel();
    // Give in-flight requests (now woken) a moment to be answered, then close.
    auto grace = std::make_shared<asio::steady_timer>(io_, std::chrono::milliseconds(200));
    grace->async_wait([this, grace](boost::system::error_code) {
        for (auto& l : listeners_) l->close_all();
        io_.stop();
    });
}

int Broker::run() {
    start();
    asio::signal_set signals(io_, SIGINT, SIGTERM);
    signals.async_wait([this](boost::system::error_code ec, int sig) {
        if (ec) return;
        logging::info("received signal {}", sig);
        stop();
    });
    io_.run();
    listeners_.clear();
    groups_.reset();
    if (logs_) logs_->shutdown();
    logging::info("stopped cleanly");
    return 0;
}

}  // namespace weir::server
