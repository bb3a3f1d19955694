#pragma once
// The keys and values the group coordinator stores in __consumer_offsets, in
// Kafka's own formats (so Burrow, kafka-consumer-groups and friends can read
// them): an int16 version, then the struct at that version.
//   key v0/v1: OffsetCommitKey (group, topic, partition)   -- written at v1
//   key v2:    GroupMetadataKey (group)
//   offset value: OffsetCommitValue v1 (with expireTimestamp) or v3 (leaderEpoch)
//   group value:  GroupMetadataValue v3 (static members)
// A null value is a tombstone.
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "coordinator/group/types.h"
#include "coordinator/runtime/record_batches.h"
#include "protocol/records/record_batch.h"

namespace weir::coordinator::store {

inline constexpr std::string_view kOffsetsTopic = "__consumer_offsets";

wire::Bytes offset_commit_key(std::string_view group, const TopicPartition& tp);
wire::Bytes group_metadata_key(std::string_view group);
wire::Bytes offset_commit_value(const OffsetAndMetadata& offset);
wire::Bytes group_metadata_value(const msg::GroupMetadataValue& group);

struct OffsetKey {
    std::string group;
    TopicPartition tp;
    bool operator==(const OffsetKey&) const = default;
};
struct GroupKey {
    std::string group;
    bool operator==(const GroupKey&) const = default;
};
using RecordKey = std::variant<OffsetKey, GroupKey>;

// nullopt for key versions this coordinator does not own (other coordinator
// record types); throws wire::DecodeError when malformed.
std::optional<RecordKey> parse_key(wire::ByteSpan key);
// Any version 0-3. Throws wire::DecodeError.
OffsetAndMetadata parse_offset_value(wire::ByteSpan value);
msg::GroupMetadataValue parse_group_value(wire::ByteSpan value);

using runtime::KeyValue;
// The records of one group write, in order.
std::vector<KeyValue> offset_records(std::string_view group,
                                     const std::vector<std::pair<TopicPartition, OffsetAndMetadata>>& offsets);
std::vector<KeyValue> tombstone_records(const Tombstones& tombstones);

using runtime::build_batch;

}  // namespace weir::coordinator::store
