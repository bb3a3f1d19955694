// Real request frames from librdkafka 2.0.2 (kcat) and kafkajs 2.2.4, see
// fixtures/golden/NOTES.md. For each frame the header and body decoders must
// find exactly what NOTES.md lists, consume every byte, and encode the decoded
// values back to the identical frame (so nothing the client sent is lost).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>

#include "messages/api_versions.h"
#include "messages/consumer_protocol.h"
#include "messages/fetch.h"
#include "messages/find_coordinator.h"
#include "messages/heartbeat.h"
#include "messages/join_group.h"
#include "messages/leave_group.h"
#include "messages/list_offsets.h"
#include "messages/metadata.h"
#include "messages/offset_commit.h"
#include "messages/offset_fetch.h"
#include "messages/produce.h"
#include "messages/sync_group.h"
#include "protocol/header.h"
#include "protocol/records/compression.h"
#include "protocol/records/record_batch.h"

namespace weir::protocol {
namespace {

using wire::Bytes;
using wire::ByteSpan;

std::filesystem::path golden_dir() { return std::filesystem::path(WEIR_FIXTURES_DIR) / "golden"; }

Bytes from_hex(std::string_view hex) {
    Bytes out;
    auto nibble = [](char c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        throw std::invalid_argument("bad hex digit");
    };
    std::size_t i = 0;
    while (i < hex.size()) {
        if (hex[i] == ' ') {
            ++i;
            continue;
        }
        out.push_back(static_cast<std::uint8_t>(nibble(hex[i]) << 4 | nibble(hex[i + 1])));
        i += 2;
    }
    return out;
}

Bytes to_bytes(std::string_view s) { return Bytes(s.begin(), s.end()); }

// Index of the first differing byte (or the shorter length), for messages.
std::size_t first_difference(ByteSpan a, ByteSpan b) {
    auto [ia, ib] = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
    return static_cast<std::size_t>(ia - a.begin());
}

// One fixture, read as the broker reads a frame: the Reader owns the buffer, so
// `records` fields alias it.
class Frame {
public:
    explicit Frame(const std::string& name) : name_(name), file_(load(name)), reader_(ByteSpan(*file_), file_) {
        size_prefix_ = reader_.int32();
        header_ = decode_request_header(reader_);
        header_version_ = request_header_version(header_.api_key, header_.api_version);
        body_offset_ = reader_.position();
    }

    [[nodiscard]] const Bytes& file() const { return *file_; }
    [[nodiscard]] const RequestHeader& header() const { return header_; }
    [[nodiscard]] int header_version() const { return header_version_; }

    void expect_header(std::int32_t size, std::int16_t api_key, std::int16_t api_version, std::int32_t correlation_id,
                       const std::string& client_id, int header_version = 1) const {
        SCOPED_TRACE(name_);
        EXPECT_EQ(file_->size(), static_cast<std::size_t>(size) + 4);
        EXPECT_EQ(size_prefix_, size);
        EXPECT_EQ(header_.api_key, api_key);
        EXPECT_EQ(header_.api_version, api_version);
        EXPECT_EQ(header_.correlation_id, correlation_id);
        EXPECT_EQ(header_.client_id, std::optional<std::string>(client_id));
        EXPECT_TRUE(header_.unknown_tagged_fields.empty());
        EXPECT_EQ(header_version_, header_version);
    }

    // Decodes the body, checks that it used every byte, and that the header
    // and body encode back to the file byte for byte.
    template <typename Msg>
    Msg decode_body() {
        SCOPED_TRACE(name_);
        EXPECT_EQ(header_.api_key, Msg::api_key);
        const auto version = header_.api_version;
        Msg msg = Msg::decode(reader_, version);
        EXPECT_TRUE(reader_.at_end()) << reader_.remaining() << " body bytes not consumed";
        EXPECT_EQ(msg.size(version), file_->size() - body_offset_);

        Bytes out;
        wire::Writer w(out);
        w.int32(0);
        encode_request_header(w, header_, header_version_);
        msg.encode(w, version);
        wire::Bytes size;
        wire::Writer(size).int32(static_cast<std::int32_t>(out.size() - 4));
        std::copy(size.begin(), size.end(), out.begin());
        EXPECT_TRUE(out == *file_) << "re-encoded frame differs at byte " << first_difference(out, *file_) << " (got "
                                   << out.size() << " bytes, file has " << file_->size() << ")";
        return msg;
    }

private:
    static std::shared_ptr<const Bytes> load(const std::string& name) {
        std::ifstream in(golden_dir() / name, std::ios::binary);
        if (!in) throw std::runtime_error("cannot open fixture " + name);
        return std::make_shared<const Bytes>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }

