// Byte-exact encodings worked out by hand from the Kafka specs, and malformed
// input, for the generated message codecs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>

#include "messages/api_table.h"
#include "messages/api_versions.h"
#include "messages/consumer_group_heartbeat.h"
#include "messages/fetch.h"
#include "messages/metadata.h"
#include "messages/produce.h"

namespace weir::msg {
namespace {

using wire::Bytes;

Bytes concat(std::initializer_list<std::uint8_t> head, std::string_view s = {},
             std::initializer_list<std::uint8_t> tail = {}) {
    Bytes b(head);
    b.insert(b.end(), s.begin(), s.end());
    b.insert(b.end(), tail.begin(), tail.end());
    return b;
}

Bytes operator+(Bytes a, const Bytes& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

template <class T>
Bytes encode(const T& value, std::int16_t version) {
    Bytes out;
    wire::Writer w(out);
    value.encode(w, version);
    EXPECT_EQ(out.size(), value.size(version));
    return out;
}

template <class T>
T decode(const Bytes& bytes, std::int16_t version) {
    wire::Reader r(bytes);
    T value = T::decode(r, version);
    EXPECT_TRUE(r.at_end());
    return value;
}

template <class T>
void expect_decode_error(const Bytes& bytes, std::int16_t version) {
    wire::Reader r(bytes);
    EXPECT_THROW((void)T::decode(r, version), wire::DecodeError);
}

ApiVersionsResponse sample_api_versions_response() {
    ApiVersionsResponse resp;
    resp.api_keys.push_back({.api_key = 18, .min_version = 0, .max_version = 4});
    resp.finalized_features_epoch = 5;  // tag 1
    resp.zk_migration_ready = true;     // tag 3
    return resp;
}

// error_code, api_keys [{18, 0, 4}] (compact, element tagged section), throttle_time_ms
const Bytes kApiVersionsV3Body = {0x00, 0x00, 0x02, 0x00, 0x12, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00};
const Bytes kApiVersionsV3Tags = {0x02,                                                        // two tagged fields
                                  0x01, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05,  // tag 1: int64 5
                                  0x03, 0x01, 0x01};                                           // tag 3: bool true

TEST(GeneratedSpot, ApiVersionsRequestV3WithClientSoftware) {
    ApiVersionsRequest req;
    req.client_software_name = "librdkafka";
    req.client_software_version = "2.0.2";
    const Bytes expected = concat({0x0b}, "librdkafka") + concat({0x06}, "2.0.2", {0x00});
    EXPECT_EQ(encode(req, 3), expected);
    EXPECT_EQ(decode<ApiVersionsRequest>(expected, 3), req);
    // v0-v2 have no fields at all; flexible defaults are two empty compact strings.
    EXPECT_EQ(encode(req, 2), Bytes{});
    EXPECT_EQ(encode(ApiVersionsRequest{}, 3), (Bytes{0x01, 0x01, 0x00}));
}

TEST(GeneratedSpot, MetadataRequestV0TopicList) {
    MetadataRequest req;
    req.topics = std::vector<MetadataRequest::MetadataRequestTopic>(2);
    (*req.topics)[0].name = "a";
    (*req.topics)[1].name = "bc";
    const Bytes expected = {0x00, 0x00, 0x00, 0x02, 0x00, 0x01, 'a', 0x00, 0x02, 'b', 'c'};
    EXPECT_EQ(encode(req, 0), expected);
    EXPECT_EQ(decode<MetadataRequest>(expected, 0), req);
}

TEST(GeneratedSpot, MetadataRequestNullTopicsOnlyFromV1) {
    MetadataRequest all_topics;
    all_topics.topics = std::nullopt;
    EXPECT_EQ(encode(all_topics, 1), (Bytes{0xff, 0xff, 0xff, 0xff}));
    EXPECT_THROW((void)encode(all_topics, 0), wire::EncodeError);
    EXPECT_FALSE(decode<MetadataRequest>(Bytes{0xff, 0xff, 0xff, 0xff}, 1).topics.has_value());
    expect_decode_error<MetadataRequest>(Bytes{0xff, 0xff, 0xff, 0xff}, 0);
}

TEST(GeneratedSpot, MetadataRequestV9AndV12) {
    MetadataRequest req;
    req.topics = std::vector<MetadataRequest::MetadataRequestTopic>(1);
    (*req.topics)[0].name = "a";
    // topics (compact count 1), name "a", topic tags, allow_auto_topic_creation (default true),
    // include_cluster_authorized_operations (v8-10), include_topic_authorized_operations, tags
    EXPECT_EQ(encode(req, 9), (Bytes{0x02, 0x02, 'a', 0x00, 0x01, 0x00, 0x00, 0x00}));
    EXPECT_EQ(decode<MetadataRequest>(encode(req, 9), 9), req);

    // v12: topic id first, name nullable, no cluster-operations flag.
    (*req.topics)[0].name = std::nullopt;
    (*req.topics)[0].topic_id.bytes[15] = 7;
    Bytes expected = {0x02};
    expected.insert(expected.end(), 15, 0x00);
    expected = expected + Bytes{0x07, 0x00, 0x00, 0x01, 0x00, 0x00};
    EXPECT_EQ(encode(req, 12), expected);
    EXPECT_EQ(decode<MetadataRequest>(expected, 12), req);
    EXPECT_THROW((void)encode(req, 9), wire::EncodeError);  // name not nullable before v10
}

TEST(GeneratedSpot, ApiVersionsResponseWithTaggedFields) {
    const ApiVersionsResponse resp = sample_api_versions_response();
    const Bytes expected = kApiVersionsV3Body + kApiVersionsV3Tags;
    EXPECT_EQ(encode(resp, 3), expected);
    EXPECT_EQ(decode<ApiVersionsResponse>(expected, 3), resp);
    // v0: no throttle time, no tagged sections, classic int32 array length.
    EXPECT_EQ(encode(resp, 0), (Bytes{0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x12, 0x00, 0x00, 0x00, 0x04}));
    // Tagged fields at their defaults are not written.
    ApiVersionsResponse plain = resp;
    plain.finalized_features_epoch = -1;
    plain.zk_migration_ready = false;
    EXPECT_EQ(encode(plain, 3), kApiVersionsV3Body + Bytes{0x00});
}

TEST(GeneratedSpot, TaggedStructInFetchResponse) {
    FetchResponse resp;
    resp.responses.resize(1);
    auto& partition = resp.responses[0].partitions.emplace_back();
    partition.diverging_epoch.epoch = 3;
    partition.diverging_epoch.end_offset = 9;
    const Bytes bytes = encode(resp, 12);
    // tag 0, 13-byte payload: epoch int32, end_offset int64, empty tag section.
    const Bytes tag = {0x01, 0x00, 0x0d, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x09, 0x00};
    EXPECT_NE(std::search(bytes.begin(), bytes.end(), tag.begin(), tag.end()), bytes.end());
    EXPECT_EQ(decode<FetchResponse>(bytes, 12), resp);
}

TEST(GeneratedSpot, NullableStructPresenceByte) {
    ConsumerGroupHeartbeatResponse resp;
    const Bytes head = {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    // throttle, error, null message, null member id, epoch, interval, then the assignment.
    EXPECT_EQ(encode(resp, 0), (head + Bytes{0xff, 0x00}));
    resp.assignment.emplace();
    EXPECT_EQ(encode(resp, 0), (head + Bytes{0x01, 0x01, 0x00, 0x00}));
    EXPECT_EQ(decode<ConsumerGroupHeartbeatResponse>((head + Bytes{0x01, 0x01, 0x00, 0x00}), 0), resp);
    EXPECT_FALSE(decode<ConsumerGroupHeartbeatResponse>((head + Bytes{0xff, 0x00}), 0).assignment.has_value());
}

TEST(GeneratedSpot, TruncatedInputAlwaysThrows) {
    const Bytes full = kApiVersionsV3Body + kApiVersionsV3Tags;
    for (std::size_t n = 0; n < full.size(); ++n) {
        SCOPED_TRACE(n);
        expect_decode_error<ApiVersionsResponse>(Bytes(full.begin(), full.begin() + static_cast<long>(n)), 3);
    }
    ProduceRequest req;
    req.transactional_id = "tx";
    req.topic_data.resize(1);
    req.topic_data[0].name = "t";
    req.topic_data[0].partition_data.resize(1);
    req.topic_data[0].partition_data[0].records = wire::RecordsData(Bytes(40, 0x5a));
    for (std::int16_t v : {std::int16_t{3}, std::int16_t{9}}) {
        const Bytes bytes = encode(req, v);
        for (std::size_t n = 0; n < bytes.size(); ++n) {
            expect_decode_error<ProduceRequest>(Bytes(bytes.begin(), bytes.begin() + static_cast<long>(n)), v);
        }
    }
}

TEST(GeneratedSpot, NegativeLengths) {
    // Trailing padding, so a length misread as null or empty would not fail by truncation.
    const Bytes pad(16, 0x00);
    expect_decode_error<MetadataRequest>(Bytes{0xff, 0xff, 0xff, 0xfe} + pad, 1);              // array -2
    expect_decode_error<MetadataRequest>(Bytes{0x00, 0x00, 0x00, 0x01, 0xff, 0xff} + pad, 0);  // null name, v0
    expect_decode_error<MetadataRequest>(Bytes{0x00, 0x00, 0x00, 0x01, 0xff, 0xfe} + pad, 0);  // string -2
    // Produce v3: transactional id length -2.
    expect_decode_error<ProduceRequest>(Bytes{0xff, 0xfe} + pad, 3);
    // Produce v3: records length -2.
    expect_decode_error<ProduceRequest>(
        Bytes{0xff, 0xff, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01,
              't',  0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xfe} +
            pad,
        3);
    // ...and the same frame with length -1 decodes to null records.
    const auto null_records =
        decode<ProduceRequest>(Bytes{0xff, 0xff, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01,
                                     't',  0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff},
                               3);
    EXPECT_FALSE(null_records.topic_data.at(0).partition_data.at(0).records.has_value());
}

TEST(GeneratedSpot, OversizedLengths) {
    expect_decode_error<MetadataRequest>(Bytes{0x7f, 0xff, 0xff, 0xff}, 0);                   // huge array
    expect_decode_error<MetadataRequest>(Bytes{0x00, 0x00, 0x00, 0x01, 0x00, 0x64, 'a'}, 0);  // string past end
    expect_decode_error<ApiVersionsRequest>(Bytes{0xff, 0xff, 0x03}, 3);                      // compact, past end
    // A compact string longer than Kafka's 32767-byte cap, even with the bytes present.
    Bytes big = {0x82, 0x80, 0x02};  // varint 32770 -> length 32769
    big.resize(big.size() + 32769 + 2, 'x');
    expect_decode_error<ApiVersionsRequest>(big, 3);
    ApiVersionsRequest too_long;
    too_long.client_software_name.assign(40000, 'x');
    EXPECT_THROW((void)encode(too_long, 3), wire::EncodeError);
}

TEST(GeneratedSpot, BadUnsignedVarint) {
    expect_decode_error<ApiVersionsRequest>(Bytes{0xff, 0xff, 0xff, 0xff, 0x7f}, 3);        // overflows 32 bits
    expect_decode_error<ApiVersionsRequest>(Bytes{0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 3);  // too long
    expect_decode_error<ApiVersionsRequest>(Bytes{0x01, 0x01, 0x80}, 3);                    // tag count cut off
}

TEST(GeneratedSpot, UnknownTaggedFieldsPreservedAndReencoded) {
    // Empty name and version, then tags 5 (two bytes) and 9 (empty).
    const Bytes bytes = {0x01, 0x01, 0x02, 0x05, 0x02, 0xab, 0xcd, 0x09, 0x00};
    const auto req = decode<ApiVersionsRequest>(bytes, 3);
    ASSERT_EQ(req.unknown_tagged_fields.size(), 2U);
    EXPECT_EQ(req.unknown_tagged_fields[0], (wire::TaggedField{5, {0xab, 0xcd}}));
    EXPECT_EQ(req.unknown_tagged_fields[1], (wire::TaggedField{9, {}}));
    EXPECT_EQ(encode(req, 3), bytes);
}

TEST(GeneratedSpot, UnknownTagsSortedAndMergedWithKnown) {
    ApiVersionsResponse resp = sample_api_versions_response();
    resp.unknown_tagged_fields = {{7, {0xaa}}, {4, {}}};
    const Bytes expected = kApiVersionsV3Body + Bytes{0x04, 0x01, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                                      0x05, 0x03, 0x01, 0x01, 0x04, 0x00, 0x07, 0x01, 0xaa};
    EXPECT_EQ(encode(resp, 3), expected);
    const auto back = decode<ApiVersionsResponse>(expected, 3);
    EXPECT_EQ(back.unknown_tagged_fields, (std::vector<wire::TaggedField>{{4, {}}, {7, {0xaa}}}));

    resp.unknown_tagged_fields = {{1, {0x00}}};  // collides with FinalizedFeaturesEpoch
    EXPECT_THROW((void)encode(resp, 3), wire::EncodeError);
}

TEST(GeneratedSpot, TaggedPayloadMustBeConsumedExactly) {
    // ZkMigrationReady (bool) with a two-byte payload.
    expect_decode_error<ApiVersionsResponse>(kApiVersionsV3Body + Bytes{0x01, 0x03, 0x02, 0x01, 0x00}, 3);
    // FinalizedFeaturesEpoch (int64) with a four-byte payload.
    expect_decode_error<ApiVersionsResponse>(kApiVersionsV3Body + Bytes{0x01, 0x01, 0x04, 0x00, 0x00, 0x00, 0x05}, 3);
}

TEST(GeneratedSpot, RecordsAliasTheInputWhenOwned) {
    ProduceRequest req;
    req.topic_data.resize(1);
    req.topic_data[0].partition_data.resize(1);
    req.topic_data[0].partition_data[0].records = wire::RecordsData(Bytes(64, 0x11));
    auto buffer = std::make_shared<const Bytes>(encode(req, 9));
    wire::Reader owned(*buffer, buffer);
    const auto zero_copy = ProduceRequest::decode(owned, 9);
    const auto view = zero_copy.topic_data[0].partition_data[0].records->bytes();
    EXPECT_GE(view.data(), buffer->data());
    EXPECT_LE(view.data() + view.size(), buffer->data() + buffer->size());

    wire::Reader unowned(*buffer);
    const auto copied = ProduceRequest::decode(unowned, 9);
    const auto copy_view = copied.topic_data[0].partition_data[0].records->bytes();
    EXPECT_TRUE(copy_view.data() < buffer->data() || copy_view.data() >= buffer->data() + buffer->size());
    EXPECT_EQ(zero_copy, copied);
}

TEST(GeneratedSpot, VersionRangeIsEnforced) {
    static_assert(ProduceRequest::api_key == 0 && ProduceRequest::max_version == 11);
    static_assert(ProduceRequest::first_flexible_version == 9);
    static_assert(ConsumerGroupHeartbeatRequest::latest_version_unstable);
    static_assert(ConsumerGroupHeartbeatResponse::latest_version_unstable);
    static_assert(!MetadataRequest::latest_version_unstable);
    expect_decode_error<ProduceRequest>(Bytes(64, 0), 12);
    expect_decode_error<ProduceRequest>(Bytes(64, 0), -1);
    EXPECT_THROW((void)encode(ProduceRequest{}, 12), wire::EncodeError);
}

TEST(GeneratedSpot, ApiTable) {
    EXPECT_EQ(kApis.size(), 41U);
    for (std::size_t i = 1; i < kApis.size(); ++i) EXPECT_LT(kApis[i - 1].key, kApis[i].key);
    const ApiInfo* api_versions = find_api(18);
    ASSERT_NE(api_versions, nullptr);
    EXPECT_EQ(api_versions->name, "ApiVersions");
    EXPECT_EQ(api_versions->max_version, 4);
    EXPECT_EQ(api_versions->first_flexible_version, 3);
    EXPECT_EQ(find_api(4), nullptr);
    EXPECT_EQ(find_api(-1), nullptr);
    ASSERT_NE(find_api(68), nullptr);
    EXPECT_TRUE(find_api(68)->latest_version_unstable);
    EXPECT_EQ(find_api(47)->first_flexible_version, -1);
    EXPECT_EQ(api_name(ApiKey::Produce), "Produce");
    EXPECT_EQ(api_name(ApiKey::ConsumerGroupHeartbeat), "ConsumerGroupHeartbeat");

    const int key = visit_api(ApiKey::Metadata, [](auto req, auto resp) {
        using Req = typename decltype(req)::type;
        using Resp = typename decltype(resp)::type;
        static_assert(Req::api_key == Resp::api_key);
        return static_cast<int>(Req::api_key);
    });
    EXPECT_EQ(key, 3);
    EXPECT_THROW(visit_api(static_cast<ApiKey>(4), [](auto, auto) { return 0; }), std::out_of_range);
    for (const ApiInfo& info : kApis) {
        const bool matches = visit_api(info.key, [&](auto req, auto) {
            using Req = typename decltype(req)::type;
            return Req::api_key == static_cast<std::int16_t>(info.key) && Req::max_version == info.max_version;
        });
        EXPECT_TRUE(matches) << info.name;
    }
}

}  // namespace
}  // namespace weir::msg
