#pragma once
// Every Kafka API Weir serves has one `handle` overload here; the dispatcher
// and the ApiVersions answer are derived from this list. Definitions live in
// one file per API family (api_versions.cc, metadata.cc, produce.cc, ...).
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include "broker/handler_api/broker_context.h"
#include "broker/handler_api/group_service.h"
#include "broker/handler_api/request_context.h"
#include "messages/add_offsets_to_txn.h"
#include "messages/add_partitions_to_txn.h"
#include "messages/alter_configs.h"
#include "messages/api_table.h"
#include "messages/api_versions.h"
#include "messages/create_acls.h"
#include "messages/create_partitions.h"
#include "messages/create_topics.h"
#include "messages/delete_acls.h"
#include "messages/delete_records.h"
#include "messages/delete_topics.h"
#include "messages/describe_acls.h"
#include "messages/describe_cluster.h"
#include "messages/describe_configs.h"
#include "messages/describe_log_dirs.h"
#include "messages/describe_producers.h"
#include "messages/describe_transactions.h"
#include "messages/end_txn.h"
#include "messages/fetch.h"
#include "messages/find_coordinator.h"
#include "messages/incremental_alter_configs.h"
#include "messages/init_producer_id.h"
#include "messages/list_offsets.h"
#include "messages/list_transactions.h"
#include "messages/metadata.h"
#include "messages/offset_for_leader_epoch.h"
#include "messages/produce.h"
#include "messages/write_txn_markers.h"
#include "protocol/errors.h"

namespace weir::handlers {

template <typename T>
using Task = boost::asio::awaitable<T>;

Task<msg::ApiVersionsResponse> handle(BrokerContext&, const RequestContext&, msg::ApiVersionsRequest);
Task<msg::MetadataResponse> handle(BrokerContext&, const RequestContext&, msg::MetadataRequest);
Task<msg::ProduceResponse> handle(BrokerContext&, const RequestContext&, msg::ProduceRequest);
Task<msg::FetchResponse> handle(BrokerContext&, const RequestContext&, msg::FetchRequest);
Task<msg::ListOffsetsResponse> handle(BrokerContext&, const RequestContext&, msg::ListOffsetsRequest);
Task<msg::CreateTopicsResponse> handle(BrokerContext&, const RequestContext&, msg::CreateTopicsRequest);
Task<msg::DeleteTopicsResponse> handle(BrokerContext&, const RequestContext&, msg::DeleteTopicsRequest);
Task<msg::CreatePartitionsResponse> handle(BrokerContext&, const RequestContext&, msg::CreatePartitionsRequest);
Task<msg::DeleteRecordsResponse> handle(BrokerContext&, const RequestContext&, msg::DeleteRecordsRequest);
Task<msg::DescribeConfigsResponse> handle(BrokerContext&, const RequestContext&, msg::DescribeConfigsRequest);
Task<msg::AlterConfigsResponse> handle(BrokerContext&, const RequestContext&, msg::AlterConfigsRequest);
Task<msg::IncrementalAlterConfigsResponse> handle(BrokerContext&, const RequestContext&,
                                                  msg::IncrementalAlterConfigsRequest);
Task<msg::DescribeClusterResponse> handle(BrokerContext&, const RequestContext&, msg::DescribeClusterRequest);
Task<msg::OffsetForLeaderEpochResponse> handle(BrokerContext&, const RequestContext&, msg::OffsetForLeaderEpochRequest);
// The producer family (producers.cc).
Task<msg::InitProducerIdResponse> handle(BrokerContext&, const RequestContext&, msg::InitProducerIdRequest);
Task<msg::DescribeProducersResponse> handle(BrokerContext&, const RequestContext&, msg::DescribeProducersRequest);
// The log dirs of this broker (log_dirs.cc).
Task<msg::DescribeLogDirsResponse> handle(BrokerContext&, const RequestContext&, msg::DescribeLogDirsRequest);
// Transaction markers on this broker's partitions (txn_markers.cc).
Task<msg::WriteTxnMarkersResponse> handle(BrokerContext&, const RequestContext&, msg::WriteTxnMarkersRequest);
Task<msg::DescribeAclsResponse> handle(BrokerContext&, const RequestContext&, msg::DescribeAclsRequest);
Task<msg::CreateAclsResponse> handle(BrokerContext&, const RequestContext&, msg::CreateAclsRequest);
Task<msg::DeleteAclsResponse> handle(BrokerContext&, const RequestContext&, msg::DeleteAclsRequest);

// The transaction family (transactions.cc forwards to the TransactionService).
Task<msg::AddPartitionsToTxnResponse> handle(BrokerContext&, const RequestContext&, msg::AddPartitionsToTxnRequest);
Task<msg::AddOffsetsToTxnResponse> handle(BrokerContext&, const RequestContext&, msg::AddOffsetsToTxnRequest);
Task<msg::EndTxnResponse> handle(BrokerContext&, const RequestContext&, msg::EndTxnRequest);
Task<msg::DescribeTransactionsResponse> handle(BrokerContext&, const RequestContext&, msg::DescribeTransactionsRequest);
Task<msg::ListTransactionsResponse> handle(BrokerContext&, const RequestContext&, msg::ListTransactionsRequest);

// FindCoordinator (find_coordinator.cc) routes on the key type to a coordinator's locator.
Task<msg::FindCoordinatorResponse> handle(BrokerContext&, const RequestContext&, msg::FindCoordinatorRequest);
// The consumer-group family (groups.cc forwards to the GroupService).
Task<msg::JoinGroupResponse> handle(BrokerContext&, const RequestContext&, msg::JoinGroupRequest);
Task<msg::SyncGroupResponse> handle(BrokerContext&, const RequestContext&, msg::SyncGroupRequest);
Task<msg::HeartbeatResponse> handle(BrokerContext&, const RequestContext&, msg::HeartbeatRequest);
Task<msg::LeaveGroupResponse> handle(BrokerContext&, const RequestContext&, msg::LeaveGroupRequest);
Task<msg::OffsetCommitResponse> handle(BrokerContext&, const RequestContext&, msg::OffsetCommitRequest);
Task<msg::OffsetFetchResponse> handle(BrokerContext&, const RequestContext&, msg::OffsetFetchRequest);
Task<msg::DescribeGroupsResponse> handle(BrokerContext&, const RequestContext&, msg::DescribeGroupsRequest);
Task<msg::ListGroupsResponse> handle(BrokerContext&, const RequestContext&, msg::ListGroupsRequest);
Task<msg::DeleteGroupsResponse> handle(BrokerContext&, const RequestContext&, msg::DeleteGroupsRequest);
Task<msg::OffsetDeleteResponse> handle(BrokerContext&, const RequestContext&, msg::OffsetDeleteRequest);
Task<msg::TxnOffsetCommitResponse> handle(BrokerContext&, const RequestContext&, msg::TxnOffsetCommitRequest);

template <typename Request>
concept Handles = requires(BrokerContext& b, const RequestContext& c, Request r) {
    handle(b, c, std::move(r));
};

// Produce with acks=0 is the one request that gets no response.
template <typename Request>
bool expects_response(const Request&) {
    return true;
}
inline bool expects_response(const msg::ProduceRequest& r) { return r.acks != 0; }

bool serves(msg::ApiKey key);
// The newest version advertised: the spec's newest, less one when that one is
// still marked unstable upstream.
std::int16_t max_served_version(const msg::ApiInfo& api);
msg::ApiVersionsResponse unsupported_api_versions_response();

}  // namespace weir::handlers
