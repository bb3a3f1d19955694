#pragma once
// Kafka's on-disk names: partition directories `<topic>-<partition>`, segment
// files named by the 20-digit zero-padded base offset, deleted partitions
// renamed to `<topic>-<partition>.<32 hex>-delete`.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "protocol/topic_partition.h"

namespace weir::storage {

inline constexpr std::string_view kLogSuffix = ".log";
inline constexpr std::string_view kIndexSuffix = ".index";
inline constexpr std::string_view kTimeIndexSuffix = ".timeindex";
inline constexpr std::string_view kTxnIndexSuffix = ".txnindex";
inline constexpr std::string_view kDeleteDirSuffix = "-delete";
inline constexpr std::string_view kCleanShutdownFile = ".kafka_cleanshutdown";
inline constexpr std::string_view kRecoveryPointCheckpointFile = "recovery-point-offset-checkpoint";
inline constexpr std::string_view kLogStartOffsetCheckpointFile = "log-start-offset-checkpoint";
inline constexpr std::string_view kHighWatermarkCheckpointFile = "replication-offset-checkpoint";

// `<topic>-<partition>`
std::string partition_dir_name(const TopicPartition& tp);
// Splits at the last '-' (topic names may contain '-'); nullopt if the name
// is not a partition directory (e.g. a `-delete` directory).
std::optional<TopicPartition> parse_partition_dir_name(std::string_view name);

std::string segment_file_name(std::int64_t base_offset, std::string_view suffix);
// The base offset of a segment file name with the given suffix, or nullopt.
std::optional<std::int64_t> parse_segment_file_name(std::string_view name, std::string_view suffix);

}  // namespace weir::storage
