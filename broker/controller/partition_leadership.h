#pragma once
// The controller's decision for one partition (Kafka's PartitionStateMachine
// with its offline-partition leader election), without I/O: given the
// partition's replicas, its state in ZooKeeper and the live brokers, the state
// to write, if any.
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "broker/metadata/metadata_types.h"
#include "broker/metadata/zookeeper/zk_data.h"
#include "protocol/topic_partition.h"

namespace weir::controller {

struct PartitionView {
    std::vector<std::int32_t> replicas;       // assignment order: the first is preferred
    std::optional<zk::LeaderAndIsr> current;  // none: never elected
    std::set<std::int32_t> live;              // registered brokers
    bool unclean_election = false;            // unclean.leader.election.enable
    std::int32_t controller_epoch = 0;
};

// - Never elected: the live replicas form the ISR and the first of them
//   leads; nothing while none is live.
// - The leader is gone (or there is none): the first replica that is in the
//   ISR and live leads, the ISR keeps its live members; with none, and unclean
//   election on, the first live replica leads alone; else no leader, and the
//   ISR keeps its last members so that one of them leads when it returns
//   (no committed message is lost).
// - The leader is live but ISR members are gone: they leave the ISR.
// Every new state bumps the leader epoch, as Kafka's ZooKeeper controller
// does, and carries the controller epoch.
std::optional<zk::LeaderAndIsr> next_partition_state(const PartitionView& view);

// Kafka's auto leader rebalance (checkAndTriggerAutoLeaderRebalance): for
// each live broker, the share of the partitions it is the preferred (first)
// replica of that it does not lead; above `imbalance_percentage`, those of
// them where it is in the ISR move back to it. Sorted.
std::vector<TopicPartition> preferred_leader_elections(const metadata::MetadataSnapshot& cluster,
                                                       double imbalance_percentage);

// The order a controller pass looks at `topics` in: first those with a
// partition `cluster` shows without a live leader (and those it does not show
// yet), as Kafka elects leaders of offline partitions before it takes the
// dead broker out of other ISRs; then the rest. Each group sorted.
std::vector<std::string> leaderless_first(const std::set<std::string>& topics,
                                          const metadata::MetadataSnapshot& cluster,
                                          const std::set<std::int32_t>& live);

// The preferred replica leads (same ISR, next epoch), if it is live and in
// sync and does not lead yet.
std::optional<zk::LeaderAndIsr> preferred_leader_state(const PartitionView& view);

}  // namespace weir::controller
