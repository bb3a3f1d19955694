#include "broker/metadata/replica_assignment.h"

#include <algorithm>
#include <random>

namespace weir::metadata {

std::vector<std::vector<std::int32_t>> assign_replicas(std::int32_t num_partitions, std::int32_t replication_factor,
                                                       std::vector<std::int32_t> brokers,
                                                       std::int32_t fixed_start_index, std::int32_t start_partition) {
    std::vector<std::vector<std::int32_t>> out;
    if (brokers.empty() || replication_factor < 1 || num_partitions < 1) return out;
    std::sort(brokers.begin(), brokers.end());
    const auto n = static_cast<std::int32_t>(brokers.size());
    std::int32_t start_index = fixed_start_index;
    std::int32_t shift = fixed_start_index;
    if (fixed_start_index < 0) {
        std::random_device rd;
        std::uniform_int_distribution<std::int32_t> pick(0, n - 1);
        start_index = pick(rd);
        shift = pick(rd);
    }
    std::int32_t partition = std::max(0, start_partition);
    out.reserve(static_cast<std::size_t>(num_partitions));
    for (std::int32_t i = 0; i < num_partitions; ++i, ++partition) {
        if (partition > 0 && partition % n == 0) ++shift;
        const std::int32_t first = (partition + start_index) % n;
        std::vector<std::int32_t> replicas{brokers[static_cast<std::size_t>(first)]};
        for (std::int32_t j = 0; j < replication_factor - 1 && n > 1; ++j) {
            const std::int32_t offset = 1 + (shift + j) % (n - 1);
            replicas.push_back(brokers[static_cast<std::size_t>((first + offset) % n)]);
        }
        out.push_back(std::move(replicas));
    }
    return out;
}

std::vector<std::vector<std::int32_t>> assign_added_partitions(const TopicInfo& topic, std::int32_t new_total,
                                                               std::vector<std::int32_t> brokers) {
    const auto existing = static_cast<std::int32_t>(topic.partitions.size());
    const auto replication =
        static_cast<std::int32_t>(topic.partitions.empty() ? 1 : topic.partitions.front().replicas.size());
    std::sort(brokers.begin(), brokers.end());
    std::int32_t start = 0;
    if (!topic.partitions.empty() && !topic.partitions.front().replicas.empty()) {
        const std::int32_t first = topic.partitions.front().replicas.front();
        auto it = std::find_if(brokers.begin(), brokers.end(), [&](std::int32_t id) { return id >= first; });
        start = it == brokers.end() ? 0 : static_cast<std::int32_t>(it - brokers.begin());
    }
    return assign_replicas(new_total - existing, replication, std::move(brokers), start, existing);
}

}  // namespace weir::metadata
