#pragma once
// Kafka's leader-epoch-checkpoint, one per partition directory: the epochs
// the log holds and the offset each started at, oldest first.
//   0                 <- version
//   <count>
//   <epoch> <start offset>
// Written atomically (temp file, fsync, rename).
#include <cstdint>
#include <filesystem>
#include <utility>
#include <vector>

namespace weir::storage {

using EpochStarts = std::vector<std::pair<std::int32_t, std::int64_t>>;

inline constexpr const char* kLeaderEpochCheckpointFile = "leader-epoch-checkpoint";

void write_leader_epoch_checkpoint(const std::filesystem::path& dir, const EpochStarts& epochs);
// Missing or malformed: empty (the history then starts again from what the
// partition learns).
EpochStarts read_leader_epoch_checkpoint(const std::filesystem::path& dir);

}  // namespace weir::storage
