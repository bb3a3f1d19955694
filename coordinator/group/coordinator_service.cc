// Lifecycle, request admission, effects and timers of the coordinator.
#include "coordinator/group/coordinator_service.h"

#include <chrono>
#include <deque>

#include "broker/common/logging.h"
#include "coordinator/group/error_mapping.h"
#include "coordinator/group/partitioner.h"

namespace weir::coordinator {

namespace asio = boost::asio;

namespace {

// java.util.UUID.randomUUID().toString() format.
std::string random_uuid(std::mt19937_64& random) {
    std::uint64_t hi = random();
    std::uint64_t lo = random();
    hi = (hi & ~0xF000ULL) | 0x4000ULL;              // version 4
    lo = (lo & ~(0xC0ULL << 56)) | (0x80ULL << 56);  // IETF variant
    return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", hi >> 32, (hi >> 16) & 0xFFFF, hi & 0xFFFF, lo >> 48,
                       lo & 0xFFFFFFFFFFFFULL);
}

GroupConfig group_config(const config::BrokerConfig& c) {
    GroupConfig g;
    g.min_session_timeout_ms = c.group_min_session_timeout_ms;
    g.max_session_timeout_ms = c.group_max_session_timeout_ms;
    g.max_size = c.group_max_size;
    g.initial_rebalance_delay_ms = c.group_initial_rebalance_delay_ms;
    return g;
}

// __consumer_offsets as Kafka creates and keeps it.
runtime::CoordinatorRuntime::Options runtime_options(const handlers::BrokerContext& broker,
                                                     CoordinatorService::Clock clock) {
    const auto& c = broker.config;
    runtime::CoordinatorRuntime::Options o;
    o.topic.name = std::string(store::kOffsetsTopic);
    o.topic.partitions = std::max(c.offsets_topic_num_partitions, 1);
    o.topic.replication_factor = [&c](int brokers) { return c.internal_topic_replication_factor(brokers); };
    o.topic.configs = {{"cleanup.policy", "compact"},
                       {"compression.type", "producer"},
                       {"segment.bytes", std::to_string(c.offsets_topic_segment_bytes)}};
    o.partitioner = [](std::string_view group_id, std::int32_t partitions) {
        return store::partition_for(group_id, partitions);
    };
    o.load_buffer_bytes = static_cast<std::size_t>(std::max(c.offsets_load_buffer_size, 1));
    o.write_timeout = std::chrono::milliseconds(std::max(c.offsets_commit_timeout_ms, 1));
    o.compaction_policy = [&broker] {
        return runtime::compaction_policy_for(broker.topic_config(store::kOffsetsTopic));
    };
    o.clock = std::move(clock);
    o.stopping = [&broker] { return broker.stopping(); };
    return o;
}

}  // namespace

CoordinatorService::CoordinatorService(handlers::BrokerContext& broker, Options options)
    : broker_(broker),
      clock_(options.clock ? std::move(options.clock) : Clock(runtime::wall_clock_ms)),
      random_(std::random_device{}()),
      core_(group_config(broker.config), options.member_ids
                                             ? std::move(options.member_ids)
                                             : GroupManager::MemberIdGenerator([this](std::string_view prefix) {
                                                   return std::string(prefix) + "-" + random_uuid(random_);
                                               })),
      runtime_(broker.metadata, broker.partitions, broker.executor, runtime_options(broker, clock_), *this),
      deadline_timer_(runtime_.add_deadline_timer([this] { on_deadline(); })),
      gate_(broker.executor, "group coordinator") {
    // Offset expiry, then compaction of what it left behind.
    runtime_.add_periodic_task(
        std::chrono::milliseconds(std::max<std::int64_t>(broker.config.offsets_retention_check_interval_ms, 1)),
        [this, pass = gate_.pass()]() -> Task<void> {
            co_await expire_offsets_now();
            if (pass.open()) compact_now(false);
        });
}

CoordinatorService::~CoordinatorService() {
    gate_.close();
    if (listener_) broker_.metadata.remove_listener(*listener_);
}

void CoordinatorService::start() {
    // Store listeners may run on another thread (ZooKeeper): hop to ours.
    listener_ = broker_.metadata.add_listener(
        gate_.on_executor([this](const metadata::MetadataChange& change) { on_metadata_change(change); }));
    runtime_.start();
}

void CoordinatorService::stop() {
    if (!runtime_.active()) return;
    runtime_.stop();
    Effects fx;
    core_.abort_all(ErrorCode::not_coordinator, fx);
    run(std::move(fx));
}

Task<void> CoordinatorService::stopped() {
    gate_.close();
    co_await gate_.wait();
    co_await runtime_.stopped();
}

Task<handlers::CoordinatorLocation> CoordinatorService::locate(std::string group_id, std::string listener) {
    auto located = co_await runtime_.locate(std::move(group_id), std::move(listener));
    handlers::CoordinatorLocation out;
    out.error = located.error;
    out.message = std::move(located.message);
    out.node_id = located.node_id;
    out.host = std::move(located.host);
    out.port = located.port;
    co_return out;
}

std::optional<ErrorCode> CoordinatorService::group_status(std::string_view group_id, Api api) const {
    // Kafka accepts the empty group id where old clients used it (commits,
    // fetches, describe, delete); group management needs a real one.
    bool empty_ok =
        api == Api::offset_commit || api == Api::offset_fetch || api == Api::describe || api == Api::delete_groups;
    if (group_id.empty() && !empty_ok) return ErrorCode::invalid_group_id;
    return runtime_.status(partition_for(group_id));
}

void CoordinatorService::run(Effects effects) {
    std::deque<Effects> queue;
    queue.push_back(std::move(effects));
    while (!queue.empty()) {
        Effects fx = std::move(queue.front());
        queue.pop_front();
        for (const auto& line : fx.logged)
            logging::info("group coordinator: {} ({}-{})", line.text, store::kOffsetsTopic,
                          partition_for(line.group_id));
        for (auto& [id, result] : fx.joins) {
            if (auto it = joins_.find(id); it != joins_.end()) {
                it->second->complete(std::move(result));
                joins_.erase(it);
            }
        }
        for (auto& [id, result] : fx.syncs) {
            if (auto it = syncs_.find(id); it != syncs_.end()) {
                it->second->complete(std::move(result));
                syncs_.erase(it);
            }
        }
        for (auto& store : fx.stores) {
            std::vector<store::KeyValue> records{
                {store::group_metadata_key(store.group_id), store::group_metadata_value(store.value)}};
            auto appended = runtime_.append(partition_for(store.group_id), records);
            if (!appended.complete()) {
                gate_.spawn(finish_store(std::move(appended), store.store_id));
                continue;
            }
            Effects more;
            core_.on_store_complete(now(), store.store_id, map_group_store_error(appended.error), more);
            queue.push_back(std::move(more));
        }
    }
    arm_deadline();
}

Task<void> CoordinatorService::finish_store(runtime::CoordinatorRuntime::Appended appended, std::uint64_t store_id) {
    auto error = co_await runtime_.await_replicated(std::move(appended));
    Effects fx;
    core_.on_store_complete(now(), store_id, map_group_store_error(error), fx);
    run(std::move(fx));
}

void CoordinatorService::arm_deadline() {
    if (!runtime_.active()) return;
    if (auto next = core_.next_deadline()) deadline_timer_.arm(*next);
}

void CoordinatorService::on_deadline() {
    if (!runtime_.active()) return;
    Effects fx;
    core_.advance(now(), fx);
    run(std::move(fx));
}

}  // namespace weir::coordinator
