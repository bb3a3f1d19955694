// Lifecycle, request admission, effects and timers of the coordinator.
#include "coordinator/service/coordinator_service.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <chrono>
#include <deque>

#include "broker/common/logging.h"
#include "coordinator/service/error_mapping.h"
#include "coordinator/store/partitioner.h"

namespace weir::coordinator {

namespace asio = boost::asio;

namespace {

TimeMs wall_clock_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// java.util.UUID.randomUUID().toString() format.
std::string random_uuid(std::mt19937_64& random) {
    std::uint64_t hi = random();
    std::uint64_t lo = random();
    hi = (hi & ~0xF000ULL) | 0x4000ULL;                  // version 4
    lo = (lo & ~(0xC0ULL << 56)) | (0x80ULL << 56);      // IETF variant
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

}  // namespace

CoordinatorService::CoordinatorService(handlers::BrokerContext& broker, Options options)
    : broker_(broker),
      clock_(options.clock ? std::move(options.clock) : Clock(wall_clock_ms)),
      random_(std::random_device{}()),
      core_(group_config(broker.config),
            options.member_ids ? std::move(options.member_ids)
                               : GroupManager::MemberIdGenerator([this](std::string_view prefix) {
                                     return std::string(prefix) + "-" + random_uuid(random_);
                                 })),
      num_partitions_(std::max(broker.config.offsets_topic_num_partitions, 1)),
      deadline_timer_(broker.executor),
      maintenance_timer_(broker.executor) {}

CoordinatorService::~CoordinatorService() {
    *alive_ = false;
    if (listener_) broker_.metadata.remove_listener(*listener_);
}

void CoordinatorService::start() {
    active_ = true;
    std::weak_ptr<bool> alive = alive_;
    auto executor = broker_.executor;
    // Store listeners may run on another thread (ZooKeeper): hop to ours.
    listener_ = broker_.metadata.add_listener([this, alive, executor](const metadata::MetadataChange& change) {
        asio::post(executor, [this, alive, change] {
            if (auto a = alive.lock(); a && *a) on_metadata_change(change);
        });
    });
    refresh_ownership();
    schedule_maintenance();
}

void CoordinatorService::stop() {
    if (!active_) return;
    active_ = false;
    deadline_timer_.cancel();
    maintenance_timer_.cancel();
    Effects fx;
    core_.abort_all(ErrorCode::not_coordinator, fx);
    run(std::move(fx));
}

std::int32_t CoordinatorService::partition_for(std::string_view group_id) const {
    return store::partition_for(group_id, num_partitions_);
}

bool CoordinatorService::loading() const {
    for (const auto& [p, owned] : owned_)
        if (!owned.loaded) return true;
    return false;
}

std::optional<ErrorCode> CoordinatorService::group_status(std::string_view group_id, Api api) const {
    // Kafka accepts the empty group id where old clients used it (commits,
    // fetches, describe, delete); group management needs a real one.
    bool empty_ok = api == Api::offset_commit || api == Api::offset_fetch || api == Api::describe ||
                    api == Api::delete_groups;
    if (group_id.empty() && !empty_ok) return ErrorCode::invalid_group_id;
    if (!active_) return ErrorCode::coordinator_not_available;
    auto it = owned_.find(partition_for(group_id));
    if (it == owned_.end()) return ErrorCode::not_coordinator;
    if (!it->second.loaded) return ErrorCode::coordinator_load_in_progress;
    return std::nullopt;
}

void CoordinatorService::run(Effects effects) {
    std::deque<Effects> queue;
    queue.push_back(std::move(effects));
    while (!queue.empty()) {
        Effects fx = std::move(queue.front());
        queue.pop_front();
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
            auto appended = append(partition_for(store.group_id), records);
            if (appended.error == ErrorCode::none && appended.target &&
                appended.target->high_watermark() < appended.end_offset) {
                asio::co_spawn(broker_.executor, finish_store(std::move(appended), store.store_id), asio::detached);
                continue;
            }
            Effects more;
            core_.on_store_complete(now(), store.store_id, map_group_store_error(appended.error), more);
            queue.push_back(std::move(more));
        }
    }
    arm_deadline();
}

Task<void> CoordinatorService::finish_store(Appended appended, std::uint64_t store_id) {
    auto error = co_await await_replicated(std::move(appended));
    Effects fx;
    core_.on_store_complete(now(), store_id, map_group_store_error(error), fx);
    run(std::move(fx));
}

void CoordinatorService::arm_deadline() {
    if (!active_) return;
    auto next = core_.next_deadline();
    if (!next) return;
    if (armed_deadline_ && *armed_deadline_ <= *next) return;  // it re-arms when it fires
    armed_deadline_ = next;
    deadline_timer_.expires_after(std::chrono::milliseconds(std::max<TimeMs>(*next - now(), 0)));
    std::weak_ptr<bool> alive = alive_;
    deadline_timer_.async_wait([this, alive](boost::system::error_code ec) {
        auto a = alive.lock();
        if (ec || !a || !*a) return;
        armed_deadline_.reset();
        on_deadline();
    });
}

void CoordinatorService::on_deadline() {
    if (!active_) return;
    Effects fx;
    core_.advance(now(), fx);
    run(std::move(fx));
}

void CoordinatorService::schedule_maintenance() {
    if (!active_) return;
    auto interval = std::max<std::int64_t>(broker_.config.offsets_retention_check_interval_ms, 1);
    maintenance_timer_.expires_after(std::chrono::milliseconds(interval));
    std::weak_ptr<bool> alive = alive_;
    maintenance_timer_.async_wait([this, alive](boost::system::error_code ec) {
        auto a = alive.lock();
        if (ec || !a || !*a || !active_) return;
        asio::co_spawn(
            broker_.executor,
            [this, alive]() -> Task<void> {
                co_await expire_offsets_now();
                auto a2 = alive.lock();
                if (!a2 || !*a2) co_return;
                compact_now(false);
                schedule_maintenance();
            },
            asio::detached);
    });
}

}  // namespace weir::coordinator
