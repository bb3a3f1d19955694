#include "coordinator/group/records.h"

#include "protocol/wire/writer.h"

namespace weir::coordinator::store {

namespace {

constexpr std::int16_t kOffsetKeyVersion = 1;
constexpr std::int16_t kGroupKeyVersion = 2;
constexpr std::int16_t kGroupValueVersion = 3;

}  // namespace

wire::Bytes offset_commit_key(std::string_view group, const TopicPartition& tp) {
    msg::OffsetCommitKey k;
    k.group = group;
    k.topic = tp.topic;
    k.partition = tp.partition;
    return runtime::encode_versioned(k, kOffsetKeyVersion);
}

wire::Bytes group_metadata_key(std::string_view group) {
    msg::GroupMetadataKey k;
    k.group = group;
    return runtime::encode_versioned(k, kGroupKeyVersion);
}

wire::Bytes offset_commit_value(const OffsetAndMetadata& offset) {
    msg::OffsetCommitValue v;
    v.offset = offset.offset;
    v.leader_epoch = offset.leader_epoch;
    v.metadata = offset.metadata;
    v.commit_timestamp = offset.commit_timestamp;
    // Kafka writes v1 only to keep a per-commit expiry (OffsetCommit v2-v4 retention).
    if (offset.expire_timestamp) {
        v.expire_timestamp = *offset.expire_timestamp;
        return runtime::encode_versioned(v, 1);
    }
    return runtime::encode_versioned(v, 3);
}

wire::Bytes group_metadata_value(const msg::GroupMetadataValue& group) {
    return runtime::encode_versioned(group, kGroupValueVersion);
}

std::optional<RecordKey> parse_key(wire::ByteSpan key) {
    wire::Reader r(key);
    auto version = r.int16();
    if (version == 0 || version == 1) {
        auto k = msg::OffsetCommitKey::decode(r, version);
        return OffsetKey{std::move(k.group), TopicPartition{std::move(k.topic), k.partition}};
    }
    if (version == 2) return GroupKey{msg::GroupMetadataKey::decode(r, version).group};
    if (version < 0) throw wire::DecodeError("negative record key version");
    return std::nullopt;
}

OffsetAndMetadata parse_offset_value(wire::ByteSpan value) {
    wire::Reader r(value);
    auto version = r.int16();
    auto v = msg::OffsetCommitValue::decode(r, version);
    OffsetAndMetadata o;
    o.offset = v.offset;
    o.leader_epoch = v.leader_epoch;
    o.metadata = std::move(v.metadata);
    o.commit_timestamp = v.commit_timestamp;
    if (version == 1 && v.expire_timestamp >= 0) o.expire_timestamp = v.expire_timestamp;
    return o;
}

msg::GroupMetadataValue parse_group_value(wire::ByteSpan value) {
    wire::Reader r(value);
    auto version = r.int16();
    return msg::GroupMetadataValue::decode(r, version);
}

std::vector<KeyValue> offset_records(std::string_view group,
                                     const std::vector<std::pair<TopicPartition, OffsetAndMetadata>>& offsets) {
    std::vector<KeyValue> out;
    out.reserve(offsets.size());
    for (const auto& [tp, o] : offsets) out.push_back({offset_commit_key(group, tp), offset_commit_value(o)});
    return out;
}

std::vector<KeyValue> tombstone_records(const Tombstones& tombstones) {
    std::vector<KeyValue> out;
    for (const auto& tp : tombstones.offsets) out.push_back({offset_commit_key(tombstones.group_id, tp), std::nullopt});
    if (tombstones.group_tombstone) out.push_back({group_metadata_key(tombstones.group_id), std::nullopt});
    return out;
}

}  // namespace weir::coordinator::store
