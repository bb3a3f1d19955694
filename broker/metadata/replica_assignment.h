#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "broker/metadata/metadata_types.h"

namespace weir::metadata {

// Kafka's rack-unaware replica placement (AdminUtils): partition p's first
// replica is broker (p + start) mod n, the others follow with a shift that
// grows every n partitions. `fixed_start_index` < 0 picks start and shift at
// random, as Kafka does; partitions are numbered from `start_partition`.
// Requires 1 <= replication_factor <= brokers.size().
std::vector<std::vector<std::int32_t>> assign_replicas(std::int32_t num_partitions, std::int32_t replication_factor,
                                                       std::vector<std::int32_t> brokers,
                                                       std::int32_t fixed_start_index = -1,
                                                       std::int32_t start_partition = 0);

// Kafka's rack-aware placement (AdminUtils.assignReplicasToBrokersRackAware):
// brokers listed alternating between racks (racks in name order, brokers in
// id order within a rack), the first replica as in assign_replicas over that
// list, each further one the next broker of the shifted walk that adds a rack
// not yet holding a replica (or, once every rack has one, a broker not yet
// holding one). Requires 1 <= replication_factor <= brokers.size().
std::vector<std::vector<std::int32_t>> assign_replicas_rack_aware(std::int32_t num_partitions,
                                                                  std::int32_t replication_factor,
                                                                  const std::map<std::int32_t, std::string>& racks,
                                                                  std::int32_t fixed_start_index = -1,
                                                                  std::int32_t start_partition = 0);

// New topics' placement over the live brokers: rack-aware when every broker
// has broker.rack, else rack-unaware (Kafka refuses a mix unless told to
// ignore racks; Weir ignores them).
std::vector<std::vector<std::int32_t>> place_new_topic(std::int32_t num_partitions, std::int32_t replication_factor,
                                                       const std::vector<BrokerInfo>& brokers);

// The replicas of the partitions that grow `topic` to `new_total`, placed as
// Kafka's AdminZkClient.addPartitions places them: with the topic's
// replication factor, from the start index of partition 0's first replica
// among the brokers by id, so the new partitions extend the existing
// round-robin; rack-aware on the same terms as place_new_topic. Requires
// new_total > the topic's partitions and enough brokers for its replication
// factor (validate_new_partitions checks both).
std::vector<std::vector<std::int32_t>> assign_added_partitions(const TopicInfo& topic, std::int32_t new_total,
                                                               const std::vector<BrokerInfo>& brokers);

}  // namespace weir::metadata
