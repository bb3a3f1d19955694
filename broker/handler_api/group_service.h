#pragma once
// The group coordinator as the broker's handlers see it. Implemented in
// coordinator/ (which depends on the broker, not the other way round); the
// Broker gets it from a factory at start-up.
#include <boost/asio/awaitable.hpp>

#include "broker/handler_api/coordinator_locator.h"
#include "broker/handler_api/request_context.h"
#include "messages/delete_groups.h"
#include "messages/describe_groups.h"
#include "messages/heartbeat.h"
#include "messages/join_group.h"
#include "messages/leave_group.h"
#include "messages/list_groups.h"
#include "messages/offset_commit.h"
#include "messages/offset_delete.h"
#include "messages/offset_fetch.h"
#include "messages/sync_group.h"
#include "messages/txn_offset_commit.h"

namespace weir::handlers {

class GroupService {
public:
    template <typename T>
    using Task = boost::asio::awaitable<T>;
    using Ctx = handlers::RequestContext;

    virtual ~GroupService() = default;

    // Loads the coordinator state (replays __consumer_offsets); called once
    // the broker's partitions are open.
    virtual void start() = 0;
    // Stops timers and wakes parked requests (shutdown).
    virtual void stop() = 0;
    // After stop(): resolves once every background task the service started
    // (offset writes, loads, compaction) has ended; none starts after.
    virtual Task<void> stopped() = 0;
    // True while some coordinator partition this broker leads is still being
    // replayed (the broker is not ready: its groups answer COORDINATOR_LOAD_IN_PROGRESS).
    [[nodiscard]] virtual bool loading() const = 0;

    // FindCoordinator's key type 0 (find_coordinator.cc).
    virtual CoordinatorLocator& locator() = 0;

    virtual Task<msg::JoinGroupResponse> join_group(const Ctx&, msg::JoinGroupRequest) = 0;
    virtual Task<msg::SyncGroupResponse> sync_group(const Ctx&, msg::SyncGroupRequest) = 0;
    virtual Task<msg::HeartbeatResponse> heartbeat(const Ctx&, msg::HeartbeatRequest) = 0;
    virtual Task<msg::LeaveGroupResponse> leave_group(const Ctx&, msg::LeaveGroupRequest) = 0;
    virtual Task<msg::OffsetCommitResponse> offset_commit(const Ctx&, msg::OffsetCommitRequest) = 0;
    virtual Task<msg::OffsetFetchResponse> offset_fetch(const Ctx&, msg::OffsetFetchRequest) = 0;
    virtual Task<msg::DescribeGroupsResponse> describe_groups(const Ctx&, msg::DescribeGroupsRequest) = 0;
    virtual Task<msg::ListGroupsResponse> list_groups(const Ctx&, msg::ListGroupsRequest) = 0;
    virtual Task<msg::DeleteGroupsResponse> delete_groups(const Ctx&, msg::DeleteGroupsRequest) = 0;
    virtual Task<msg::OffsetDeleteResponse> offset_delete(const Ctx&, msg::OffsetDeleteRequest) = 0;
    virtual Task<msg::TxnOffsetCommitResponse> txn_offset_commit(const Ctx&, msg::TxnOffsetCommitRequest) = 0;

    // A transaction's COMMIT or ABORT marker for `producer_id` is in
    // `offsets_partition` of __consumer_offsets and replicated (WriteTxnMarkers):
    // the offsets it committed through TxnOffsetCommit become visible or are
    // dropped (Kafka's GroupCoordinator.onTransactionCompleted).
    virtual void complete_transaction(std::int32_t offsets_partition, std::int64_t producer_id, bool commit) = 0;
};

}  // namespace weir::handlers
