#include "broker/server/broker.h"

#include <malloc.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/signal_set.hpp>
#include <chrono>

#include "broker/common/logging.h"
#include "broker/config/config_def.h"
#include "broker/config/config_keys.h"
#include "broker/config/dynamic_broker_config.h"
#include "broker/metadata/open_store.h"
#include "broker/metadata/zookeeper/zk_metadata_store.h"

namespace weir::server {

namespace asio = boost::asio;

namespace {

asio::ip::tcp::endpoint bind_endpoint(const std::string& host, std::uint16_t port) {
    if (host.empty()) return {asio::ip::tcp::v6(), port};
    asio::ip::tcp::resolver resolver(asio::system_executor{});
    auto results = resolver.resolve(host, std::to_string(port), asio::ip::tcp::resolver::numeric_service);
    return results.begin()->endpoint();
}

}  // namespace

Broker::Broker(config::BrokerConfig config, GroupServiceFactory groups, ControllerFactory controller,
               TransactionServiceFactory transactions)
    : config_(std::move(config)),
      group_factory_(std::move(groups)),
      transaction_factory_(std::move(transactions)),
      controller_factory_(std::move(controller)) {}

Broker::~Broker() = default;

void Broker::start() {
    auto t0 = std::chrono::steady_clock::now();
    core_ = std::make_unique<BrokerCore>(config_, io_.get_executor());
    core_->on_log_dir_offline([this] { log_dir_offline(); });
    // A dir that failed while the core hosted its partitions went unheard.
    if (!core_->logs().offline_dirs().empty()) log_dir_offline();
    groups_ = group_factory_(core_->context());
    core_->context().group_service = groups_.get();
    if (transaction_factory_) {
        transactions_ = transaction_factory_(core_->context());
        core_->context().transaction_service = transactions_.get();
        core_->context().transaction_locator = &transactions_->locator();
    }
    faults_enabled_ = config::as_bool(config_.static_value("weir.admin.faults.enable"));
    if (faults_enabled_) {
        logging::warn("fault injection is on (weir.admin.faults.enable): /v1/faults can break requests");
        faults_.on_change([this] { apply_broker_down(); });
    }
    dispatcher_ =
        std::make_unique<dispatch::Dispatcher>(core_->context(), metrics_, faults_enabled_ ? &faults_ : nullptr);
    metadata_metrics_ = std::make_unique<admin::MetadataMetrics>(core_->metadata(), metrics_, config_.broker_id);

    groups_->start();
    if (transactions_) transactions_->start();

    net::ConnectionLimits limits;
    limits.max_request_bytes = config_.socket_request_max_bytes;
    limits.max_idle = std::chrono::milliseconds(config_.connections_max_idle_ms);
    limits.stall_timeout = std::chrono::milliseconds(config_.connection_stall_timeout_ms);
    request_memory_ = std::make_shared<net::MemoryBudget>(io_.get_executor(), config_.queued_max_request_bytes);
    net::ConnectionQuotaConfig quotas;
    quotas.max_connections = config_.max_connections;
    quotas.max_connections_per_ip = config_.max_connections_per_ip;
    quotas.per_ip_overrides = net::parse_per_ip_overrides(config_.max_connections_per_ip_overrides);
    connection_quotas_ = std::make_shared<net::ConnectionQuotas>(io_.get_executor(), std::move(quotas));
    for (const auto& l : config_.listeners) {
        auto listener = std::make_unique<net::Listener>(io_.get_executor(), bind_endpoint(l.host, l.port), l.name,
                                                        *dispatcher_, limits, request_memory_, connection_quotas_);
        listener->start();
        logging::info("listening on {} ({})", l.to_string(), listener->local_endpoint().address().to_string());
        listeners_.push_back(std::move(listener));
    }
    if (config_.admin_listener) start_admin(*config_.admin_listener);
    if (controller_factory_) controller_ = controller_factory_(core_->metadata(), config_);
    if (controller_) controller_->start();
    schedule_periodic();
    if (core_->logs().cleaner().enabled()) schedule_cleaner(std::chrono::milliseconds(0));
    scrub_bytes_per_second_ = config::as_int(config_.static_value("weir.log.scrub.bytes.per.second"));
    if (scrub_bytes_per_second_ > 0) {
        scrubber_ = std::make_unique<storage::LogScrubber>(core_->logs());
        schedule_scrub(std::chrono::milliseconds(0));
    }
    auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    logging::info("Weir broker {} started in {:.1f} ms (cluster id {}, {} topics, log.dirs {})", config_.broker_id, ms,
                  core_->metadata().cluster_id(), core_->metadata().topics().size(), config_.log_dirs.front().string());
}

void Broker::start_admin(const config::AdminListener& where) {
    admin::AdminContext context{core_->context(), core_->logs(), metrics_};
    context.open_connections = [this] {
        std::size_t n = 0;
        for (const auto& l : listeners_) n += l->open_connections();
        return n;
    };
    context.ready = [this] { return !stopped_ && !groups_->loading() && !(transactions_ && transactions_->loading()); };
    if (faults_enabled_) context.faults = &faults_;
    admin_ = std::make_unique<admin::AdminServer>(std::move(context), bind_endpoint(where.host, where.port));
    admin_->start();
    const auto bound = admin_->local_endpoint();
    const auto address =
        bound.address().is_v6() ? "[" + bound.address().to_string() + "]" : bound.address().to_string();
    logging::info("admin listener on http://{}:{}", address, bound.port());
}

void Broker::apply_broker_down() {
    if (stopped_) return;
    const bool down = faults_.broker_down(std::chrono::steady_clock::now());
    if (down != listeners_down_) {
        listeners_down_ = down;
        if (down) {
            for (auto& l : listeners_) l->pause();
            logging::warn("injected fault: Kafka listeners down (connections closed, new ones refused)");
        } else {
            for (auto& l : listeners_) l->resume();
            logging::warn("injected fault over: Kafka listeners up again");
        }
    }
    broker_up_timer_.cancel();
    if (auto up = faults_.next_broker_up()) {
        broker_up_timer_.expires_at(*up);
        broker_up_timer_.async_wait([this](boost::system::error_code ec) {
            if (!ec) apply_broker_down();
        });
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
            core_->logs().flush_due();
            if (due(last_retention_, config_.log_retention_check_interval_ms)) core_->logs().enforce_retention();
            core_->logs().checkpoint();
            core_->partitions().maintain_isrs();
            // Give the heap back after large request frames (see MemoryBudget).
            if (request_memory_ && request_memory_->take_trim_hint()) malloc_trim(0);
            if (due(last_producer_expiration_, static_int("producer.id.expiration.check.interval.ms")))
                core_->partitions().remove_expired_producers(producer_id_expiration_ms());
            if (due(last_high_watermark_checkpoint_, static_int("replica.high.watermark.checkpoint.interval.ms")))
                core_->partitions().checkpoint_high_watermarks();
        } catch (const std::exception& e) {
            logging::error("periodic log maintenance failed: {}", e.what());
        }
        schedule_periodic();
    });
}

