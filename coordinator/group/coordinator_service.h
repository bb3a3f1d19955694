#pragma once
// The group coordinator the broker serves: Kafka's consumer-group APIs over
// the pure GroupManager, with durable state in __consumer_offsets.
//
// Runs on the broker's single I/O thread, over the coordinator runtime
// (coordinator/runtime/), which owns the __consumer_offsets partitions this
// broker leads, replays them into this shard (their groups answer
// COORDINATOR_LOAD_IN_PROGRESS meanwhile), completes writes at the high
// watermark and compacts. Parked JoinGroup/SyncGroup requests are coroutines
// waiting on a Parked result that the core's Effects complete; one timer
// follows the core's next deadline; another runs offset expiry.
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <unordered_map>

#include "broker/common/task_gate.h"
#include "broker/handler_api/broker_context.h"
#include "broker/handler_api/coordinator_locator.h"
#include "broker/handler_api/group_service.h"
#include "broker/partitions/partition.h"
#include "coordinator/group/group_manager.h"
#include "coordinator/group/parked.h"
#include "coordinator/group/records.h"
#include "coordinator/group/replay.h"
#include "coordinator/runtime/coordinator_runtime.h"

namespace weir::coordinator {

template <typename T>
using Task = boost::asio::awaitable<T>;

class CoordinatorService final : public handlers::GroupService,
                                 public handlers::CoordinatorLocator,
                                 private runtime::Shard {
public:
    using Clock = std::function<TimeMs()>;
    struct Options {
        Clock clock;                                 // default: wall clock (ms)
        GroupManager::MemberIdGenerator member_ids;  // default: prefix + "-" + random UUID
    };

    explicit CoordinatorService(handlers::BrokerContext& broker, Options options = {});
    ~CoordinatorService() override;
    CoordinatorService(const CoordinatorService&) = delete;
    CoordinatorService& operator=(const CoordinatorService&) = delete;

    void start() override;
    void stop() override;
    Task<void> stopped() override;

    handlers::CoordinatorLocator& locator() override { return *this; }
    Task<handlers::CoordinatorLocation> locate(std::string group_id, std::string listener) override;

    Task<msg::JoinGroupResponse> join_group(const Ctx&, msg::JoinGroupRequest) override;
    Task<msg::SyncGroupResponse> sync_group(const Ctx&, msg::SyncGroupRequest) override;
    Task<msg::HeartbeatResponse> heartbeat(const Ctx&, msg::HeartbeatRequest) override;
    Task<msg::LeaveGroupResponse> leave_group(const Ctx&, msg::LeaveGroupRequest) override;
    Task<msg::OffsetCommitResponse> offset_commit(const Ctx&, msg::OffsetCommitRequest) override;
    Task<msg::OffsetFetchResponse> offset_fetch(const Ctx&, msg::OffsetFetchRequest) override;
    Task<msg::DescribeGroupsResponse> describe_groups(const Ctx&, msg::DescribeGroupsRequest) override;
    Task<msg::ListGroupsResponse> list_groups(const Ctx&, msg::ListGroupsRequest) override;
    Task<msg::DeleteGroupsResponse> delete_groups(const Ctx&, msg::DeleteGroupsRequest) override;
    Task<msg::OffsetDeleteResponse> offset_delete(const Ctx&, msg::OffsetDeleteRequest) override;
    Task<msg::TxnOffsetCommitResponse> txn_offset_commit(const Ctx&, msg::TxnOffsetCommitRequest) override;
    void complete_transaction(std::int32_t offsets_partition, std::int64_t producer_id, bool commit) override;

    // ---- observability and tests ----
    [[nodiscard]] const GroupManager& manager() const { return core_; }
    // The __consumer_offsets partition of a group (Kafka's formula).
    [[nodiscard]] std::int32_t partition_for(std::string_view group_id) const {
        return runtime_.partition_for(group_id);
    }
    // True while some led partition is still being replayed.
    [[nodiscard]] bool loading() const override { return runtime_.loading(); }
    // Offset expiry now (as the offsets.retention.check.interval.ms timer does).
    Task<void> expire_offsets_now();
    // Compacts every led partition that needs it (or all, when forced).
    void compact_now(bool force) { runtime_.compact_now(force); }

private:
    enum class Api {
        join,
        sync,
        heartbeat,
        leave,
        offset_commit,
        offset_fetch,
        describe,
        delete_groups,
        offset_delete,
        txn_offset_commit
    };

    [[nodiscard]] TimeMs now() const { return clock_(); }
    [[nodiscard]] std::optional<ErrorCode> group_status(std::string_view group_id, Api api) const;

    // ---- the runtime's shard (coordinator_service_loading.cc) ----
    void replay(std::int32_t partition, const store::StoredRecord& record) override;
    void replay_marker(std::int32_t partition, const runtime::StoredMarker& marker) override;
    void loaded(std::int32_t partition) override;
    void unloaded(std::int32_t partition) override;
    void on_metadata_change(const metadata::MetadataChange& change);

    // ---- effects and timers (coordinator_service.cc) ----
    void run(Effects effects);
    void arm_deadline();
    void on_deadline();
    Task<void> finish_store(runtime::CoordinatorRuntime::Appended appended, std::uint64_t store_id);

    // ---- tombstones (coordinator_service_expiry.cc) ----
    Task<void> write_tombstones(std::vector<Tombstones> tombstones);

    handlers::BrokerContext& broker_;
    Clock clock_;
    std::mt19937_64 random_;
    GroupManager core_;
    runtime::CoordinatorRuntime runtime_;
    // Partitions being replayed, until loaded() hands their groups to the core.
    std::map<std::int32_t, store::Replayer> replaying_;
    runtime::DeadlineTimer& deadline_timer_;
    RequestId next_request_ = 1;
    std::unordered_map<RequestId, std::shared_ptr<Parked<JoinResult>>> joins_;
    std::unordered_map<RequestId, std::shared_ptr<Parked<SyncResult>>> syncs_;
    std::optional<metadata::MetadataStore::ListenerId> listener_;
    // Last: posted callbacks and spawned writes notice the service is gone.
    common::TaskGate gate_;
};

}  // namespace weir::coordinator
