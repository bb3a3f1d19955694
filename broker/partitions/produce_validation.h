#pragma once
// Kafka's LogValidator for the records of one partition of a Produce
// request: keys on compacted topics, magic against the request version, CRC
// and every record, sizes, the compression codecs the version allows; v0/v1
// message sets are up-converted to one v2 batch, the only format Weir stores.
#include <cstdint>
#include <string>
#include <vector>

#include "broker/partitions/partition.h"
#include "protocol/errors.h"
#include "protocol/topic_partition.h"
#include "protocol/wire/reader.h"

namespace weir::partitions {

struct ProduceLimits {
    std::int32_t max_message_bytes = 1048588;  // per batch (max.message.bytes)
    std::int16_t produce_version = 0;
    bool acks_all = false;  // acks=-1: the ISR must meet min.insync.replicas
};

// One rejected record (Produce v8+ BatchIndexAndErrorMessage).
struct RecordError {
    std::int32_t batch_index = 0;
    std::string message;
};

struct ValidatedRecords {
    ErrorCode error = ErrorCode::none;
    std::string error_message;
    std::vector<RecordError> record_errors;
    wire::Bytes batches;  // v2 batches to append (none on error)
};

ValidatedRecords validate_produced_records(const TopicPartition& tp, wire::ByteSpan records,
                                           const ProduceLimits& limits, const LogConfig& config);

}  // namespace weir::partitions
