#pragma once

#include <cstdint>
#include <vector>

namespace weir::metadata {

// Kafka's rack-unaware replica placement (AdminUtils): partition p's first
// replica is broker (p + start) mod n, the others follow with a shift that
// grows every n partitions. `fixed_start_index` < 0 picks start and shift at
// random, as Kafka does; partitions are numbered from `start_partition`.
// Requires 1 <= replication_factor <= brokers.size().
std::vector<std::vector<int32_t>> assign_replicas(int32_t num_partitions, int32_t replication_factor,
                                                  std::vector<int32_t> brokers, int32_t fixed_start_index = -1,
                                                  int32_t start_partition = 0);

}  // namespace weir::metadata
