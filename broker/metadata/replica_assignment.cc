#include "broker/metadata/replica_assignment.h"

#include <algorithm>
#include <random>

namespace weir::metadata {

std::vector<std::vector<int32_t>> assign_replicas(int32_t num_partitions, int32_t replication_factor,
                                                  std::vector<int32_t> brokers, int32_t fixed_start_index,
                                                  int32_t start_partition) {
  std::vector<std::vector<int32_t>> out;
  if (brokers.empty() || replication_factor < 1 || num_partitions < 1) return out;
  std::sort(brokers.begin(), brokers.end());
  const auto n = static_cast<int32_t>(brokers.size());
  int32_t start_index = fixed_start_index;
  int32_t shift = fixed_start_index;
  if (fixed_start_index < 0) {
    std::random_device rd;
    std::uniform_int_distribution<int32_t> pick(0, n - 1);
    start_index = pick(rd);
    shift = pick(rd);
  }
  int32_t partition = std::max(0, start_partition);
  out.reserve(static_cast<size_t>(num_partitions));
  for (int32_t i = 0; i < num_partitions; ++i, ++partition) {
    if (partition > 0 && partition % n == 0) ++shift;
    const int32_t first = (partition + start_index) % n;
    std::vector<int32_t> replicas{brokers[static_cast<size_t>(first)]};
    for (int32_t j = 0; j < replication_factor - 1 && n > 1; ++j) {
      const int32_t offset = 1 + (shift + j) % (n - 1);
      replicas.push_back(brokers[static_cast<size_t>((first + offset) % n)]);
    }
    out.push_back(std::move(replicas));
  }
  return out;
}

}  // namespace weir::metadata
