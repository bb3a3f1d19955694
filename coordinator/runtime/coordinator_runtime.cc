// Lifecycle, ownership of the internal topic's partitions and locating a
// key's coordinator.
#include "coordinator/runtime/coordinator_runtime.h"

#include <boost/asio/post.hpp>
#include <set>

#include "broker/common/logging.h"
#include "broker/partitions/replica_manager.h"

namespace weir::coordinator::runtime {

CompactionPolicy compaction_policy_for(const config::TopicConfig& topic) {
    CompactionPolicy p;
    p.min_cleanable_dirty_ratio = topic.log.min_cleanable_dirty_ratio;
    p.min_dirty_bytes = static_cast<std::uint64_t>(std::max<std::int64_t>(topic.log.segment_bytes, 0));
    p.delete_retention_ms = topic.log.delete_retention_ms;
    p.retention_ms = topic.log.retention_ms;
    return p;
}

namespace asio = boost::asio;

CoordinatorRuntime::CoordinatorRuntime(metadata::MetadataStore& metadata, partitions::ReplicaManager& partitions,
                                       asio::any_io_executor executor, Options options, Shard& shard)
    : metadata_(metadata),
      partitions_(partitions),
      executor_(std::move(executor)),
      options_(std::move(options)),
      shard_(shard),
      num_partitions_(std::max(options_.topic.partitions, 1)),
      gate_(executor_, options_.topic.name + " coordinator") {}

CoordinatorRuntime::~CoordinatorRuntime() {
    gate_.close();
    if (listener_) metadata_.remove_listener(*listener_);
    if (offline_listener_) partitions_.remove_offline_listener(*offline_listener_);
}

void CoordinatorRuntime::start() {
    active_ = true;
    // Store listeners may run on another thread (ZooKeeper): hop to ours.
    listener_ = metadata_.add_listener(
        gate_.on_executor([this](const metadata::MetadataChange& change) { on_metadata_change(change); }));
    // Called on our executor (the broker core posts it there).
    offline_listener_ = partitions_.add_offline_listener([this] { refresh_ownership(); });
    refresh_ownership();
    for (auto& task : periodic_tasks_) task->start();
}

void CoordinatorRuntime::stop() {
    if (!active_) return;
    active_ = false;
    for (auto& timer : deadline_timers_) timer->stop();
    for (auto& task : periodic_tasks_) task->stop();
}

asio::awaitable<void> CoordinatorRuntime::stopped() {
    gate_.close();
    for (auto& task : periodic_tasks_) co_await task->stopped();
    co_await gate_.wait();
}

DeadlineTimer& CoordinatorRuntime::add_deadline_timer(std::function<void()> on_deadline) {
    return *deadline_timers_.emplace_back(
        std::make_unique<DeadlineTimer>(executor_, options_.clock, std::move(on_deadline)));
}

PeriodicTask& CoordinatorRuntime::add_periodic_task(std::chrono::milliseconds interval, PeriodicTask::Body body) {
    auto& task = *periodic_tasks_.emplace_back(std::make_unique<PeriodicTask>(executor_, interval, std::move(body)));
    if (active_) task.start();
    return task;
}

std::int32_t CoordinatorRuntime::partition_for(std::string_view key) const {
    return options_.partitioner(key, num_partitions_);
}

std::optional<ErrorCode> CoordinatorRuntime::status(std::int32_t partition) const {
    if (!active_) return ErrorCode::coordinator_not_available;
    auto it = owned_.find(partition);
    if (it == owned_.end()) return ErrorCode::not_coordinator;
    if (!it->second.loaded) return ErrorCode::coordinator_load_in_progress;
    return std::nullopt;
}

bool CoordinatorRuntime::loading() const {
    for (const auto& [p, owned] : owned_)
        if (!owned.loaded) return true;
    return false;
}

std::vector<std::int32_t> CoordinatorRuntime::owned_partitions() const {
    std::vector<std::int32_t> out;
    for (const auto& [p, owned] : owned_) out.push_back(p);
    return out;
}

std::shared_ptr<partitions::Partition> CoordinatorRuntime::partition(std::int32_t partition) const {
    return partitions_.get({options_.topic.name, partition});
}

bool CoordinatorRuntime::offline_here(std::int32_t partition) const {
    auto local = this->partition(partition);
    return local && local->offline();
}

Task<metadata::TopicPtr> CoordinatorRuntime::ensure_topic() {
    const auto& spec = options_.topic;
    if (auto topic = metadata_.topic(spec.name)) co_return topic;
    // Created on first use, like Kafka's internal topics.
    metadata::NewTopic t;
    t.name = spec.name;
    t.num_partitions = std::max(spec.partitions, 1);
    t.replication_factor = spec.replication_factor
                               ? spec.replication_factor(static_cast<int>(metadata_.brokers().size()))
                               : std::int16_t{1};
    t.configs = spec.configs;
    auto result = co_await metadata_.create_topic(t, false);
    if (!result.ok() && result.error != ErrorCode::topic_already_exists) {
        logging::warn("cannot create {}: {}", spec.name, result.message);
        co_return nullptr;
    }
    if (result.ok())
        logging::info("created {} with {} partitions, replication factor {}", spec.name, t.num_partitions,
                      t.replication_factor);
    refresh_ownership();
    co_return metadata_.topic(spec.name);
}

void CoordinatorRuntime::refresh_ownership() {
    if (!active_) return;
    auto topic = metadata_.topic(options_.topic.name);
    std::set<std::int32_t> led;
    if (topic) {
        num_partitions_ = std::max<std::int32_t>(static_cast<std::int32_t>(topic->partitions.size()), 1);
        auto me = metadata_.local_broker_id();
        // A partition whose log dir failed is resigned, as Kafka's coordinators do.
        for (const auto& p : topic->partitions)
            if (p.leader == me && !offline_here(p.partition)) led.insert(p.partition);
    }
    std::vector<std::int32_t> lost;
    for (const auto& [p, owned] : owned_)
        if (!led.contains(p)) lost.push_back(p);
    for (auto p : lost) unload(p);
    for (auto p : led)
        if (!owned_.contains(p)) begin_load(p);
}

void CoordinatorRuntime::on_metadata_change(const metadata::MetadataChange& change) {
    if (!active_) return;
    if (change.topic == options_.topic.name || change.kind == metadata::MetadataChange::Kind::brokers_changed)
        refresh_ownership();
}

Task<Location> CoordinatorRuntime::locate(std::string key, std::string listener) {
    Location out;
    auto topic = co_await ensure_topic();
    if (!topic || topic->partitions.empty()) {
        out.error = ErrorCode::coordinator_not_available;
        co_return out;
    }
    auto p = options_.partitioner(key, static_cast<std::int32_t>(topic->partitions.size()));
    auto leader = topic->partitions[static_cast<std::size_t>(p)].leader;
    // Led here but in a failed log dir: no coordinator (Kafka's metadata has
    // no leader for it).
    if (leader == metadata_.local_broker_id() && offline_here(p)) leader = -1;
    auto snapshot = metadata_.snapshot();
    const auto* b = leader >= 0 ? snapshot->broker(leader) : nullptr;
    const auto* endpoint = b ? b->endpoint(listener) : nullptr;
    if (!endpoint) {
        out.error = ErrorCode::coordinator_not_available;
        co_return out;
    }
    out.node_id = leader;
    out.host = endpoint->host;
    out.port = endpoint->port;
    co_return out;
}

}  // namespace weir::coordinator::runtime
