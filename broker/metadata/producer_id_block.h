#pragma once
// Kafka's ProducerIdBlockZNode payload, {"version":1,"broker":0,
// "block_start":"0","block_end":"999"} (ids as strings), shared by ZooKeeper's
// /latest_producer_id_block and the embedded store's file.
#include <string>
#include <string_view>

#include "broker/metadata/metadata_types.h"

namespace weir::metadata {

std::string encode_producer_id_block(const ProducerIdBlock& block);
// Throws MetadataStoreError on a payload Kafka would not have written.
ProducerIdBlock decode_producer_id_block(std::string_view json);
// The block after `previous` (none: the first, from id 0) for `broker_id`;
// nullopt when the ids are exhausted.
std::optional<ProducerIdBlock> next_producer_id_block(const std::optional<ProducerIdBlock>& previous,
                                                      std::int32_t broker_id);

}  // namespace weir::metadata
