#include "broker/metadata/replica_assignment.h"

#include <algorithm>
#include <random>
#include <set>

namespace weir::metadata {
namespace {

// Where placement starts and how far the second replica is shifted: both
// `fixed_start_index` if given, else random, as Kafka picks them.
std::pair<std::int32_t, std::int32_t> start_and_shift(std::int32_t fixed_start_index, std::int32_t brokers) {
    if (fixed_start_index >= 0) return {fixed_start_index, fixed_start_index};
    std::random_device rd;
    std::uniform_int_distribution<std::int32_t> pick(0, brokers - 1);
    const auto start = pick(rd);
    return {start, pick(rd)};
}

}  // namespace

std::vector<std::vector<std::int32_t>> assign_replicas(std::int32_t num_partitions, std::int32_t replication_factor,
                                                       std::vector<std::int32_t> brokers,
                                                       std::int32_t fixed_start_index, std::int32_t start_partition) {
    std::vector<std::vector<std::int32_t>> out;
    if (brokers.empty() || replication_factor < 1 || num_partitions < 1) return out;
    std::sort(brokers.begin(), brokers.end());
    const auto n = static_cast<std::int32_t>(brokers.size());
    auto [start_index, shift] = start_and_shift(fixed_start_index, n);
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

std::vector<std::vector<std::int32_t>> assign_replicas_rack_aware(std::int32_t num_partitions,
                                                                  std::int32_t replication_factor,
                                                                  const std::map<std::int32_t, std::string>& racks,
                                                                  std::int32_t fixed_start_index,
                                                                  std::int32_t start_partition) {
    std::vector<std::vector<std::int32_t>> out;
    if (racks.empty() || replication_factor < 1 || num_partitions < 1) return out;
    // Kafka's getRackAlternatedBrokerList.
    std::map<std::string, std::vector<std::int32_t>> by_rack;
    for (const auto& [broker, rack] : racks) by_rack[rack].push_back(broker);
    std::vector<std::int32_t> arranged;
    for (std::size_t round = 0; arranged.size() < racks.size(); ++round)
        for (const auto& [rack, brokers] : by_rack)
            if (round < brokers.size()) arranged.push_back(brokers[round]);
    const auto n = static_cast<std::int32_t>(arranged.size());
    const auto num_racks = static_cast<std::int32_t>(by_rack.size());
    auto [start_index, shift] = start_and_shift(fixed_start_index, n);
    std::int32_t partition = std::max(0, start_partition);
    for (std::int32_t i = 0; i < num_partitions; ++i, ++partition) {
        if (partition > 0 && partition % n == 0) ++shift;
        const std::int32_t first = (partition + start_index) % n;
        const std::int32_t leader = arranged[static_cast<std::size_t>(first)];
        std::vector<std::int32_t> replicas{leader};
        std::set<std::string> racks_used{racks.at(leader)};
        std::set<std::int32_t> brokers_used{leader};
        std::int32_t k = 0;
        for (std::int32_t r = 0; r < replication_factor - 1 && n > 1; ++r) {
            while (true) {
                const std::int32_t offset = 1 + (shift * num_racks + k) % (n - 1);
                const std::int32_t broker = arranged[static_cast<std::size_t>((first + offset) % n)];
                const std::string& rack = racks.at(broker);
                ++k;
                const bool rack_ok =
                    !racks_used.contains(rack) || static_cast<std::int32_t>(racks_used.size()) == num_racks;
                const bool broker_ok =
                    !brokers_used.contains(broker) || static_cast<std::int32_t>(brokers_used.size()) == n;
                if (rack_ok && broker_ok) {
                    replicas.push_back(broker);
                    racks_used.insert(rack);
                    brokers_used.insert(broker);
                    break;
                }
            }
        }
        out.push_back(std::move(replicas));
    }
    return out;
}

namespace {

// Placement over `brokers`, rack-aware when every one has broker.rack.
std::vector<std::vector<std::int32_t>> place(std::int32_t num_partitions, std::int32_t replication_factor,
                                             const std::vector<BrokerInfo>& brokers, std::int32_t fixed_start_index,
                                             std::int32_t start_partition) {
    std::map<std::int32_t, std::string> racks;
    std::vector<std::int32_t> ids;
    for (const auto& b : brokers) {
        ids.push_back(b.id);
        if (b.rack) racks[b.id] = *b.rack;
    }
    if (!racks.empty() && racks.size() == brokers.size())
        return assign_replicas_rack_aware(num_partitions, replication_factor, racks, fixed_start_index,
                                          start_partition);
    return assign_replicas(num_partitions, replication_factor, std::move(ids), fixed_start_index, start_partition);
}

}  // namespace

std::vector<std::vector<std::int32_t>> place_new_topic(std::int32_t num_partitions, std::int32_t replication_factor,
                                                       const std::vector<BrokerInfo>& brokers) {
    return place(num_partitions, replication_factor, brokers, -1, 0);
}

std::vector<std::vector<std::int32_t>> assign_added_partitions(const TopicInfo& topic, std::int32_t new_total,
                                                               const std::vector<BrokerInfo>& brokers) {
    const auto existing = static_cast<std::int32_t>(topic.partitions.size());
    const auto replication =
        static_cast<std::int32_t>(topic.partitions.empty() ? 1 : topic.partitions.front().replicas.size());
    std::vector<std::int32_t> ids;
    for (const auto& b : brokers) ids.push_back(b.id);
    std::sort(ids.begin(), ids.end());
    // Kafka indexes the brokers by id here, also when the rack-aware
    // placement then walks its rack-alternated list.
    std::int32_t start = 0;
    if (!topic.partitions.empty() && !topic.partitions.front().replicas.empty()) {
        const std::int32_t first = topic.partitions.front().replicas.front();
        auto it = std::find_if(ids.begin(), ids.end(), [&](std::int32_t id) { return id >= first; });
        start = it == ids.end() ? 0 : static_cast<std::int32_t>(it - ids.begin());
    }
    return place(new_total - existing, replication, brokers, start, existing);
}

}  // namespace weir::metadata
