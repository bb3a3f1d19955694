#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker/metadata/metadata_types.h"

namespace weir::metadata {

// What the embedded store keeps on disk.
struct PersistedState {
    std::string cluster_id;
    std::int32_t broker_id = 0;
    std::vector<TopicInfo> topics;
    std::map<std::int32_t, config::ConfigMap> broker_configs;
    config::ConfigMap default_broker_configs;
    // The last producer id block handed out; none before the first.
    std::optional<ProducerIdBlock> latest_producer_id_block;
};

// {"version":1,"cluster_id":...,"broker_id":...,"topics":[{"name","topic_id",
//  "internal","configs":{...},"partitions":[{"partition","leader",
//  "leader_epoch","replicas","isr"}]}],"broker_configs":{"<default>":{...},
//  "<id>":{...}},"latest_producer_id_block":{"version":1,"broker":0,
//  "block_start":"0","block_end":"999"}}. broker_configs is named by
// ZooKeeper's entity names, the producer id block is ZooKeeper's
// /latest_producer_id_block; both are optional, so files written before them
// read as having none.
std::string encode_state(const PersistedState& state);
// Throws MetadataStoreError on malformed input.
PersistedState decode_state(std::string_view json);

}  // namespace weir::metadata