void Broker::schedule_cleaner(std::chrono::steady_clock::duration delay) {
    // The cleaner works in bounded steps on this thread (see LogCleanerManager).
    // Queued straight behind each other, steps would leave a pipelined
    // connection one hop of the event loop per step; pausing after each for a
    // time in proportion to its cost lets everything that queued meanwhile
    // run to completion. When nothing is worth cleaning it sleeps
    // log.cleaner.backoff.ms, as Kafka's cleaner threads do.
    cleaner_timer_.expires_after(delay);
    cleaner_timer_.async_wait([this](boost::system::error_code ec) {
        if (ec || stopped_) return;
        bool working = false;
        auto started = std::chrono::steady_clock::now();
        try {
            working = core_->logs().clean_step();
        } catch (const std::exception& e) {
            logging::error("log cleaner failed: {}", e.what());
        }
        if (!working) {
            schedule_cleaner(cleaner_backoff());
            return;
        }
        schedule_cleaner(core_->logs().cleaner().pause_after(std::chrono::steady_clock::now() - started));
    });
}

void Broker::schedule_scrub(std::chrono::milliseconds delay) {
    scrub_timer_.expires_after(delay);
    scrub_timer_.async_wait([this](boost::system::error_code ec) {
        if (ec || stopped_) return;
        auto next = std::chrono::milliseconds(100);
        try {
            const auto step_bytes = std::max<std::int64_t>(scrub_bytes_per_second_ / 10, 1);
            for (const auto& f : scrubber_->step(static_cast<std::size_t>(step_bytes)))
                logging::error("log scrub: {} ({}) is damaged at position {}: {}", f.file.string(), f.tp.to_string(),
                               f.position, f.problem);
            const auto& t = scrubber_->totals();
            metrics_.set_scrub({t.bytes, t.damaged_segments, t.passes});
            if (scrubber_->pass_finished()) {
                logging::info("log scrub pass {} done: {} segments, {} bytes checked so far, {} damaged", t.passes,
                              t.segments, t.bytes, t.damaged_segments);
                next = std::chrono::milliseconds(config::as_int(config_.static_value("weir.log.scrub.interval.ms")));
            }
        } catch (const std::exception& e) {
            logging::error("log scrub failed: {}", e.what());
            next = std::chrono::seconds(10);
        }
        schedule_scrub(next);
    });
}

std::chrono::milliseconds Broker::cleaner_backoff() const {
    auto props = config::current_broker_props(config_.static_props,
                                              core_->metadata().snapshot()->dynamic_broker_configs(config_.broker_id));
    return std::chrono::milliseconds(
        std::max<std::int64_t>(config::as_int(config::broker_value_or_default(props, "log.cleaner.backoff.ms")), 0));
}

