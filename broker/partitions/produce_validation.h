#pragma once
// Kafka's LogValidator for the records of one partition of a Produce
// request: keys on compacted topics, magic against the request version, CRC
// and every record, sizes, the compression codecs the version allows,
// CreateTime timestamps within the topic's bounds of the clock; v0/v1
// message sets are up-converted to one v2 batch, the only format Weir stores.
#include <cstdint>
#include <string>
#include <vector>

#include "broker/storage/log_config.h"
#include "protocol/errors.h"
#include "protocol/records/record_batch.h"
#include "protocol/topic_partition.h"
#include "protocol/wire/reader.h"

namespace weir::partitions {

struct ProduceLimits {
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
    // Their headers as validated (max timestamps set): the append takes them
    // instead of parsing the batches again.
    std::vector<records::BatchHeader> headers;
};

// `now_ms`: the broker clock CreateTime timestamps are checked against.
ValidatedRecords validate_produced_records(const TopicPartition& tp, wire::ByteSpan records,
                                           const ProduceLimits& limits, const storage::LogConfig& config,
                                           std::int64_t now_ms);

// What a Produce of one partition got.
struct ProduceResult {
    ErrorCode error = ErrorCode::none;
    std::int64_t base_offset = -1;
    std::int64_t last_offset = -1;  // acks=all waits for the high watermark to pass it
    std::int64_t log_append_time = -1;
    std::int64_t log_start_offset = -1;
    std::string error_message;
    std::vector<RecordError> record_errors;
};

}  // namespace weir::partitions
