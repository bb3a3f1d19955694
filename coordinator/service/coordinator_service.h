#pragma once
// The group coordinator the broker serves: Kafka's consumer-group APIs over
// the pure GroupManager, with durable state in __consumer_offsets.
//
// Runs on the broker's single I/O thread. Parked JoinGroup/SyncGroup requests
// are coroutines waiting on a Parked result that the core's Effects complete; one timer
// follows the core's next deadline; another runs offset expiry. Every
// __consumer_offsets partition this broker leads is replayed at start (or when
// it becomes leader) while its groups answer COORDINATOR_LOAD_IN_PROGRESS.
#include <boost/asio/steady_timer.hpp>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <unordered_map>

#include "broker/handlers/broker_context.h"
#include "broker/handlers/group_service.h"
#include "broker/partitions/partition.h"
#include "coordinator/group/group_manager.h"
#include "coordinator/service/parked.h"
#include "coordinator/store/live_records.h"
#include "coordinator/store/records.h"

namespace weir::coordinator {

template <typename T>
using Task = boost::asio::awaitable<T>;

class CoordinatorService final : public handlers::GroupService {
public:
    using Clock = std::function<TimeMs()>;
    struct Options {
        Clock clock;                                  // default: wall clock (ms)
        GroupManager::MemberIdGenerator member_ids;   // default: prefix + "-" + random UUID
    };

    explicit CoordinatorService(handlers::BrokerContext& broker, Options options = {});
    ~CoordinatorService() override;
    CoordinatorService(const CoordinatorService&) = delete;
    CoordinatorService& operator=(const CoordinatorService&) = delete;

    void start() override;
    void stop() override;

    Task<msg::FindCoordinatorResponse> find_coordinator(const Ctx&, msg::FindCoordinatorRequest) override;
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

    // ---- observability and tests ----
    [[nodiscard]] const GroupManager& manager() const { return core_; }
    // The __consumer_offsets partition of a group (Kafka's formula).
    [[nodiscard]] std::int32_t partition_for(std::string_view group_id) const;
    // True while some led partition is still being replayed.
    [[nodiscard]] bool loading() const;
    // Offset expiry now (as the offsets.retention.check.interval.ms timer does).
    Task<void> expire_offsets_now();
    // Compacts every led partition that needs it (or all, when forced).
    void compact_now(bool force);

private:
    enum class Api { join, sync, heartbeat, leave, offset_commit, offset_fetch, describe, delete_groups, offset_delete };
    struct OwnedPartition {
        bool loaded = false;
        std::uint64_t epoch = 0;  // a replay of an older epoch is abandoned
        store::LiveRecords live;
        std::optional<std::int64_t> pending_log_start;  // compaction waiting for the high watermark
    };
    // The synchronous half of a write: appended, maybe waiting for replication.
    struct Appended {
        ErrorCode error = ErrorCode::none;
        std::shared_ptr<partitions::Partition> target;
        std::int64_t end_offset = -1;  // high watermark needed for the write to count
        std::int32_t partition = -1;
    };
    struct Located {
        ErrorCode error = ErrorCode::none;
        std::string message;
        std::int32_t node_id = -1;
        std::string host;
        std::int32_t port = -1;
    };

    [[nodiscard]] TimeMs now() const { return clock_(); }
    [[nodiscard]] std::optional<ErrorCode> group_status(std::string_view group_id, Api api) const;

    // ---- ownership and loading (ownership.cc) ----
    void refresh_ownership();
    void begin_load(std::int32_t partition);
    Task<void> load(std::int32_t partition, std::uint64_t epoch);
    void unload(std::int32_t partition);
    void on_metadata_change(const metadata::MetadataChange& change);
    Task<metadata::TopicPtr> ensure_offsets_topic();
    Task<Located> locate(const std::string& key, std::int8_t key_type, std::string_view listener);

    // ---- effects and timers (coordinator_service.cc) ----
    void run(Effects effects);
    void arm_deadline();
    void on_deadline();
    void schedule_maintenance();
    Task<void> finish_store(Appended appended, std::uint64_t store_id);

    // ---- writes (writes.cc) ----
    Appended append(std::int32_t partition, const std::vector<store::KeyValue>& records);
    Task<ErrorCode> await_replicated(Appended appended);
    Task<ErrorCode> write(std::int32_t partition, std::vector<store::KeyValue> records);
    Task<void> write_tombstones(std::vector<Tombstones> tombstones);
    void maybe_compact(std::int32_t partition, bool force);
    [[nodiscard]] store::CompactionPolicy compaction_policy() const;

    handlers::BrokerContext& broker_;
    Clock clock_;
    std::mt19937_64 random_;
    GroupManager core_;
    bool active_ = false;
    std::int32_t num_partitions_;
    std::map<std::int32_t, OwnedPartition> owned_;
    std::uint64_t next_epoch_ = 1;
    RequestId next_request_ = 1;
    std::unordered_map<RequestId, std::shared_ptr<Parked<JoinResult>>> joins_;
    std::unordered_map<RequestId, std::shared_ptr<Parked<SyncResult>>> syncs_;
    boost::asio::steady_timer deadline_timer_;
    std::optional<TimeMs> armed_deadline_;
    boost::asio::steady_timer maintenance_timer_;
    std::optional<metadata::MetadataStore::ListenerId> listener_;
    // Lets posted callbacks notice the service is gone.
    std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace weir::coordinator
