// __consumer_offsets records in Kafka's byte formats, replay and partitioning.
#include "coordinator/group/records.h"

#include <gtest/gtest.h>

#include "coordinator/group/partitioner.h"
#include "coordinator/group/replay.h"

namespace weir::coordinator::store {
namespace {

wire::Bytes bytes_of(std::string_view s) { return {s.begin(), s.end()}; }

wire::Bytes hex(std::string_view h) {
    wire::Bytes out;
    auto nibble = [](char c) { return static_cast<std::uint8_t>(c <= '9' ? c - '0' : c - 'a' + 10); };
    std::string digits;
    for (char c : h)
        if (c != ' ') digits += c;
    for (std::size_t i = 0; i + 1 < digits.size(); i += 2)
        out.push_back(static_cast<std::uint8_t>(nibble(digits[i]) << 4 | nibble(digits[i + 1])));
    return out;
}

// Hand-assembled from Kafka's schemas (int16 version, then the fields, big endian).
TEST(Records, OffsetCommitKeyIsVersion1) {
    EXPECT_EQ(offset_commit_key("grp", {"tp", 7}), hex("0001 0003 677270 0002 7470 00000007"));
}

TEST(Records, GroupMetadataKeyIsVersion2) { EXPECT_EQ(group_metadata_key("grp"), hex("0002 0003 677270")); }

TEST(Records, OffsetCommitValueV3CarriesTheLeaderEpoch) {
    OffsetAndMetadata o;
    o.offset = 0x1234;
    o.leader_epoch = 5;
    o.metadata = "md";
    o.commit_timestamp = 0x0102030405;
    EXPECT_EQ(offset_commit_value(o), hex("0003 0000000000001234 00000005 0002 6d64 0000000102030405"));
    EXPECT_EQ(parse_offset_value(offset_commit_value(o)), o);
}

TEST(Records, OffsetCommitValueV1CarriesTheExpiry) {
    OffsetAndMetadata o;
    o.offset = 1;
    o.commit_timestamp = 2;
    o.expire_timestamp = 3;
    EXPECT_EQ(offset_commit_value(o), hex("0001 0000000000000001 0000 0000000000000002 0000000000000003"));
    auto back = parse_offset_value(offset_commit_value(o));
    EXPECT_EQ(back.expire_timestamp, 3);
    EXPECT_EQ(back.leader_epoch, -1);  // v1 has none
}

TEST(Records, OlderOffsetValueVersionsParse) {
    // v0: offset, metadata, commit timestamp.
    auto v0 = parse_offset_value(hex("0000 000000000000000a 0001 78 0000000000000063"));
    EXPECT_EQ(v0.offset, 10);
    EXPECT_EQ(v0.metadata, "x");
    EXPECT_EQ(v0.commit_timestamp, 99);
    EXPECT_FALSE(v0.expire_timestamp.has_value());
}

TEST(Records, GroupMetadataValueV3) {
    msg::GroupMetadataValue v;
    v.protocol_type = "consumer";
    v.generation = 2;
    v.protocol = "range";
    v.leader = "m";
    v.current_state_timestamp = 0x10;
    msg::GroupMetadataValue::MemberMetadata m;
    m.member_id = "m";
    m.group_instance_id = "i";
    m.client_id = "c";
    m.client_host = "/h";
    m.rebalance_timeout = 300000;
    m.session_timeout = 45000;
    m.subscription = {0xAA};
    m.assignment = {0xBB, 0xCC};
    v.members.push_back(m);
    EXPECT_EQ(group_metadata_value(v),
              hex("0003"
                  "0008 636f6e73756d6572"  // protocolType "consumer"
                  "00000002"               // generation
                  "0005 72616e6765"        // protocol "range"
                  "0001 6d"                // leader "m"
                  "0000000000000010"       // currentStateTimestamp
                  "00000001"               // one member
                  "0001 6d"                // memberId
                  "0001 69"                // groupInstanceId
                  "0001 63"                // clientId
                  "0002 2f68"              // clientHost
                  "000493e0"               // rebalanceTimeout 300000
                  "0000afc8"               // sessionTimeout 45000
                  "00000001 aa"            // subscription
                  "00000002 bbcc"));       // assignment
    EXPECT_EQ(parse_group_value(group_metadata_value(v)), v);
}

TEST(Records, EmptyGroupHasNullProtocolAndLeader) {
    msg::GroupMetadataValue v;
    v.protocol_type = "consumer";
    v.generation = 3;
    v.protocol = std::nullopt;
    v.leader = std::nullopt;
    v.current_state_timestamp = -1;
    EXPECT_EQ(group_metadata_value(v), hex("0003 0008 636f6e73756d6572 00000003 ffff ffff ffffffffffffffff 00000000"));
}

TEST(Records, KeysParseBack) {
    auto k = parse_key(offset_commit_key("g", {"t", 3}));
    ASSERT_TRUE(k.has_value());
    EXPECT_EQ(std::get<OffsetKey>(*k), (OffsetKey{"g", {"t", 3}}));
    EXPECT_EQ(std::get<GroupKey>(*parse_key(group_metadata_key("g"))), GroupKey{"g"});
    EXPECT_EQ(std::get<OffsetKey>(*parse_key(hex("0000 0001 67 0001 74 00000001"))).tp.partition, 1);  // v0 key
    EXPECT_FALSE(parse_key(hex("0003 0001 67")).has_value());  // not ours (KIP-848 records)
    EXPECT_THROW(parse_key(hex("0001 00")), wire::DecodeError);
}

TEST(Replay, LatestValueWinsAndTombstonesDelete) {
    Replayer r;
    std::int64_t next = 0;  // the log offset of the next record
    auto value = [](std::int64_t o) {
        OffsetAndMetadata m;
        m.offset = o;
        return offset_commit_value(m);
    };
    r.apply(offset_commit_key("g", {"t", 0}), value(1), next++);
    r.apply(offset_commit_key("g", {"t", 0}), value(2), next++);
    r.apply(offset_commit_key("g", {"t", 1}), value(5), next++);
    r.apply(offset_commit_key("g", {"t", 1}), std::nullopt, next++);
    msg::GroupMetadataValue gv;
    gv.protocol_type = "consumer";
    gv.generation = 4;
    r.apply(group_metadata_key("g"), group_metadata_value(gv), next++);
    r.apply(group_metadata_key("h"), group_metadata_value(gv), next++);
    r.apply(group_metadata_key("h"), std::nullopt, next++);
    r.apply(offset_commit_key("gone", {"t", 0}), value(1), next++);
    r.apply(offset_commit_key("gone", {"t", 0}), std::nullopt, next++);
    auto groups = r.take();
    ASSERT_EQ(groups.size(), 1u);
    const auto& g = groups.at("g");
    ASSERT_TRUE(g.metadata.has_value());
    EXPECT_EQ(g.metadata->generation, 4);
    ASSERT_EQ(g.offsets.size(), 1u);
    EXPECT_EQ(g.offsets.at({"t", 0}).offset, 2);
}

TEST(Replay, GroupTombstoneKeepsOffsets) {
    Replayer r;
    std::int64_t next = 0;  // the log offset of the next record
    OffsetAndMetadata m;
    m.offset = 9;
    r.apply(offset_commit_key("g", {"t", 0}), offset_commit_value(m), next++);
    r.apply(group_metadata_key("g"), group_metadata_value(msg::GroupMetadataValue{}), next++);
    r.apply(group_metadata_key("g"), std::nullopt, next++);
    auto groups = r.take();
    ASSERT_TRUE(groups.contains("g"));
    EXPECT_FALSE(groups.at("g").metadata.has_value());
    EXPECT_EQ(groups.at("g").offsets.at({"t", 0}).offset, 9);
}

TEST(Replay, RecordsOfBatchesFromAnOffset) {
    std::vector<KeyValue> kvs{
        {bytes_of("k0"), bytes_of("v0")}, {bytes_of("k1"), std::nullopt}, {bytes_of("k2"), bytes_of("v2")}};
    auto batch = build_batch(kvs, 1000);
    records::set_base_offset(batch, 10);
    std::vector<std::pair<std::int64_t, bool>> seen;
    auto next = for_each_record(batch, 11, [&](const StoredRecord& r) {
        seen.emplace_back(r.offset, r.value.has_value());
        EXPECT_EQ(r.timestamp, 1000);
    });
    EXPECT_EQ(next, 13);
    EXPECT_EQ(seen, (std::vector<std::pair<std::int64_t, bool>>{{11, false}, {12, true}}));
}

TEST(Replay, TransactionalOffsetsWaitForTheirMarker) {
    Replayer r;
    std::int64_t next = 0;  // the log offset of the next record
    auto value = [](std::int64_t o) {
        OffsetAndMetadata m;
        m.offset = o;
        return offset_commit_value(m);
    };
    r.apply(offset_commit_key("g", {"t", 0}), value(1), next++);
    r.apply(offset_commit_key("g", {"t", 0}), value(10), next++, 100);  // producer 100, committed below
    r.apply(offset_commit_key("g", {"t", 1}), value(20), next++, 200);  // producer 200, aborted below
    r.apply(offset_commit_key("h", {"t", 0}), value(30), next++, 300);  // producer 300, no marker yet
    r.end_transaction(100, true);
    r.end_transaction(200, false);
    auto groups = r.take();
    EXPECT_EQ(groups.at("g").offsets.at({"t", 0}).offset, 10);
    EXPECT_FALSE(groups.at("g").offsets.contains({"t", 1}));
    EXPECT_TRUE(groups.at("g").pending_txn_offsets.empty());
    ASSERT_TRUE(groups.contains("h"));
    EXPECT_TRUE(groups.at("h").offsets.empty());
    EXPECT_EQ(groups.at("h").pending_txn_offsets.at(300).at({"t", 0}).offset, 30);
}

TEST(Replay, ACommittedTransactionKeepsALaterPlainCommit) {
    Replayer r;
    auto value = [](std::int64_t o) {
        OffsetAndMetadata m;
        m.offset = o;
        return offset_commit_value(m);
    };
    r.apply(offset_commit_key("g", {"t", 0}), value(10), 5, 100);  // TxnOffsetCommit of producer 100
    r.apply(offset_commit_key("g", {"t", 0}), value(11), 6);       // a plain OffsetCommit after it
    r.apply(offset_commit_key("g", {"t", 1}), value(20), 7, 100);
    r.apply(offset_commit_key("g", {"t", 1}), std::nullopt, 8);  // deleted: the transaction's offset goes too
    r.end_transaction(100, true);
    auto groups = r.take();
    EXPECT_EQ(groups.at("g").offsets.at({"t", 0}).offset, 11);
    EXPECT_EQ(groups.at("g").offsets.at({"t", 0}).record_offset, 6);
    EXPECT_FALSE(groups.at("g").offsets.contains({"t", 1}));
}

TEST(Replay, MarkersOfControlBatchesAndTransactionalRecords) {
    std::vector<KeyValue> kvs{{bytes_of("k0"), bytes_of("v0")}};
    auto data = build_batch(kvs, 1000, runtime::TxnProducer{42, 3});
    records::set_base_offset(data, 5);
    records::BatchBuilderOptions marker;
    marker.base_offset = 6;
    marker.base_timestamp = 1001;
    marker.producer_id = 42;
    marker.producer_epoch = 3;
    marker.transactional = true;
    marker.control = true;
    records::Record control;
    control.key = wire::Bytes{0, 0, 0, 1};  // version 0, COMMIT
    control.value = wire::Bytes{0, 0, 0, 0, 0, 7};
    auto batch = records::build_batch(marker, std::vector<records::Record>{control});
    data.insert(data.end(), batch.begin(), batch.end());
    std::vector<std::optional<std::int64_t>> producers;
    std::vector<StoredMarker> markers;
    auto next = for_each_record(
        data, 0, [&](const StoredRecord& r) { producers.push_back(r.txn_producer_id); },
        [&](const StoredMarker& m) { markers.push_back(m); });
    EXPECT_EQ(next, 7);
    EXPECT_EQ(producers, (std::vector<std::optional<std::int64_t>>{42}));
    ASSERT_EQ(markers.size(), 1u);
    EXPECT_EQ(markers[0].offset, 6);
    EXPECT_EQ(markers[0].producer_id, 42);
    EXPECT_TRUE(markers[0].commit);
}

TEST(Partitioner, JavaStringHashCode) {
    EXPECT_EQ(java_string_hash(""), 0);
    EXPECT_EQ(java_string_hash("hello"), 99162322);
    EXPECT_EQ(java_string_hash("my-group"), -1906497762);
    EXPECT_EQ(java_string_hash("\xC3\xA9"), 233);              // é: one UTF-16 unit
    EXPECT_EQ(java_string_hash("\xF0\x9F\x98\x80"), 1772899);  // U+1F600: a surrogate pair
}

TEST(Partitioner, PartitionForGroup) {
    EXPECT_EQ(partition_for("hello", 50), 22);
    EXPECT_EQ(partition_for("my-group", 50), 12);
    EXPECT_EQ(partition_for("polygenelubricants", 50), 0);  // hashCode is Integer.MIN_VALUE; abs() of it is 0
    EXPECT_EQ(partition_for("console-consumer-1", 50), 24);
    EXPECT_EQ(partition_for("anything", 1), 0);
}

}  // namespace
}  // namespace weir::coordinator::store
