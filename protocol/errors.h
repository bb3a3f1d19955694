#pragma once
// Kafka protocol error codes. Codes, names and retriability follow Apache
// Kafka's org.apache.kafka.common.protocol.Errors (codes -1..136); the
// messages are weir's own wording.
#include <cstdint>
#include <optional>
#include <string_view>

namespace weir {

enum class ErrorCode : std::int16_t {
    unknown_server_error = -1,
    none = 0,
    offset_out_of_range = 1,
    corrupt_message = 2,
    unknown_topic_or_partition = 3,
    invalid_fetch_size = 4,
    leader_not_available = 5,
    not_leader_or_follower = 6,
    request_timed_out = 7,
    broker_not_available = 8,
    replica_not_available = 9,
    message_too_large = 10,
    stale_controller_epoch = 11,
    offset_metadata_too_large = 12,
    network_exception = 13,
    coordinator_load_in_progress = 14,
    coordinator_not_available = 15,
    not_coordinator = 16,
    invalid_topic_exception = 17,
    record_list_too_large = 18,
    not_enough_replicas = 19,
    not_enough_replicas_after_append = 20,
    invalid_required_acks = 21,
    illegal_generation = 22,
    inconsistent_group_protocol = 23,
    invalid_group_id = 24,
    unknown_member_id = 25,
    invalid_session_timeout = 26,
    rebalance_in_progress = 27,
    invalid_commit_offset_size = 28,
    topic_authorization_failed = 29,
    group_authorization_failed = 30,
    cluster_authorization_failed = 31,
    invalid_timestamp = 32,
    unsupported_sasl_mechanism = 33,
    illegal_sasl_state = 34,
    unsupported_version = 35,
    topic_already_exists = 36,
    invalid_partitions = 37,
    invalid_replication_factor = 38,
    invalid_replica_assignment = 39,
    invalid_config = 40,
    not_controller = 41,
    invalid_request = 42,
    unsupported_for_message_format = 43,
    policy_violation = 44,
    out_of_order_sequence_number = 45,
    duplicate_sequence_number = 46,
    invalid_producer_epoch = 47,
    invalid_txn_state = 48,
    invalid_producer_id_mapping = 49,
    invalid_transaction_timeout = 50,
    concurrent_transactions = 51,
    transaction_coordinator_fenced = 52,
    transactional_id_authorization_failed = 53,
    security_disabled = 54,
    operation_not_attempted = 55,
    kafka_storage_error = 56,
    log_dir_not_found = 57,
    sasl_authentication_failed = 58,
    unknown_producer_id = 59,
    reassignment_in_progress = 60,
    delegation_token_auth_disabled = 61,
    delegation_token_not_found = 62,
    delegation_token_owner_mismatch = 63,
    delegation_token_request_not_allowed = 64,
    delegation_token_authorization_failed = 65,
    delegation_token_expired = 66,
    invalid_principal_type = 67,
    non_empty_group = 68,
    group_id_not_found = 69,
    fetch_session_id_not_found = 70,
    invalid_fetch_session_epoch = 71,
    listener_not_found = 72,
    topic_deletion_disabled = 73,
    fenced_leader_epoch = 74,
    unknown_leader_epoch = 75,
    unsupported_compression_type = 76,
    stale_broker_epoch = 77,
    offset_not_available = 78,
    member_id_required = 79,
    preferred_leader_not_available = 80,
    group_max_size_reached = 81,
    fenced_instance_id = 82,
    eligible_leaders_not_available = 83,
    election_not_needed = 84,
    no_reassignment_in_progress = 85,
    group_subscribed_to_topic = 86,
    invalid_record = 87,
    unstable_offset_commit = 88,
    throttling_quota_exceeded = 89,
    producer_fenced = 90,
    resource_not_found = 91,
    duplicate_resource = 92,
    unacceptable_credential = 93,
    inconsistent_voter_set = 94,
    invalid_update_version = 95,
    feature_update_failed = 96,
    principal_deserialization_failure = 97,
    snapshot_not_found = 98,
    position_out_of_range = 99,
    unknown_topic_id = 100,
    duplicate_broker_registration = 101,
    broker_id_not_registered = 102,
    inconsistent_topic_id = 103,
    inconsistent_cluster_id = 104,
    transactional_id_not_found = 105,
    fetch_session_topic_id_error = 106,
    ineligible_replica = 107,
    new_leader_elected = 108,
    offset_moved_to_tiered_storage = 109,
    fenced_member_epoch = 110,
    unreleased_instance_id = 111,
    unsupported_assignor = 112,
    stale_member_epoch = 113,
    mismatched_endpoint_type = 114,
    unsupported_endpoint_type = 115,
    unknown_controller_id = 116,
    unknown_subscription_id = 117,
    telemetry_too_large = 118,
    invalid_registration = 119,
    transaction_abortable = 120,
    invalid_record_state = 121,
    share_session_not_found = 122,
    invalid_share_session_epoch = 123,
    fenced_state_epoch = 124,
    invalid_voter_key = 125,
    duplicate_voter = 126,
    voter_not_found = 127,
    invalid_regular_expression = 128,
    rebootstrap_required = 129,
    streams_invalid_topology = 130,
    streams_invalid_topology_epoch = 131,
    streams_topology_fenced = 132,
    share_session_limit_reached = 133,
    group_deletion_failed = 134,
    streams_topology_description_update_failed = 135,
    controller_id_not_registered = 136,
};

// Lowest and highest code in the table; every code in between is defined.
inline constexpr std::int16_t kMinErrorCode = -1;
inline constexpr std::int16_t kMaxErrorCode = 136;

[[nodiscard]] constexpr std::int16_t to_int(ErrorCode e) noexcept { return static_cast<std::int16_t>(e); }

// True if `code` is one of the codes above.
[[nodiscard]] constexpr bool is_known_error_code(std::int16_t code) noexcept {
    return code >= kMinErrorCode && code <= kMaxErrorCode;
}

// A code read off the wire. Codes this table does not know become
// unknown_server_error, as Kafka's own clients treat them.
[[nodiscard]] ErrorCode error_from_code(std::int16_t code) noexcept;

// Kafka's upper-case name, e.g. "OFFSET_OUT_OF_RANGE". Values outside the table
// are reported as "UNKNOWN_SERVER_ERROR" (likewise for the two functions below).
[[nodiscard]] std::string_view error_name(ErrorCode e) noexcept;

// Inverse of error_name; exact, case-sensitive match.
[[nodiscard]] std::optional<ErrorCode> error_from_name(std::string_view name) noexcept;

// Whether Kafka classes the error as retriable (its exception is a RetriableException).
[[nodiscard]] bool is_retriable(ErrorCode e) noexcept;

// A short default message for error_message fields and logs; empty for none.
[[nodiscard]] std::string_view error_message(ErrorCode e) noexcept;

}  // namespace weir
