#include "protocol/errors.h"

#include <array>
#include <cstddef>

namespace weir {
namespace {

struct ErrorInfo {
    ErrorCode code;
    std::string_view name;
    bool retriable;
    std::string_view message;
};

// Indexed by code - kMinErrorCode; the static_assert below keeps it dense.
constexpr std::array<ErrorInfo, kMaxErrorCode - kMinErrorCode + 1> kErrors{{
    {ErrorCode::unknown_server_error, "UNKNOWN_SERVER_ERROR", false, "The broker hit an unexpected internal error."},
    {ErrorCode::none, "NONE", false, ""},
    {ErrorCode::offset_out_of_range, "OFFSET_OUT_OF_RANGE", false,
     "The offset is outside the range the partition holds."},
    {ErrorCode::corrupt_message, "CORRUPT_MESSAGE", true,
     "The record failed its CRC or size check, or is otherwise malformed."},
    {ErrorCode::unknown_topic_or_partition, "UNKNOWN_TOPIC_OR_PARTITION", true,
     "This broker does not have the topic or partition."},
    {ErrorCode::invalid_fetch_size, "INVALID_FETCH_SIZE", false, "The fetch size is not valid."},
    {ErrorCode::leader_not_available, "LEADER_NOT_AVAILABLE", true,
     "The partition has no leader right now (election in progress)."},
    {ErrorCode::not_leader_or_follower, "NOT_LEADER_OR_FOLLOWER", true,
     "This broker is not the leader (or not a replica) of the partition."},
    {ErrorCode::request_timed_out, "REQUEST_TIMED_OUT", true, "The request timed out."},
    {ErrorCode::broker_not_available, "BROKER_NOT_AVAILABLE", false, "The broker is not available."},
    {ErrorCode::replica_not_available, "REPLICA_NOT_AVAILABLE", true,
     "The replica is not available for the partition."},
    {ErrorCode::message_too_large, "MESSAGE_TOO_LARGE", false, "The message is larger than the broker accepts."},
    {ErrorCode::stale_controller_epoch, "STALE_CONTROLLER_EPOCH", false, "The controller has moved to another broker."},
    {ErrorCode::offset_metadata_too_large, "OFFSET_METADATA_TOO_LARGE", false,
     "The offset commit metadata string is too long."},
    {ErrorCode::network_exception, "NETWORK_EXCEPTION", true, "The connection closed before a response arrived."},
    {ErrorCode::coordinator_load_in_progress, "COORDINATOR_LOAD_IN_PROGRESS", true,
     "The coordinator is still loading its state."},
    {ErrorCode::coordinator_not_available, "COORDINATOR_NOT_AVAILABLE", true, "The coordinator is not available."},
    {ErrorCode::not_coordinator, "NOT_COORDINATOR", true,
     "This broker is not the coordinator for the group or transaction."},
    {ErrorCode::invalid_topic_exception, "INVALID_TOPIC_EXCEPTION", false,
     "The topic name is not valid for this operation."},
    {ErrorCode::record_list_too_large, "RECORD_LIST_TOO_LARGE", false,
     "The record batch is larger than the segment size."},
    {ErrorCode::not_enough_replicas, "NOT_ENOUGH_REPLICAS", true,
     "Too few in-sync replicas; the records were rejected."},
    {ErrorCode::not_enough_replicas_after_append, "NOT_ENOUGH_REPLICAS_AFTER_APPEND", true,
     "The records were written but to too few in-sync replicas."},
    {ErrorCode::invalid_required_acks, "INVALID_REQUIRED_ACKS", false,
     "The produce request has an invalid acks value."},
    {ErrorCode::illegal_generation, "ILLEGAL_GENERATION", false, "The group generation id is not current."},
    {ErrorCode::inconsistent_group_protocol, "INCONSISTENT_GROUP_PROTOCOL", false,
     "The member's protocols do not match those of the group."},
    {ErrorCode::invalid_group_id, "INVALID_GROUP_ID", false, "The group id is not valid."},
    {ErrorCode::unknown_member_id, "UNKNOWN_MEMBER_ID", false, "The coordinator does not know this member."},
    {ErrorCode::invalid_session_timeout, "INVALID_SESSION_TIMEOUT", false,
     "The session timeout is outside the broker's allowed range."},
    {ErrorCode::rebalance_in_progress, "REBALANCE_IN_PROGRESS", false,
     "The group is rebalancing; the member must rejoin."},
    {ErrorCode::invalid_commit_offset_size, "INVALID_COMMIT_OFFSET_SIZE", false,
     "The offset commit data size is not valid."},
    {ErrorCode::topic_authorization_failed, "TOPIC_AUTHORIZATION_FAILED", false, "Not authorized for the topic."},
    {ErrorCode::group_authorization_failed, "GROUP_AUTHORIZATION_FAILED", false, "Not authorized for the group."},
    {ErrorCode::cluster_authorization_failed, "CLUSTER_AUTHORIZATION_FAILED", false, "Not authorized for the cluster."},
    {ErrorCode::invalid_timestamp, "INVALID_TIMESTAMP", false, "The record timestamp is outside the accepted range."},
    {ErrorCode::unsupported_sasl_mechanism, "UNSUPPORTED_SASL_MECHANISM", false,
     "The broker does not support this SASL mechanism."},
    {ErrorCode::illegal_sasl_state, "ILLEGAL_SASL_STATE", false, "The request is not valid in the current SASL state."},
    {ErrorCode::unsupported_version, "UNSUPPORTED_VERSION", false, "The API version is not supported."},
    {ErrorCode::topic_already_exists, "TOPIC_ALREADY_EXISTS", false, "A topic with this name already exists."},
    {ErrorCode::invalid_partitions, "INVALID_PARTITIONS", false, "The partition count is not valid."},
    {ErrorCode::invalid_replication_factor, "INVALID_REPLICATION_FACTOR", false,
     "The replication factor is not valid."},
    {ErrorCode::invalid_replica_assignment, "INVALID_REPLICA_ASSIGNMENT", false,
     "The replica assignment is not valid."},
    {ErrorCode::invalid_config, "INVALID_CONFIG", false, "The configuration is not valid."},
    {ErrorCode::not_controller, "NOT_CONTROLLER", true, "This broker is not the controller."},
    {ErrorCode::invalid_request, "INVALID_REQUEST", false, "The request is malformed or not valid for this broker."},
    {ErrorCode::unsupported_for_message_format, "UNSUPPORTED_FOR_MESSAGE_FORMAT", false,
     "The message format version does not support this request."},
    {ErrorCode::policy_violation, "POLICY_VIOLATION", false, "The request violates a configured policy."},
    {ErrorCode::out_of_order_sequence_number, "OUT_OF_ORDER_SEQUENCE_NUMBER", false,
     "The producer sequence number is out of order."},
    {ErrorCode::duplicate_sequence_number, "DUPLICATE_SEQUENCE_NUMBER", false,
     "The producer sequence number is a duplicate."},
    {ErrorCode::invalid_producer_epoch, "INVALID_PRODUCER_EPOCH", false, "The producer epoch is outdated."},
    {ErrorCode::invalid_txn_state, "INVALID_TXN_STATE", false,
     "The transactional operation is not valid in the current state."},
    {ErrorCode::invalid_producer_id_mapping, "INVALID_PRODUCER_ID_MAPPING", false,
     "The producer id is not assigned to this transactional id."},
    {ErrorCode::invalid_transaction_timeout, "INVALID_TRANSACTION_TIMEOUT", false,
     "The transaction timeout exceeds the broker maximum."},
    {ErrorCode::concurrent_transactions, "CONCURRENT_TRANSACTIONS", true,
     "Another operation on this transaction is in progress."},
    {ErrorCode::transaction_coordinator_fenced, "TRANSACTION_COORDINATOR_FENCED", false,
     "The transaction coordinator has been fenced."},
    {ErrorCode::transactional_id_authorization_failed, "TRANSACTIONAL_ID_AUTHORIZATION_FAILED", false,
     "Not authorized for the transactional id."},
    {ErrorCode::security_disabled, "SECURITY_DISABLED", false, "Security features are disabled."},
    {ErrorCode::operation_not_attempted, "OPERATION_NOT_ATTEMPTED", false, "The operation was not attempted."},
    {ErrorCode::kafka_storage_error, "KAFKA_STORAGE_ERROR", true, "A disk error occurred while accessing the log."},
    {ErrorCode::log_dir_not_found, "LOG_DIR_NOT_FOUND", false,
     "The log directory does not exist in the broker config."},
    {ErrorCode::sasl_authentication_failed, "SASL_AUTHENTICATION_FAILED", false, "SASL authentication failed."},
    {ErrorCode::unknown_producer_id, "UNKNOWN_PRODUCER_ID", false, "The broker has no state for this producer id."},
    {ErrorCode::reassignment_in_progress, "REASSIGNMENT_IN_PROGRESS", false,
     "A partition reassignment is in progress."},
    {ErrorCode::delegation_token_auth_disabled, "DELEGATION_TOKEN_AUTH_DISABLED", false,
     "Delegation tokens are not enabled."},
    {ErrorCode::delegation_token_not_found, "DELEGATION_TOKEN_NOT_FOUND", false,
     "The delegation token does not exist."},
    {ErrorCode::delegation_token_owner_mismatch, "DELEGATION_TOKEN_OWNER_MISMATCH", false,
     "The principal is not the owner or renewer of the token."},
    {ErrorCode::delegation_token_request_not_allowed, "DELEGATION_TOKEN_REQUEST_NOT_ALLOWED", false,
     "Delegation token requests are not allowed on this channel."},
    {ErrorCode::delegation_token_authorization_failed, "DELEGATION_TOKEN_AUTHORIZATION_FAILED", false,
     "Not authorized for the delegation token."},
    {ErrorCode::delegation_token_expired, "DELEGATION_TOKEN_EXPIRED", false, "The delegation token has expired."},
    {ErrorCode::invalid_principal_type, "INVALID_PRINCIPAL_TYPE", false, "The principal type is not supported."},
    {ErrorCode::non_empty_group, "NON_EMPTY_GROUP", false, "The group still has members."},
    {ErrorCode::group_id_not_found, "GROUP_ID_NOT_FOUND", false, "The group does not exist."},
    {ErrorCode::fetch_session_id_not_found, "FETCH_SESSION_ID_NOT_FOUND", true, "The fetch session does not exist."},
    {ErrorCode::invalid_fetch_session_epoch, "INVALID_FETCH_SESSION_EPOCH", true,
     "The fetch session epoch is not valid."},
    {ErrorCode::listener_not_found, "LISTENER_NOT_FOUND", true,
     "The leader has no listener matching the request's listener."},
    {ErrorCode::topic_deletion_disabled, "TOPIC_DELETION_DISABLED", false, "Topic deletion is disabled."},
    {ErrorCode::fenced_leader_epoch, "FENCED_LEADER_EPOCH", true,
     "The leader epoch in the request is older than the broker's."},
    {ErrorCode::unknown_leader_epoch, "UNKNOWN_LEADER_EPOCH", true,
     "The leader epoch in the request is newer than the broker's."},
    {ErrorCode::unsupported_compression_type, "UNSUPPORTED_COMPRESSION_TYPE", false,
     "The client does not support the partition's compression type."},
    {ErrorCode::stale_broker_epoch, "STALE_BROKER_EPOCH", false, "The broker epoch has changed."},
    {ErrorCode::offset_not_available, "OFFSET_NOT_AVAILABLE", true,
     "The offset is not available yet after a leader change."},
    {ErrorCode::member_id_required, "MEMBER_ID_REQUIRED", false,
     "The member must rejoin with the member id it was given."},
    {ErrorCode::preferred_leader_not_available, "PREFERRED_LEADER_NOT_AVAILABLE", true,
     "The preferred leader is not available."},
    {ErrorCode::group_max_size_reached, "GROUP_MAX_SIZE_REACHED", false, "The group is full."},
    {ErrorCode::fenced_instance_id, "FENCED_INSTANCE_ID", false,
     "Another member registered with the same group instance id."},
    {ErrorCode::eligible_leaders_not_available, "ELIGIBLE_LEADERS_NOT_AVAILABLE", true,
     "No eligible leader is available for the partition."},
    {ErrorCode::election_not_needed, "ELECTION_NOT_NEEDED", true, "The partition does not need a leader election."},
    {ErrorCode::no_reassignment_in_progress, "NO_REASSIGNMENT_IN_PROGRESS", false,
     "No partition reassignment is in progress."},
    {ErrorCode::group_subscribed_to_topic, "GROUP_SUBSCRIBED_TO_TOPIC", false,
     "The group is subscribed to the topic, so its offsets cannot be deleted."},
    {ErrorCode::invalid_record, "INVALID_RECORD", false, "The broker rejected the record as invalid."},
    {ErrorCode::unstable_offset_commit, "UNSTABLE_OFFSET_COMMIT", true,
     "Pending transactional offsets must be resolved first."},
    {ErrorCode::throttling_quota_exceeded, "THROTTLING_QUOTA_EXCEEDED", true, "The throttling quota was exceeded."},
    {ErrorCode::producer_fenced, "PRODUCER_FENCED", false, "A newer producer with the same transactional id exists."},
    {ErrorCode::resource_not_found, "RESOURCE_NOT_FOUND", false, "The referenced resource does not exist."},
    {ErrorCode::duplicate_resource, "DUPLICATE_RESOURCE", false, "The request names the same resource twice."},
    {ErrorCode::unacceptable_credential, "UNACCEPTABLE_CREDENTIAL", false,
     "The credential does not meet the acceptance criteria."},
    {ErrorCode::inconsistent_voter_set, "INCONSISTENT_VOTER_SET", false,
     "The sender or receiver is not one of the expected voters."},
    {ErrorCode::invalid_update_version, "INVALID_UPDATE_VERSION", false, "The update version is not valid."},
    {ErrorCode::feature_update_failed, "FEATURE_UPDATE_FAILED", false, "The finalized features could not be updated."},
    {ErrorCode::principal_deserialization_failure, "PRINCIPAL_DESERIALIZATION_FAILURE", false,
     "The forwarded principal could not be deserialized."},
    {ErrorCode::snapshot_not_found, "SNAPSHOT_NOT_FOUND", false, "The snapshot does not exist."},
    {ErrorCode::position_out_of_range, "POSITION_OUT_OF_RANGE", false, "The position is outside the snapshot."},
    {ErrorCode::unknown_topic_id, "UNKNOWN_TOPIC_ID", true, "This broker does not have the topic id."},
    {ErrorCode::duplicate_broker_registration, "DUPLICATE_BROKER_REGISTRATION", false,
     "The broker id is already registered."},
    {ErrorCode::broker_id_not_registered, "BROKER_ID_NOT_REGISTERED", false, "The broker id is not registered."},
    {ErrorCode::inconsistent_topic_id, "INCONSISTENT_TOPIC_ID", true,
     "The topic id does not match the log's topic id."},
    {ErrorCode::inconsistent_cluster_id, "INCONSISTENT_CLUSTER_ID", false,
     "The cluster id does not match this cluster."},
    {ErrorCode::transactional_id_not_found, "TRANSACTIONAL_ID_NOT_FOUND", false,
     "The transactional id does not exist."},
    {ErrorCode::fetch_session_topic_id_error, "FETCH_SESSION_TOPIC_ID_ERROR", true,
     "The fetch session used topic ids inconsistently."},
    {ErrorCode::ineligible_replica, "INELIGIBLE_REPLICA", false, "The new ISR contains an ineligible replica."},
    {ErrorCode::new_leader_elected, "NEW_LEADER_ELECTED", false,
     "The partition state was updated but the leader changed."},
    {ErrorCode::offset_moved_to_tiered_storage, "OFFSET_MOVED_TO_TIERED_STORAGE", false,
     "The offset is now in tiered storage."},
    {ErrorCode::fenced_member_epoch, "FENCED_MEMBER_EPOCH", false,
     "The member epoch is fenced; the member must rejoin."},
    {ErrorCode::unreleased_instance_id, "UNRELEASED_INSTANCE_ID", false,
     "The instance id is still held by another member."},
    {ErrorCode::unsupported_assignor, "UNSUPPORTED_ASSIGNOR", false, "The group does not support this assignor."},
    {ErrorCode::stale_member_epoch, "STALE_MEMBER_EPOCH", false, "The member epoch is stale."},
    {ErrorCode::mismatched_endpoint_type, "MISMATCHED_ENDPOINT_TYPE", false,
     "The request reached the wrong kind of endpoint."},
    {ErrorCode::unsupported_endpoint_type, "UNSUPPORTED_ENDPOINT_TYPE", false, "This endpoint type is not supported."},
    {ErrorCode::unknown_controller_id, "UNKNOWN_CONTROLLER_ID", false, "The controller id is not known."},
    {ErrorCode::unknown_subscription_id, "UNKNOWN_SUBSCRIPTION_ID", false,
     "The telemetry subscription id is unknown or outdated."},
    {ErrorCode::telemetry_too_large, "TELEMETRY_TOO_LARGE", false, "The telemetry payload is too large."},
    {ErrorCode::invalid_registration, "INVALID_REGISTRATION", false, "The broker registration is not valid."},
    {ErrorCode::transaction_abortable, "TRANSACTION_ABORTABLE", false, "The transaction failed and should be aborted."},
    {ErrorCode::invalid_record_state, "INVALID_RECORD_STATE", false,
     "The record's delivery state does not allow this acknowledgement."},
    {ErrorCode::share_session_not_found, "SHARE_SESSION_NOT_FOUND", true, "The share session does not exist."},
    {ErrorCode::invalid_share_session_epoch, "INVALID_SHARE_SESSION_EPOCH", true,
     "The share session epoch is not valid."},
    {ErrorCode::fenced_state_epoch, "FENCED_STATE_EPOCH", false, "The share-group state epoch does not match."},
    {ErrorCode::invalid_voter_key, "INVALID_VOTER_KEY", false, "The voter key does not match this replica."},
    {ErrorCode::duplicate_voter, "DUPLICATE_VOTER", false, "The voter is already in the voter set."},
    {ErrorCode::voter_not_found, "VOTER_NOT_FOUND", false, "The voter is not in the voter set."},
    {ErrorCode::invalid_regular_expression, "INVALID_REGULAR_EXPRESSION", false,
     "The regular expression is not valid."},
    {ErrorCode::rebootstrap_required, "REBOOTSTRAP_REQUIRED", false,
     "The client's metadata is stale; it must bootstrap again."},
    {ErrorCode::streams_invalid_topology, "STREAMS_INVALID_TOPOLOGY", false, "The streams topology is not valid."},
    {ErrorCode::streams_invalid_topology_epoch, "STREAMS_INVALID_TOPOLOGY_EPOCH", false,
     "The streams topology epoch is not valid."},
    {ErrorCode::streams_topology_fenced, "STREAMS_TOPOLOGY_FENCED", false, "The streams topology epoch is outdated."},
    {ErrorCode::share_session_limit_reached, "SHARE_SESSION_LIMIT_REACHED", true,
     "No more share sessions can be opened."},
    {ErrorCode::group_deletion_failed, "GROUP_DELETION_FAILED", false, "The group could not be deleted."},
    {ErrorCode::streams_topology_description_update_failed, "STREAMS_TOPOLOGY_DESCRIPTION_UPDATE_FAILED", false,
     "The streams topology description could not be updated."},
    {ErrorCode::controller_id_not_registered, "CONTROLLER_ID_NOT_REGISTERED", false,
     "The controller id is not registered."},
}};

constexpr bool table_is_dense() {
    for (std::size_t i = 0; i < kErrors.size(); ++i) {
        if (to_int(kErrors[i].code) != static_cast<int>(i) + kMinErrorCode) return false;
    }
    return true;
}
static_assert(table_is_dense(), "kErrors must list every code from kMinErrorCode to kMaxErrorCode in order");

const ErrorInfo& info(ErrorCode e) noexcept {
    const std::int16_t code = to_int(e);
    const std::int16_t known = is_known_error_code(code) ? code : to_int(ErrorCode::unknown_server_error);
    return kErrors[static_cast<std::size_t>(known - kMinErrorCode)];
}

}  // namespace

ErrorCode error_from_code(std::int16_t code) noexcept {
    return is_known_error_code(code) ? static_cast<ErrorCode>(code) : ErrorCode::unknown_server_error;
}

std::string_view error_name(ErrorCode e) noexcept { return info(e).name; }

std::optional<ErrorCode> error_from_name(std::string_view name) noexcept {
    for (const auto& entry : kErrors) {
        if (entry.name == name) return entry.code;
    }
    return std::nullopt;
}

bool is_retriable(ErrorCode e) noexcept { return info(e).retriable; }

std::string_view error_message(ErrorCode e) noexcept { return info(e).message; }

}  // namespace weir