    std::string name_;
    std::shared_ptr<const Bytes> file_;
    wire::Reader reader_;
    std::int32_t size_prefix_ = 0;
    RequestHeader header_;
    int header_version_ = 0;
    std::size_t body_offset_ = 0;
};

// Consumer-protocol payloads carry their own int16 version in front.
template <typename Msg>
Msg decode_consumer_protocol(const Bytes& data, std::int16_t expected_version) {
    wire::Reader r(data);
    const std::int16_t version = r.int16();
    EXPECT_EQ(version, expected_version);
    Msg msg = Msg::decode(r, version);
    EXPECT_TRUE(r.at_end()) << r.remaining() << " bytes not consumed";
    Bytes again;
    wire::Writer w(again);
    w.int16(version);
    msg.encode(w, version);
    EXPECT_EQ(again, data);
    return msg;
}

// ---- Every fixture is covered ----

const std::set<std::string>& checked_fixtures() {
    static const std::set<std::string> names = {
        "librdkafka-01-ApiVersions-v3.bin",     "librdkafka-02-ApiVersions-v0.bin",
        "librdkafka-03-Metadata-v4.bin",        "librdkafka-04-Produce-v7.bin",
        "librdkafka-05-ListOffsets-v2.bin",     "librdkafka-06-Fetch-v11.bin",
        "librdkafka-07-FindCoordinator-v2.bin", "librdkafka-08-JoinGroup-v5.bin",
        "librdkafka-09-SyncGroup-v3.bin",       "librdkafka-10-Heartbeat-v3.bin",
        "librdkafka-11-OffsetFetch-v5.bin",     "librdkafka-12-OffsetCommit-v7.bin",
        "librdkafka-13-LeaveGroup-v1.bin",      "kafkajs-01-ApiVersions-v2.bin",
        "kafkajs-02-Metadata-v6.bin",           "kafkajs-03-Produce-v7.bin",
        "kafkajs-04-FindCoordinator-v2.bin",    "kafkajs-05-JoinGroup-v5.bin",
        "kafkajs-06-SyncGroup-v3.bin",          "kafkajs-07-OffsetFetch-v4.bin",
        "kafkajs-08-ListOffsets-v3.bin",        "kafkajs-09-Fetch-v11.bin",
        "kafkajs-10-Heartbeat-v3.bin",          "kafkajs-11-OffsetCommit-v5.bin",
        "kafkajs-12-LeaveGroup-v1.bin",
    };
    return names;
}

TEST(GoldenRequests, EveryFixtureHasATest) {
    std::set<std::string> on_disk;
    for (const auto& entry : std::filesystem::directory_iterator(golden_dir())) {
        if (entry.path().extension() == ".bin") on_disk.insert(entry.path().filename().string());
    }
    EXPECT_EQ(on_disk, checked_fixtures());
}

// ---- ApiVersions ----

TEST(GoldenRequests, LibrdkafkaApiVersionsV3) {
    Frame f("librdkafka-01-ApiVersions-v3.bin");
    f.expect_header(49, 18, 3, 1, "golden-kcat-producer", 2);
    auto m = f.decode_body<msg::ApiVersionsRequest>();
    EXPECT_EQ(m.client_software_name, "librdkafka");
    EXPECT_EQ(m.client_software_version, "2.0.2");
    EXPECT_TRUE(m.unknown_tagged_fields.empty());
}

TEST(GoldenRequests, LibrdkafkaApiVersionsV0) {
    Frame f("librdkafka-02-ApiVersions-v0.bin");
    f.expect_header(30, 18, 0, 2, "golden-kcat-producer");
    EXPECT_EQ(f.decode_body<msg::ApiVersionsRequest>(), msg::ApiVersionsRequest{});
}

TEST(GoldenRequests, KafkajsApiVersionsV2) {
    Frame f("kafkajs-01-ApiVersions-v2.bin");
    f.expect_header(24, 18, 2, 0, "golden-kafkajs");
    EXPECT_EQ(f.decode_body<msg::ApiVersionsRequest>(), msg::ApiVersionsRequest{});
}

// ---- Metadata ----

void expect_metadata_golden_topic(const msg::MetadataRequest& m) {
    ASSERT_TRUE(m.topics.has_value());
    ASSERT_EQ(m.topics->size(), 1u);
    EXPECT_EQ((*m.topics)[0].name, std::optional<std::string>("golden"));
    EXPECT_EQ((*m.topics)[0].topic_id, Uuid{});
    EXPECT_FALSE(m.include_cluster_authorized_operations);
    EXPECT_FALSE(m.include_topic_authorized_operations);
}

TEST(GoldenRequests, LibrdkafkaMetadataV4) {
    Frame f("librdkafka-03-Metadata-v4.bin");
    f.expect_header(43, 3, 4, 3, "golden-kcat-producer");
    auto m = f.decode_body<msg::MetadataRequest>();
    expect_metadata_golden_topic(m);
    EXPECT_TRUE(m.allow_auto_topic_creation);
}

TEST(GoldenRequests, KafkajsMetadataV6) {
    Frame f("kafkajs-02-Metadata-v6.bin");
    f.expect_header(37, 3, 6, 1, "golden-kafkajs");
    auto m = f.decode_body<msg::MetadataRequest>();
    expect_metadata_golden_topic(m);
    EXPECT_FALSE(m.allow_auto_topic_creation);
}

// ---- Produce ----

struct ExpectedBatch {
    std::size_t file_offset;
    std::size_t length;
    std::int32_t batch_length;
    std::uint32_t crc;
    std::int64_t timestamp;
    std::int16_t producer_epoch;
    std::int32_t base_sequence;
    std::size_t gzip_size;
};

void check_produce(Frame& f, const ExpectedBatch& e) {
    auto m = f.decode_body<msg::ProduceRequest>();
    EXPECT_EQ(m.transactional_id, std::nullopt);
    EXPECT_EQ(m.acks, -1);
    EXPECT_EQ(m.timeout_ms, 30000);
    ASSERT_EQ(m.topic_data.size(), 1u);
    EXPECT_EQ(m.topic_data[0].name, "golden");
    ASSERT_EQ(m.topic_data[0].partition_data.size(), 1u);
    const auto& p = m.topic_data[0].partition_data[0];
    EXPECT_EQ(p.index, 0);
    ASSERT_TRUE(p.records.has_value());

    // Zero copy: the records value is a view of the received frame.
    const ByteSpan batch = p.records->bytes();
    EXPECT_EQ(batch.data(), f.file().data() + e.file_offset);
    ASSERT_EQ(batch.size(), e.length);
    EXPECT_EQ(e.file_offset + e.length, f.file().size());

    const auto h = records::parse_batch_header(batch);
    EXPECT_EQ(h.base_offset, 0);
    EXPECT_EQ(h.batch_length, e.batch_length);
    EXPECT_EQ(h.total_size(), e.length);
    EXPECT_EQ(h.partition_leader_epoch, 0);
    EXPECT_EQ(h.magic, 2);
    EXPECT_EQ(h.crc, e.crc);
    EXPECT_TRUE(records::crc_valid(batch));
    EXPECT_EQ(records::crc32c(batch.subspan(records::kAttributesOffset)), e.crc);
    EXPECT_EQ(h.attributes, 1);
    EXPECT_EQ(h.compression(), records::Compression::gzip);
    EXPECT_EQ(h.timestamp_type(), records::TimestampType::create_time);
    EXPECT_FALSE(h.is_transactional());
    EXPECT_FALSE(h.is_control());
    EXPECT_EQ(h.last_offset_delta, 2);
    EXPECT_EQ(h.base_timestamp, e.timestamp);
    EXPECT_EQ(h.max_timestamp, e.timestamp);
    EXPECT_EQ(h.producer_id, -1);
    EXPECT_EQ(h.producer_epoch, e.producer_epoch);
    EXPECT_EQ(h.base_sequence, e.base_sequence);
    EXPECT_EQ(h.record_count, 3);

    // The gzip payload, and the record framing inside it: 3 x (varint 78 + 78 bytes).
    const ByteSpan gzip = batch.subspan(records::kBatchHeaderSize);
    EXPECT_EQ(gzip.size(), e.gzip_size);
    const Bytes gzip_head = from_hex("1f8b0800000000000003");
    ASSERT_GE(gzip.size(), gzip_head.size());
    EXPECT_TRUE(std::equal(gzip_head.begin(), gzip_head.end(), gzip.begin()));
    const Bytes inflated = records::decompress(records::Compression::gzip, gzip);
    EXPECT_EQ(inflated.size(), 240u);
    wire::Reader rr(inflated);
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(rr.varint(), 78) << "record " << i;
        rr.skip(78);
    }
    EXPECT_TRUE(rr.at_end());

