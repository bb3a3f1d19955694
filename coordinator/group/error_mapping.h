#pragma once
// What clients see when a write to __consumer_offsets fails (Kafka's
// GroupMetadataManager mappings).
#include "protocol/errors.h"

namespace weir::coordinator {

inline ErrorCode map_store_error(ErrorCode e, ErrorCode too_large) {
    switch (e) {
        case ErrorCode::unknown_topic_or_partition:
        case ErrorCode::not_enough_replicas:
        case ErrorCode::not_enough_replicas_after_append:
            return ErrorCode::coordinator_not_available;
        case ErrorCode::not_leader_or_follower:
        case ErrorCode::kafka_storage_error:
            return ErrorCode::not_coordinator;
        case ErrorCode::message_too_large:
        case ErrorCode::record_list_too_large:
        case ErrorCode::invalid_fetch_size:
            return too_large;
        default:
            return e;
    }
}

inline ErrorCode map_group_store_error(ErrorCode e) { return map_store_error(e, ErrorCode::unknown_server_error); }
inline ErrorCode map_offset_store_error(ErrorCode e) {
    return map_store_error(e, ErrorCode::invalid_commit_offset_size);
}

}  // namespace weir::coordinator
