#pragma once
// The changes that lead from one metadata snapshot to the next, as listeners
// receive them. A backend that learns the cluster's state from outside (the
// ZooKeeper store, through watches) publishes whole snapshots and tells its
// listeners what differs.
#include <vector>

#include "broker/metadata/metadata_types.h"

namespace weir::metadata {

// In order: brokers (live set, endpoints or controller), deleted topics
// (a topic re-created under the same name is deleted, then created), created
// topics, per topic partitions added (covers state changes of the same
// topic), else state changes, then config changes; last dynamic broker
// configs, per broker and then the cluster-wide defaults.
std::vector<MetadataChange> diff_snapshots(const MetadataSnapshot& before, const MetadataSnapshot& after);

}  // namespace weir::metadata