    const auto recs = records::decode_records(batch);
    ASSERT_EQ(recs.size(), 3u);
    for (int i = 0; i < 3; ++i) {
        SCOPED_TRACE("record " + std::to_string(i));
        const auto& r = recs[static_cast<std::size_t>(i)];
        const std::string n = std::to_string(i + 1);
        EXPECT_EQ(r.attributes, 0);
        EXPECT_EQ(r.timestamp_delta, 0);
        EXPECT_EQ(r.offset_delta, i);
        EXPECT_EQ(r.key, std::optional<Bytes>(to_bytes("k" + n)));
        const std::string value = "golden-value-" + n + "-" + std::string(49, 'x');
        EXPECT_EQ(value.size(), 64u);
        EXPECT_EQ(r.value, std::optional<Bytes>(to_bytes(value)));
        ASSERT_EQ(r.headers.size(), 1u);
        EXPECT_EQ(r.headers[0].key, "h1");
        EXPECT_EQ(r.headers[0].value, std::optional<Bytes>(to_bytes("x")));
    }

    // What the broker runs on a client's Produce: must accept both batches
    // (kafkajs sends producer_epoch 0 / base_sequence 0 without a producer id).
    records::ValidateOptions strict;
    strict.deep = true;
    strict.require_dense_offsets = true;
    const auto validated = records::validate_batches(batch, strict);
    ASSERT_EQ(validated.size(), 1u);
    EXPECT_EQ(validated[0], h);
}

TEST(GoldenRequests, LibrdkafkaProduceV7) {
    Frame f("librdkafka-04-Produce-v7.bin");
    f.expect_header(199, 0, 7, 4, "golden-kcat-producer");
    check_produce(f, {66, 137, 125, 0x5b42155e, 1796202310252, -1, -1, 76});
}

TEST(GoldenRequests, KafkajsProduceV7) {
    Frame f("kafkajs-03-Produce-v7.bin");
    f.expect_header(194, 0, 7, 2, "golden-kafkajs");
    check_produce(f, {60, 138, 126, 0x5c53a166, 1796202331421, 0, 0, 77});
}

// ---- ListOffsets ----

void expect_list_offsets_earliest(const msg::ListOffsetsRequest& m) {
    EXPECT_EQ(m.replica_id, -1);
    EXPECT_EQ(m.isolation_level, 1);
    ASSERT_EQ(m.topics.size(), 1u);
    EXPECT_EQ(m.topics[0].name, "golden");
    ASSERT_EQ(m.topics[0].partitions.size(), 1u);
    EXPECT_EQ(m.topics[0].partitions[0].partition_index, 0);
    EXPECT_EQ(m.topics[0].partitions[0].timestamp, -2);
    EXPECT_EQ(m.topics[0].partitions[0].current_leader_epoch, -1);  // v4+, so the default
}

TEST(GoldenRequests, LibrdkafkaListOffsetsV2) {
    Frame f("librdkafka-05-ListOffsets-v2.bin");
    f.expect_header(63, 2, 2, 5, "golden-kcat-consumer");
    expect_list_offsets_earliest(f.decode_body<msg::ListOffsetsRequest>());
}

TEST(GoldenRequests, KafkajsListOffsetsV3) {
    Frame f("kafkajs-08-ListOffsets-v3.bin");
    f.expect_header(57, 2, 3, 7, "golden-kafkajs");
    expect_list_offsets_earliest(f.decode_body<msg::ListOffsetsRequest>());
}

// ---- Fetch ----

void expect_fetch_from_start(const msg::FetchRequest& m, std::int32_t max_bytes) {
    EXPECT_EQ(m.replica_id, -1);
    EXPECT_EQ(m.max_wait_ms, 500);
    EXPECT_EQ(m.min_bytes, 1);
    EXPECT_EQ(m.max_bytes, max_bytes);
    EXPECT_EQ(m.isolation_level, 1);
    EXPECT_EQ(m.session_id, 0);
    EXPECT_EQ(m.session_epoch, -1);
    ASSERT_EQ(m.topics.size(), 1u);
    EXPECT_EQ(m.topics[0].topic, "golden");
    ASSERT_EQ(m.topics[0].partitions.size(), 1u);
    const auto& p = m.topics[0].partitions[0];
    EXPECT_EQ(p.partition, 0);
    EXPECT_EQ(p.current_leader_epoch, -1);
    EXPECT_EQ(p.fetch_offset, 0);
    EXPECT_EQ(p.log_start_offset, -1);
    EXPECT_EQ(p.partition_max_bytes, 1048576);
    EXPECT_TRUE(m.forgotten_topics_data.empty());
    EXPECT_EQ(m.rack_id, "");
}

TEST(GoldenRequests, LibrdkafkaFetchV11) {
    Frame f("librdkafka-06-Fetch-v11.bin");
    f.expect_header(105, 1, 11, 6, "golden-kcat-consumer");
    expect_fetch_from_start(f.decode_body<msg::FetchRequest>(), 52428800);
}

TEST(GoldenRequests, KafkajsFetchV11) {
    Frame f("kafkajs-09-Fetch-v11.bin");
    f.expect_header(99, 1, 11, 0, "golden-kafkajs");
    expect_fetch_from_start(f.decode_body<msg::FetchRequest>(), 10485760);
}

// ---- FindCoordinator ----

TEST(GoldenRequests, LibrdkafkaFindCoordinatorV2) {
    Frame f("librdkafka-07-FindCoordinator-v2.bin");
    f.expect_header(42, 10, 2, 4, "golden-kcat-group");
    auto m = f.decode_body<msg::FindCoordinatorRequest>();
    EXPECT_EQ(m.key, "golden-group");
    EXPECT_EQ(m.key_type, 0);
    EXPECT_TRUE(m.coordinator_keys.empty());
}

TEST(GoldenRequests, KafkajsFindCoordinatorV2) {
    Frame f("kafkajs-04-FindCoordinator-v2.bin");
    f.expect_header(47, 10, 2, 2, "golden-kafkajs");
    auto m = f.decode_body<msg::FindCoordinatorRequest>();
    EXPECT_EQ(m.key, "golden-kafkajs-group");
    EXPECT_EQ(m.key_type, 0);
    EXPECT_TRUE(m.coordinator_keys.empty());
}

// ---- JoinGroup ----

void expect_join_common(const msg::JoinGroupRequest& m, const std::string& group) {
    EXPECT_EQ(m.group_id, group);
    EXPECT_EQ(m.member_id, "");
    EXPECT_EQ(m.group_instance_id, std::nullopt);
    EXPECT_EQ(m.protocol_type, "consumer");
    EXPECT_EQ(m.reason, std::nullopt);
}

TEST(GoldenRequests, LibrdkafkaJoinGroupV5) {
    Frame f("librdkafka-08-JoinGroup-v5.bin");
    f.expect_header(138, 11, 5, 4, "golden-kcat-group");
    auto m = f.decode_body<msg::JoinGroupRequest>();
    expect_join_common(m, "golden-group");
    EXPECT_EQ(m.session_timeout_ms, 45000);
    EXPECT_EQ(m.rebalance_timeout_ms, 300000);
    ASSERT_EQ(m.protocols.size(), 2u);
    EXPECT_EQ(m.protocols[0].name, "range");
    EXPECT_EQ(m.protocols[1].name, "roundrobin");
    const Bytes metadata = from_hex("0001 00000001 0006 676f6c64656e 00000000 00000000");
    ASSERT_EQ(metadata.size(), 22u);
    for (const auto& p : m.protocols) {
        SCOPED_TRACE(p.name);
        EXPECT_EQ(p.metadata, metadata);
        auto sub = decode_consumer_protocol<msg::ConsumerProtocolSubscription>(p.metadata, 1);
        EXPECT_EQ(sub.topics, std::vector<std::string>{"golden"});
        EXPECT_EQ(sub.user_data, std::optional<Bytes>(Bytes{}));
        EXPECT_TRUE(sub.owned_partitions.empty());
    }
}

TEST(GoldenRequests, KafkajsJoinGroupV5) {
    Frame f("kafkajs-05-JoinGroup-v5.bin");
    f.expect_header(114, 11, 5, 3, "golden-kafkajs");
    auto m = f.decode_body<msg::JoinGroupRequest>();
    expect_join_common(m, "golden-kafkajs-group");
    EXPECT_EQ(m.session_timeout_ms, 10000);
    EXPECT_EQ(m.rebalance_timeout_ms, 10000);
    ASSERT_EQ(m.protocols.size(), 1u);
    EXPECT_EQ(m.protocols[0].name, "RoundRobinAssigner");
    EXPECT_EQ(m.protocols[0].metadata, from_hex("0000 00000001 0006 676f6c64656e 00000000"));
    EXPECT_EQ(m.protocols[0].metadata.size(), 18u);
    auto sub = decode_consumer_protocol<msg::ConsumerProtocolSubscription>(m.protocols[0].metadata, 0);
    EXPECT_EQ(sub.topics, std::vector<std::string>{"golden"});
    EXPECT_EQ(sub.user_data, std::optional<Bytes>(Bytes{}));
    EXPECT_TRUE(sub.owned_partitions.empty());
}

// ---- SyncGroup ----

void check_sync_group(Frame& f, const std::string& group, const std::string& member) {
    auto m = f.decode_body<msg::SyncGroupRequest>();
    EXPECT_EQ(m.group_id, group);
    EXPECT_EQ(m.generation_id, 2);
    EXPECT_EQ(m.member_id, member);
    EXPECT_EQ(m.group_instance_id, std::nullopt);
    EXPECT_EQ(m.protocol_type, std::nullopt);  // v5+
    EXPECT_EQ(m.protocol_name, std::nullopt);
    ASSERT_EQ(m.assignments.size(), 1u);
    EXPECT_EQ(m.assignments[0].member_id, member);
    const Bytes assignment = from_hex("0000 00000001 0006 676f6c64656e 00000001 00000000 00000000");
    ASSERT_EQ(assignment.size(), 26u);
    EXPECT_EQ(m.assignments[0].assignment, assignment);
    auto a = decode_consumer_protocol<msg::ConsumerProtocolAssignment>(m.assignments[0].assignment, 0);
    ASSERT_EQ(a.assigned_partitions.size(), 1u);
    EXPECT_EQ(a.assigned_partitions[0].topic, "golden");
    EXPECT_EQ(a.assigned_partitions[0].partitions, std::vector<std::int32_t>{0});
    EXPECT_EQ(a.user_data, std::optional<Bytes>(Bytes{}));
}

TEST(GoldenRequests, LibrdkafkaSyncGroupV3) {
    Frame f("librdkafka-09-SyncGroup-v3.bin");
    f.expect_header(113, 14, 3, 6, "golden-kcat-group");
    check_sync_group(f, "golden-group", "0x7f68e4003040");
}

TEST(GoldenRequests, KafkajsSyncGroupV3) {
    Frame f("kafkajs-06-SyncGroup-v3.bin");
    f.expect_header(118, 14, 3, 5, "golden-kafkajs");
    check_sync_group(f, "golden-kafkajs-group", "0x7f1cdc002700");
}

// ---- Heartbeat ----

TEST(GoldenRequests, LibrdkafkaHeartbeatV3) {
    Frame f("librdkafka-10-Heartbeat-v3.bin");
    f.expect_header(63, 12, 3, 7, "golden-kcat-group");
    auto m = f.decode_body<msg::HeartbeatRequest>();
    EXPECT_EQ(m.group_id, "golden-group");
    EXPECT_EQ(m.generation_id, 2);
    EXPECT_EQ(m.member_id, "0x7f68e4003040");
    EXPECT_EQ(m.group_instance_id, std::nullopt);
}

TEST(GoldenRequests, KafkajsHeartbeatV3) {
    Frame f("kafkajs-10-Heartbeat-v3.bin");
    f.expect_header(68, 12, 3, 8, "golden-kafkajs");
    auto m = f.decode_body<msg::HeartbeatRequest>();
    EXPECT_EQ(m.group_id, "golden-kafkajs-group");
    EXPECT_EQ(m.generation_id, 2);
    EXPECT_EQ(m.member_id, "0x7f1cdc002700");
    EXPECT_EQ(m.group_instance_id, std::nullopt);
}

// ---- OffsetFetch ----

void expect_offset_fetch(const msg::OffsetFetchRequest& m, const std::string& group) {
    EXPECT_EQ(m.group_id, group);
    ASSERT_TRUE(m.topics.has_value());
    ASSERT_EQ(m.topics->size(), 1u);
    EXPECT_EQ((*m.topics)[0].name, "golden");
    EXPECT_EQ((*m.topics)[0].partition_indexes, std::vector<std::int32_t>{0});
    EXPECT_TRUE(m.groups.empty());
    EXPECT_FALSE(m.require_stable);
}

TEST(GoldenRequests, LibrdkafkaOffsetFetchV5) {
    Frame f("librdkafka-11-OffsetFetch-v5.bin");
    f.expect_header(61, 9, 5, 8, "golden-kcat-group");
    expect_offset_fetch(f.decode_body<msg::OffsetFetchRequest>(), "golden-group");
}

TEST(GoldenRequests, KafkajsOffsetFetchV4) {
    Frame f("kafkajs-07-OffsetFetch-v4.bin");
    f.expect_header(66, 9, 4, 6, "golden-kafkajs");
    expect_offset_fetch(f.decode_body<msg::OffsetFetchRequest>(), "golden-kafkajs-group");
}

// ---- OffsetCommit ----

TEST(GoldenRequests, LibrdkafkaOffsetCommitV7) {
    Frame f("librdkafka-12-OffsetCommit-v7.bin");
    f.expect_header(97, 8, 7, 9, "golden-kcat-group");
    auto m = f.decode_body<msg::OffsetCommitRequest>();
    EXPECT_EQ(m.group_id, "golden-group");
    EXPECT_EQ(m.generation_id_or_member_epoch, 2);
    EXPECT_EQ(m.member_id, "0x7f68e4003040");
    EXPECT_EQ(m.group_instance_id, std::nullopt);
    EXPECT_EQ(m.retention_time_ms, -1);
    ASSERT_EQ(m.topics.size(), 1u);
    EXPECT_EQ(m.topics[0].name, "golden");
    ASSERT_EQ(m.topics[0].partitions.size(), 1u);
    const auto& p = m.topics[0].partitions[0];
    EXPECT_EQ(p.partition_index, 0);
    EXPECT_EQ(p.committed_offset, 3);
    EXPECT_EQ(p.committed_leader_epoch, -1);
    EXPECT_EQ(p.committed_metadata, std::optional<std::string>(""));
}

TEST(GoldenRequests, KafkajsOffsetCommitV5) {
    Frame f("kafkajs-11-OffsetCommit-v5.bin");
    f.expect_header(96, 8, 5, 9, "golden-kafkajs");
    auto m = f.decode_body<msg::OffsetCommitRequest>();
    EXPECT_EQ(m.group_id, "golden-kafkajs-group");
    EXPECT_EQ(m.generation_id_or_member_epoch, 2);
    EXPECT_EQ(m.member_id, "0x7f1cdc002700");
    EXPECT_EQ(m.group_instance_id, std::nullopt);  // v7+
    EXPECT_EQ(m.retention_time_ms, -1);            // v2..v4 only
    ASSERT_EQ(m.topics.size(), 1u);
    EXPECT_EQ(m.topics[0].name, "golden");
    ASSERT_EQ(m.topics[0].partitions.size(), 1u);
    const auto& p = m.topics[0].partitions[0];
    EXPECT_EQ(p.partition_index, 0);
    EXPECT_EQ(p.committed_offset, 3);
    EXPECT_EQ(p.committed_leader_epoch, -1);  // v6+
    EXPECT_EQ(p.committed_metadata, std::nullopt);
}

// ---- LeaveGroup ----

TEST(GoldenRequests, LibrdkafkaLeaveGroupV1) {
    Frame f("librdkafka-13-LeaveGroup-v1.bin");
    f.expect_header(57, 13, 1, 10, "golden-kcat-group");
    auto m = f.decode_body<msg::LeaveGroupRequest>();
    EXPECT_EQ(m.group_id, "golden-group");
    EXPECT_EQ(m.member_id, "0x7f68e4003040");
    EXPECT_TRUE(m.members.empty());
}

TEST(GoldenRequests, KafkajsLeaveGroupV1) {
    Frame f("kafkajs-12-LeaveGroup-v1.bin");
    f.expect_header(62, 13, 1, 12, "golden-kafkajs");
    auto m = f.decode_body<msg::LeaveGroupRequest>();
    EXPECT_EQ(m.group_id, "golden-kafkajs-group");
    EXPECT_EQ(m.member_id, "0x7f1cdc002700");
    EXPECT_TRUE(m.members.empty());
}

}  // namespace
}  // namespace weir::protocol