bool Broker::due(std::chrono::steady_clock::time_point& last, std::int64_t interval_ms) {
    auto now = std::chrono::steady_clock::now();
    if (now - last < std::chrono::milliseconds(interval_ms)) return false;
    last = now;
    return true;
}

std::int64_t Broker::static_int(std::string_view key) const { return config::as_int(config_.static_value(key)); }

std::int64_t Broker::producer_id_expiration_ms() const {
    // Dynamic (KIP-226), as in Kafka.
    auto props = config::current_broker_props(config_.static_props,
                                              core_->metadata().snapshot()->dynamic_broker_configs(config_.broker_id));
    return config::as_int(config::broker_value_or_default(props, "producer.id.expiration.ms"));
}

void Broker::stop() {
    if (stopped_) return;
    stopped_ = true;
    logging::info("shutting down");
    auto* zk = core_ ? dynamic_cast<metadata::ZkMetadataStore*>(&core_->metadata()) : nullptr;
    if (zk && config::as_bool(config_.static_value("controlled.shutdown.enable"))) {
        asio::co_spawn(io_, hand_over_leadership(*zk), asio::detached);
        return;
    }
    finish_stop();
}

// Kafka's controlled shutdown, through ZooKeeper: this broker's registration
// goes first, so the controller moves its leadership to other in-sync
// replicas while it still answers (clients are told NOT_LEADER_OR_FOLLOWER
// and follow); then the broker stops. Bounded: partitions it alone holds
// stay with it.
asio::awaitable<void> Broker::hand_over_leadership(metadata::ZkMetadataStore& zk) {
    auto deregistered = zk.deregister();
    co_await std::move(deregistered);
    const auto me = config_.broker_id;
    const std::function<bool(const metadata::MetadataSnapshot&)> moved = [me](const metadata::MetadataSnapshot& s) {
        for (const auto& [name, topic] : s.topics_by_name)
            for (const auto& p : topic->partitions)
                if (p.leader == me && p.isr.size() > 1) return false;
        return true;
    };
    auto waited = zk.wait_until(moved, std::chrono::milliseconds(10000));
    if (!co_await std::move(waited)) logging::warn("leadership did not move within 10 s; stopping anyway");
    finish_stop();
}

void Broker::finish_stop() {
    for (auto& l : listeners_) l->stop();
    if (admin_) admin_->stop();
    if (core_) {
        core_->context().stopping_flag = true;
        core_->partitions().wake_all();
    }
    if (groups_) groups_->stop();
    if (transactions_) transactions_->stop();
    if (controller_) controller_->stop();
    periodic_.cancel();
    cleaner_timer_.cancel();
    broker_up_timer_.cancel();
    scrub_timer_.cancel();
    // Give in-flight requests (now woken) a moment to be answered; then let
    // the background work end (an offset write, a marker round, a fetch),
    // so nothing that refers to a component is left running when it goes.
    // Bounded: a ZooKeeper call that never answers does not hold shutdown.
    auto grace = std::make_shared<asio::steady_timer>(io_, std::chrono::milliseconds(200));
    grace->async_wait([this, grace](boost::system::error_code) {
        shutdown_bound_.expires_after(std::chrono::seconds(5));
        shutdown_bound_.async_wait([this](boost::system::error_code ec) {
            if (!ec) close_and_stop_io(true);
        });
        asio::co_spawn(io_, background_stopped(), [this](std::exception_ptr) { close_and_stop_io(false); });
    });
}

asio::awaitable<void> Broker::background_stopped() {
    if (groups_) co_await groups_->stopped();
    if (transactions_) co_await transactions_->stopped();
    if (controller_) co_await controller_->stopped();
    if (core_) co_await core_->stopped();
}

void Broker::close_and_stop_io(bool timed_out) {
    if (std::exchange(io_stopping_, true)) return;
    if (timed_out) logging::warn("background tasks still running after 5 s; stopping anyway");
    shutdown_bound_.cancel();
    for (auto& l : listeners_) l->close_all();
    io_.stop();
}

void Broker::log_dir_offline() {
    metrics_.set_offline_log_dirs(core_->logs().offline_dirs().size());
    if (!core_->logs().all_dirs_offline() || stopped_) return;
    // As Kafka's broker halts when its last log dir fails.
    logging::error("every log dir is offline: shutting down");
    exit_code_ = 1;
    stop();
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
    admin_.reset();
    metadata_metrics_.reset();
    listeners_.clear();
    transactions_.reset();
    groups_.reset();
    controller_.reset();
    if (core_) core_->shutdown();
    if (exit_code_ == 0) logging::info("stopped cleanly");
    return exit_code_;
}

}  // namespace weir::server
