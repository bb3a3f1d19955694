#pragma once
// Which __consumer_offsets partition a group lives in: Kafka's
// Utils.abs(groupId.hashCode) % partitions, with Java's String.hashCode over
// the UTF-16 code units of the id and abs(Integer.MIN_VALUE) = 0.
#include <cstdint>
#include <string_view>

namespace weir::coordinator::store {

// Java's String.hashCode of the UTF-8 string `s` (malformed bytes count as U+FFFD).
std::int32_t java_string_hash(std::string_view s);

std::int32_t partition_for(std::string_view group_id, std::int32_t partitions);

}  // namespace weir::coordinator::store
