#pragma once
// Kafka's offset checkpoint files (recovery-point-offset-checkpoint,
// log-start-offset-checkpoint), one per log dir:
//   0                      <- version
//   <count>
//   <topic> <partition> <offset>   (one line per partition)
// Written atomically (temp file, fsync, rename).
#include <cstdint>
#include <filesystem>
#include <map>

#include "broker/storage/log_names.h"

namespace weir::storage {

using OffsetCheckpoint = std::map<TopicPartition, std::int64_t>;

void write_checkpoint_file(const std::filesystem::path& path, const OffsetCheckpoint& offsets);
// Missing file: empty. Malformed file: empty too (the caller then recovers
// conservatively) and `ok` set to false.
OffsetCheckpoint read_checkpoint_file(const std::filesystem::path& path, bool* ok = nullptr);

}  // namespace weir::storage
