// The consumer-group API family: forwarded to the group coordinator.
#include "broker/handler_api/group_service.h"
#include "broker/handlers/handlers.h"

namespace weir::handlers {

Task<msg::JoinGroupResponse> handle(BrokerContext& b, const RequestContext& c, msg::JoinGroupRequest r) {
    return b.groups().join_group(c, std::move(r));
}
Task<msg::SyncGroupResponse> handle(BrokerContext& b, const RequestContext& c, msg::SyncGroupRequest r) {
    return b.groups().sync_group(c, std::move(r));
}
Task<msg::HeartbeatResponse> handle(BrokerContext& b, const RequestContext& c, msg::HeartbeatRequest r) {
    return b.groups().heartbeat(c, std::move(r));
}
Task<msg::LeaveGroupResponse> handle(BrokerContext& b, const RequestContext& c, msg::LeaveGroupRequest r) {
    return b.groups().leave_group(c, std::move(r));
}
Task<msg::OffsetCommitResponse> handle(BrokerContext& b, const RequestContext& c, msg::OffsetCommitRequest r) {
    return b.groups().offset_commit(c, std::move(r));
}
Task<msg::OffsetFetchResponse> handle(BrokerContext& b, const RequestContext& c, msg::OffsetFetchRequest r) {
    return b.groups().offset_fetch(c, std::move(r));
}
Task<msg::DescribeGroupsResponse> handle(BrokerContext& b, const RequestContext& c, msg::DescribeGroupsRequest r) {
    return b.groups().describe_groups(c, std::move(r));
}
Task<msg::ListGroupsResponse> handle(BrokerContext& b, const RequestContext& c, msg::ListGroupsRequest r) {
    return b.groups().list_groups(c, std::move(r));
}
Task<msg::DeleteGroupsResponse> handle(BrokerContext& b, const RequestContext& c, msg::DeleteGroupsRequest r) {
    return b.groups().delete_groups(c, std::move(r));
}
Task<msg::OffsetDeleteResponse> handle(BrokerContext& b, const RequestContext& c, msg::OffsetDeleteRequest r) {
    return b.groups().offset_delete(c, std::move(r));
}
Task<msg::TxnOffsetCommitResponse> handle(BrokerContext& b, const RequestContext& c, msg::TxnOffsetCommitRequest r) {
    return b.groups().txn_offset_commit(c, std::move(r));
}

}  // namespace weir::handlers
