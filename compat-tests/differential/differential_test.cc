// Weir side by side with Apache Kafka (one broker): 3.9.2 in ZooKeeper mode,
// or the version WEIR_DIFFERENTIAL_REFERENCE names (4.4.0: KRaft, the only
// mode of 4.x). The same requests, built with Weir's codecs, go to both
// brokers in the same order, and their answers are compared field by field
// after normalising what must differ (ports, ids, broker-made times). Every
// difference is either a row of ALLOWED.md that applies to this reference
// (Kafka's answer, Weir's, why) or a failure; so is such a row that no longer
// happens.
#include "compat-tests/differential/differential.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <initializer_list>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "broker/metadata/zookeeper/test/zookeeper_server.h"
#include "harness/broker_process.h"
#include "harness/reference_kafka.h"
#include "harness/sarama.h"
#include "harness/subprocess.h"
#include "messages/add_offsets_to_txn.h"
#include "messages/add_partitions_to_txn.h"
#include "messages/alter_configs.h"
#include "messages/api_versions.h"
#include "messages/create_acls.h"
#include "messages/create_partitions.h"
#include "messages/create_topics.h"
#include "messages/delete_acls.h"
#include "messages/delete_groups.h"
#include "messages/delete_records.h"
#include "messages/delete_topics.h"
#include "messages/describe_acls.h"
#include "messages/describe_cluster.h"
#include "messages/describe_configs.h"
#include "messages/describe_groups.h"
#include "messages/describe_log_dirs.h"
#include "messages/describe_producers.h"
#include "messages/describe_transactions.h"
#include "messages/end_txn.h"
#include "messages/fetch.h"
#include "messages/find_coordinator.h"
#include "messages/heartbeat.h"
#include "messages/incremental_alter_configs.h"
#include "messages/init_producer_id.h"
#include "messages/join_group.h"
#include "messages/leave_group.h"
#include "messages/list_groups.h"
#include "messages/list_offsets.h"
#include "messages/list_transactions.h"
#include "messages/metadata.h"
#include "messages/offset_commit.h"
#include "messages/offset_delete.h"
#include "messages/offset_fetch.h"
#include "messages/offset_for_leader_epoch.h"
#include "messages/produce.h"
#include "messages/sync_group.h"
#include "messages/txn_offset_commit.h"
#include "protocol/records/record_batch.h"

namespace weir::differential {
namespace {

// Both sides run Kafka's defaults but for the group delay (it only makes the
// group scenarios slower), four offsets partitions (quicker to load) and, on
// one broker, what one broker needs: internal topics of one replica.
const std::map<std::string, std::string> kSingleBroker{
    {"offsets.topic.replication.factor", "1"},
    {"transaction.state.log.replication.factor", "1"},
    {"transaction.state.log.min.isr", "1"},
};

using Scenario = std::function<json::value(Peer&)>;

struct Named {
    std::string name;
    Scenario run;
};

// Three records with keys, values and fixed timestamps, as one batch.
wire::RecordsData three_records(std::int64_t base_timestamp) {
    std::vector<records::Record> rs;
    for (int i = 0; i < 3; ++i) {
        records::Record r;
        r.offset_delta = i;
        r.timestamp_delta = i;
        const std::string key = "k" + std::to_string(i);
        const std::string value = "value-" + std::to_string(i);
        r.key = wire::Bytes(key.begin(), key.end());
        r.value = wire::Bytes(value.begin(), value.end());
        rs.push_back(std::move(r));
    }
    return wire::RecordsData(records::build_batch({.base_timestamp = base_timestamp}, rs));
}

// One record from an idempotent producer.
wire::RecordsData idempotent_record(std::int64_t producer_id, std::int16_t epoch, std::int32_t sequence) {
    records::Record r;
    r.value = wire::Bytes{'v'};
    return wire::RecordsData(records::build_batch({.base_timestamp = 1'700'000'000'000,
                                                   .producer_id = producer_id,
                                                   .producer_epoch = epoch,
                                                   .base_sequence = sequence},
                                                  std::span<const records::Record>(&r, 1)));
}

std::int64_t field(const json::value& v, std::string_view name) {
    const auto* o = v.if_object();
    const auto* f = o != nullptr ? o->if_contains(name) : nullptr;
    return f != nullptr && f->is_int64() ? f->as_int64() : -1;
}

std::string text_field(const json::value& v, std::string_view name) {
    const auto* o = v.if_object();
    const auto* f = o != nullptr ? o->if_contains(name) : nullptr;
    return f != nullptr && f->is_string() ? std::string(f->as_string()) : "";
}

// Sorts a list whose order means nothing (Kafka answers in a hash map's
// order) by each element's `key`.
void sort_by(json::value& list, std::string_view key) {
    if (!list.is_array()) return;
    auto& a = list.as_array();
    std::sort(a.begin(), a.end(),
              [&](const json::value& x, const json::value& y) { return text_field(x, key) < text_field(y, key); });
}

msg::CreateTopicsRequest::CreatableTopic topic(std::string name, std::int32_t partitions, std::int16_t rf,
                                               std::vector<std::pair<std::string, std::string>> configs = {}) {
    msg::CreateTopicsRequest::CreatableTopic t;
    t.name = std::move(name);
    t.num_partitions = partitions;
    t.replication_factor = rf;
    for (auto& [k, v] : configs) {
        msg::CreateTopicsRequest::CreatableTopicConfig c;
        c.name = k;
        c.value = v;
        t.configs.push_back(std::move(c));
    }
    return t;
}

json::value create(Peer& p, std::vector<msg::CreateTopicsRequest::CreatableTopic> topics, bool validate_only = false,
                   std::int16_t version = 7) {
    msg::CreateTopicsRequest r;
    r.topics = std::move(topics);
    r.timeout_ms = 30000;
    r.validate_only = validate_only;
    auto out = p.call<msg::CreateTopicsResponse>(r, version);
    // The configs a created topic reports are compared by DescribeConfigs.
    if (out.is_object())
        for (auto& t : out.as_object()["Topics"].as_array()) t.as_object().erase("Configs");
    return out;
}

json::value metadata(Peer& p, const std::vector<std::string>& names, bool auto_create, std::int16_t version = 12) {
    msg::MetadataRequest r;
    r.topics.emplace();
    for (const auto& n : names) {
        msg::MetadataRequest::MetadataRequestTopic t;
        t.name = n;
        r.topics->push_back(std::move(t));
    }
    r.allow_auto_topic_creation = auto_create;
    return p.call<msg::MetadataResponse>(r, version);
}

json::value produce(Peer& p, const std::string& name, std::int32_t partition, wire::RecordsData data,
                    std::int16_t acks = -1, std::int16_t version = 9) {
    msg::ProduceRequest r;
    r.acks = acks;
    r.timeout_ms = 30000;
    msg::ProduceRequest::TopicProduceData t;
    t.name = name;
    msg::ProduceRequest::PartitionProduceData d;
    d.index = partition;
    d.records = std::move(data);
    t.partition_data.push_back(std::move(d));
    r.topic_data.push_back(std::move(t));
    return p.call<msg::ProduceResponse>(r, version);
}

json::value list_offsets(Peer& p, const std::string& name, std::int32_t partition, std::int64_t timestamp,
                         std::int16_t version = 7, std::int32_t current_leader_epoch = -1) {
    msg::ListOffsetsRequest r;
    r.replica_id = -1;
    msg::ListOffsetsRequest::ListOffsetsTopic t;
    t.name = name;
    msg::ListOffsetsRequest::ListOffsetsPartition part;
    part.partition_index = partition;
    part.timestamp = timestamp;
    part.current_leader_epoch = current_leader_epoch;
    t.partitions.push_back(part);
    r.topics.push_back(std::move(t));
    return p.call<msg::ListOffsetsResponse>(r, version);
}

json::value fetch(Peer& p, const std::string& name, std::int32_t partition, std::int64_t offset,
                  std::int16_t version = 12, std::int32_t current_leader_epoch = -1) {
    msg::FetchRequest r;
    r.max_wait_ms = 0;
    r.min_bytes = 1;
    r.max_bytes = 1 << 20;
    r.session_id = 0;
    r.session_epoch = -1;
    msg::FetchRequest::FetchTopic t;
    t.topic = name;
    msg::FetchRequest::FetchPartition part;
    part.partition = partition;
    part.fetch_offset = offset;
    part.current_leader_epoch = current_leader_epoch;
    part.partition_max_bytes = 1 << 20;
    t.partitions.push_back(part);
    r.topics.push_back(std::move(t));
    return p.call<msg::FetchResponse>(r, version);
}

json::value join(Peer& p, const std::string& group, std::int32_t session_timeout, const std::string& member_id,
                 std::int16_t version = 9) {
    msg::JoinGroupRequest r;
    r.group_id = group;
    r.session_timeout_ms = session_timeout;
    r.rebalance_timeout_ms = 30000;
    r.member_id = member_id;
    r.protocol_type = "consumer";
    msg::JoinGroupRequest::JoinGroupRequestProtocol range;
    range.name = "range";
    range.metadata = wire::Bytes{0, 1, 0, 0, 0, 0, 0, 0, 0, 0};  // v1 subscription: no topics, no user data
    r.protocols.push_back(range);
    return p.call<msg::JoinGroupResponse>(r, version);
}

// Repeats `call` (at most 30 s) while `busy` says its answer is a broker still
// getting ready (a leader being elected, the offsets topic being created):
// Kafka does such work in the background, so its first answer depends on timing.
json::value settled(const std::function<json::value()>& call, const std::function<bool(const json::value&)>& busy) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    auto out = call();
    while (busy(out) && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        out = call();
    }
    return out;
}

// Whether any ErrorCode in `v` is one of `codes`.
bool has_error(const json::value& v, std::initializer_list<std::int64_t> codes) {
    if (v.is_object()) {
        for (const auto& e : v.as_object()) {
            if (e.key() == "ErrorCode" && e.value().is_int64() &&
                std::find(codes.begin(), codes.end(), e.value().as_int64()) != codes.end())
                return true;
            if (has_error(e.value(), codes)) return true;
        }
    } else if (v.is_array()) {
        for (const auto& e : v.as_array())
            if (has_error(e, codes)) return true;
    }
    return false;
}

// LEADER_NOT_AVAILABLE, NOT_LEADER_OR_FOLLOWER, COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE.
constexpr std::initializer_list<std::int64_t> kNotReady{5, 6, 14, 15};
// And NOT_COORDINATOR: KRaft Kafka loads a new coordinator partition after
// FindCoordinator has named it; a client finds the coordinator again and retries.
constexpr std::initializer_list<std::int64_t> kCoordinatorMoving{5, 6, 14, 15, 16};
// And UNKNOWN_TOPIC_OR_PARTITION, right after a creation: KRaft Kafka's
// brokers learn of a topic after the controller has answered CreateTopics.
constexpr std::initializer_list<std::int64_t> kTopicNotReady{3, 5, 6, 14, 15};

std::vector<Named> scenarios() {
    std::vector<Named> s;
    auto add = [&](std::string name, Scenario run) { s.push_back({std::move(name), std::move(run)}); };

    add("ApiVersions v3", [](Peer& p) {
        msg::ApiVersionsRequest r;
        r.client_software_name = "weir-differential";
        r.client_software_version = "1";
        auto out = p.call<msg::ApiVersionsResponse>(r, 3);
        // By API key, so that one API more or less is one difference.
        if (out.is_object()) {
            json::object by_key;
            for (const auto& k : out.as_object()["ApiKeys"].as_array())
                by_key[std::to_string(k.as_object().at("ApiKey").as_int64())] = k;
            out.as_object()["ApiKeys"] = std::move(by_key);
        }
        return out;
    });
    add("ApiVersions at a version the broker does not know", [](Peer& p) {
        // KIP-511: the answer is a v0 one, UNSUPPORTED_VERSION and the versions of ApiVersions.
        // A v3 body and header, as a client sends its newest version.
        return p.call_as<msg::ApiVersionsResponse>(msg::ApiVersionsRequest{}, 3, 99, 0);
    });

    add("Metadata of an unknown topic, no auto-creation",
        [](Peer& p) { return metadata(p, {"no-such-topic"}, false); });
    add("Metadata of an invalid topic name", [](Peer& p) { return metadata(p, {"bad/name"}, true); });

    add("CreateTopics", [](Peer& p) { return create(p, {topic("diff-a", 3, 1)}); });
    add("CreateTopics of an existing topic", [](Peer& p) { return create(p, {topic("diff-a", 3, 1)}); });
    add("CreateTopics with no partitions", [](Peer& p) { return create(p, {topic("diff-b", 0, 1)}); });
    add("CreateTopics with more replicas than brokers", [](Peer& p) { return create(p, {topic("diff-c", 1, 3)}); });
    add("CreateTopics with an unknown config", [](Peer& p) {
        return create(p, {topic("diff-d", 1, 1, {{"no.such.config", "1"}})});
    });
    add("CreateTopics with an invalid config value", [](Peer& p) {
        return create(p, {topic("diff-e", 1, 1, {{"retention.ms", "soon"}})});
    });
    add("CreateTopics with an invalid name", [](Peer& p) { return create(p, {topic("bad/name", 1, 1)}); });
    add("CreateTopics with a name too long", [](Peer& p) { return create(p, {topic(std::string(250, 'x'), 1, 1)}); });
    add("CreateTopics validate only", [](Peer& p) {
        json::object out;
        out["create"] = create(p, {topic("diff-v", 2, 1)}, true);
        out["metadata"] = metadata(p, {"diff-v"}, false);
        return out;
    });
    add("CreateTopics with the broker's defaults", [](Peer& p) { return create(p, {topic("diff-f", -1, -1)}); });
    add("Metadata of a topic", [](Peer& p) {
        return settled([&] { return metadata(p, {"diff-a"}, false); },
                       [](const json::value& v) {
                           return has_error(v, kNotReady) ||
                                  json::serialize(v).find("\"LeaderId\":-1") != std::string::npos;
                       });
    });

    add("Produce", [](Peer& p) {
        json::object out;
        out["first"] = produce(p, "diff-a", 0, three_records(1'700'000'000'000));
        out["second"] = produce(p, "diff-a", 0, three_records(1'700'000'001'000));
        return out;
    });
    add("Produce to an unknown partition", [](Peer& p) { return produce(p, "diff-a", 7, three_records(0)); });
    add("Produce to an unknown topic", [](Peer& p) { return produce(p, "no-such-topic", 0, three_records(0)); });
    add("Produce with acks=2", [](Peer& p) { return produce(p, "diff-a", 1, three_records(0), 2); });
    add("Produce a batch whose CRC is wrong", [](Peer& p) {
        auto bytes = three_records(0).contents();
        bytes.back() ^= 0x01;
        return produce(p, "diff-a", 1, wire::RecordsData(std::move(bytes)));
    });

    add("Produce CreateTimes outside the topic's bounds", [](Peer& p) {
        json::object out;
        out["create"] = create(
            p, {topic("diff-t", 1, 1,
                      {{"message.timestamp.before.max.ms", "60000"}, {"message.timestamp.after.max.ms", "3600000"}})});
        const auto now =
            std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
                .count();
        out["hour old"] = settled([&] { return produce(p, "diff-t", 0, three_records(now - 3'600'000)); },
                                  [](const json::value& v) { return has_error(v, kTopicNotReady); });
        out["two hours ahead"] = produce(p, "diff-t", 0, three_records(now + 7'200'000));
        out["now"] = produce(p, "diff-t", 0, three_records(now));
        return out;
    });
    add("Produce without keys to a compacted topic", [](Peer& p) {
        json::object out;
        out["create"] = create(p, {topic("diff-compacted", 1, 1, {{"cleanup.policy", "compact"}})});
        std::vector<records::Record> rs(2);
        rs[1].offset_delta = 1;
        rs[1].key = wire::Bytes{'k'};
        out["produce"] =
            settled([&] { return produce(p, "diff-compacted", 0, wire::RecordsData(records::build_batch({}, rs))); },
                    [](const json::value& v) { return has_error(v, kTopicNotReady); });
        return out;
    });
    add("Produce a batch larger than max.message.bytes", [](Peer& p) {
        json::object out;
        out["create"] = create(p, {topic("diff-small", 1, 1, {{"max.message.bytes", "100"}})});
        out["produce"] = settled([&] { return produce(p, "diff-small", 0, three_records(0)); },
                                 [](const json::value& v) { return has_error(v, kTopicNotReady); });
        return out;
    });

    add("A topic's compression.type", [](Peer& p) {
        json::object out;
        out["create"] = create(p, {topic("diff-gzip", 1, 1, {{"compression.type", "gzip"}}),
                                   topic("diff-uncompressed", 1, 1, {{"compression.type", "uncompressed"}})});
        std::vector<records::Record> rs(2);
        rs[0].key = wire::Bytes{'a'};
        rs[1].offset_delta = 1;
        rs[1].key = wire::Bytes{'b'};
        const auto busy = [](const json::value& v) { return has_error(v, kTopicNotReady); };
        out["plain to gzip"] =
            settled([&] { return produce(p, "diff-gzip", 0, three_records(1'700'000'000'000)); }, busy);
        out["lz4 to uncompressed"] = settled(
            [&] {
                return produce(
                    p, "diff-uncompressed", 0,
                    wire::RecordsData(records::build_batch(
                        {.compression = records::Compression::lz4, .base_timestamp = 1'700'000'000'000}, rs)));
            },
            busy);
        out["fetch gzip"] = fetch(p, "diff-gzip", 0, 0);
        out["fetch uncompressed"] = fetch(p, "diff-uncompressed", 0, 0);
        return out;
    });
    add("ListOffsets latest, earliest, max timestamp", [](Peer& p) {
        json::object out;
        out["latest"] = list_offsets(p, "diff-a", 0, -1);
        out["earliest"] = list_offsets(p, "diff-a", 0, -2);
        out["max timestamp"] = list_offsets(p, "diff-a", 0, -3);
        out["by time"] = list_offsets(p, "diff-a", 0, 1'700'000'000'500);
        out["unknown partition"] = list_offsets(p, "diff-a", 9, -1);
        return out;
    });

    add("Fetch", [](Peer& p) { return fetch(p, "diff-a", 0, 0); });
    add("Fetch from the middle of a batch", [](Peer& p) { return fetch(p, "diff-a", 0, 4); });
    add("Fetch past the end", [](Peer& p) { return fetch(p, "diff-a", 0, 100); });
    add("Fetch of an unknown topic", [](Peer& p) { return fetch(p, "no-such-topic", 0, 0); });

    add("FindCoordinator of a group", [](Peer& p) {
        msg::FindCoordinatorRequest r;
        r.key_type = 0;
        r.coordinator_keys = {"diff-group"};
        // The first one makes Kafka create __consumer_offsets (COORDINATOR_NOT_AVAILABLE meanwhile).
        return p.call<msg::FindCoordinatorResponse>(r, 4);
    });
    add("JoinGroup with a session timeout too short", [](Peer& p) { return join(p, "diff-group", 10, ""); });
    add("JoinGroup without a member id", [](Peer& p) { return join(p, "diff-group", 10000, ""); });
    add("JoinGroup with an unknown member id", [](Peer& p) { return join(p, "diff-group", 10000, "nobody"); });
    add("Heartbeat of an unknown group", [](Peer& p) {
        msg::HeartbeatRequest r;
        r.group_id = "no-such-group";
        r.generation_id = 1;
        r.member_id = "nobody";
        return p.call<msg::HeartbeatResponse>(r, 4);
    });

    add("OffsetCommit and OffsetFetch without a group generation", [](Peer& p) {
        json::object out;
        msg::OffsetCommitRequest c;
        c.group_id = "diff-simple";
        c.generation_id_or_member_epoch = -1;
        msg::OffsetCommitRequest::OffsetCommitRequestTopic t;
        t.name = "diff-a";
        msg::OffsetCommitRequest::OffsetCommitRequestPartition part;
        part.partition_index = 0;
        part.committed_offset = 2;
        part.committed_metadata = "m";
        t.partitions.push_back(part);
        part.partition_index = 9;
        t.partitions.push_back(part);
        c.topics.push_back(t);
        out["commit"] = p.call<msg::OffsetCommitResponse>(c, 8);
        msg::OffsetFetchRequest f;
        msg::OffsetFetchRequest::OffsetFetchRequestGroup g;
        g.group_id = "diff-simple";
        msg::OffsetFetchRequest::OffsetFetchRequestTopics ft;
        ft.name = "diff-a";
        ft.partition_indexes = {0, 1};
        g.topics.emplace().push_back(ft);
        f.groups.push_back(g);
        out["fetch"] = p.call<msg::OffsetFetchResponse>(f, 8);
        return out;
    });
    add("DescribeGroups of an unknown group", [](Peer& p) {
        msg::DescribeGroupsRequest r;
        r.groups = {"no-such-group"};
        return p.call<msg::DescribeGroupsResponse>(r, 5);
    });
    add("ListGroups", [](Peer& p) {
        auto out = p.call<msg::ListGroupsResponse>(msg::ListGroupsRequest{}, 4);
        if (out.is_object()) {
            auto& groups = out.as_object()["Groups"].as_array();
            std::sort(groups.begin(), groups.end(), [](const json::value& a, const json::value& b) {
                return json::serialize(a) < json::serialize(b);
            });
        }
        return out;
    });

    add("DescribeConfigs of a topic", [](Peer& p) {
        msg::DescribeConfigsRequest r;
        msg::DescribeConfigsRequest::DescribeConfigsResource res;
        res.resource_type = 2;
        res.resource_name = "diff-a";
        res.configuration_keys = std::vector<std::string>{"cleanup.policy", "retention.ms", "max.message.bytes",
                                                          "segment.bytes", "min.insync.replicas"};
        r.resources.push_back(res);
        return p.call<msg::DescribeConfigsResponse>(r, 4);
    });
    add("DescribeConfigs of the timestamp bounds", [](Peer& p) {
        msg::DescribeConfigsRequest r;
        msg::DescribeConfigsRequest::DescribeConfigsResource res;
        res.resource_type = 2;
        res.resource_name = "diff-t";
        res.configuration_keys =
            std::vector<std::string>{"message.timestamp.before.max.ms", "message.timestamp.after.max.ms",
                                     "message.timestamp.difference.max.ms", "message.timestamp.type"};
        r.resources.push_back(res);
        return p.call<msg::DescribeConfigsResponse>(r, 4);
    });
    add("DescribeConfigs of an unknown topic", [](Peer& p) {
        msg::DescribeConfigsRequest r;
        msg::DescribeConfigsRequest::DescribeConfigsResource res;
        res.resource_type = 2;
        res.resource_name = "no-such-topic";
        res.configuration_keys = std::vector<std::string>{"retention.ms"};
        r.resources.push_back(res);
        return p.call<msg::DescribeConfigsResponse>(r, 4);
    });

    add("InitProducerId without a transactional id", [](Peer& p) {
        msg::InitProducerIdRequest r;
        r.transactional_id = std::nullopt;
        r.transaction_timeout_ms = 60000;
        return p.call<msg::InitProducerIdResponse>(r, 4);
    });

    add("Metadata, Produce, Fetch and ListOffsets at old versions", [](Peer& p) {
        json::object out;
        out["metadata v1"] = metadata(p, {"diff-a"}, false, 1);
        out["metadata v4"] = metadata(p, {"diff-a"}, false, 4);
        out["produce v3"] = produce(p, "diff-a", 2, three_records(1'700'000'002'000), 1, 3);
        out["produce v7"] = produce(p, "diff-a", 2, three_records(1'700'000'003'000), 1, 7);
        out["fetch v4"] = fetch(p, "diff-a", 2, 0, 4);
        out["fetch v11"] = fetch(p, "diff-a", 2, 1, 11);
        out["list offsets v1"] = list_offsets(p, "diff-a", 2, -1, 1);
        out["list offsets v4"] = list_offsets(p, "diff-a", 2, -2, 4);
        return out;
    });
    add("OffsetForLeaderEpoch", [](Peer& p) {
        msg::OffsetForLeaderEpochRequest r;
        r.replica_id = -1;
        msg::OffsetForLeaderEpochRequest::OffsetForLeaderTopic t;
        t.topic = "diff-a";
        msg::OffsetForLeaderEpochRequest::OffsetForLeaderPartition part;
        part.partition = 0;
        part.current_leader_epoch = 0;
        part.leader_epoch = 0;
        t.partitions.push_back(part);
        part.partition = 1;
        part.current_leader_epoch = 5;  // newer than the leader's
        t.partitions.push_back(part);
        part.partition = 9;
        t.partitions.push_back(part);
        r.topics.push_back(t);
        return p.call<msg::OffsetForLeaderEpochResponse>(r, 4);
    });
    add("CreatePartitions", [](Peer& p) {
        json::object out;
        auto request = [](std::string name, std::int32_t count) {
            msg::CreatePartitionsRequest r;
            r.timeout_ms = 30000;
            msg::CreatePartitionsRequest::CreatePartitionsTopic t;
            t.name = std::move(name);
            t.count = count;
            t.assignments = std::nullopt;
            r.topics.push_back(t);
            return r;
        };
        out["grow"] = p.call<msg::CreatePartitionsResponse>(request("diff-f", 3), 3);
        out["shrink"] = p.call<msg::CreatePartitionsResponse>(request("diff-a", 2), 3);
        out["same"] = p.call<msg::CreatePartitionsResponse>(request("diff-a", 3), 3);
        out["unknown topic"] = p.call<msg::CreatePartitionsResponse>(request("no-such-topic", 3), 3);
        return out;
    });
    add("DeleteRecords", [](Peer& p) {
        json::object out;
        auto request = [](std::int32_t partition, std::int64_t offset) {
            msg::DeleteRecordsRequest r;
            r.timeout_ms = 30000;
            msg::DeleteRecordsRequest::DeleteRecordsTopic t;
            t.name = "diff-a";
            msg::DeleteRecordsRequest::DeleteRecordsPartition part;
            part.partition_index = partition;
            part.offset = offset;
            t.partitions.push_back(part);
            r.topics.push_back(t);
            return r;
        };
        out["to 2"] = p.call<msg::DeleteRecordsResponse>(request(0, 2), 2);
        out["past the end"] = p.call<msg::DeleteRecordsResponse>(request(0, 100), 2);
        out["to the high watermark"] = p.call<msg::DeleteRecordsResponse>(request(0, -1), 2);
        out["unknown partition"] = p.call<msg::DeleteRecordsResponse>(request(9, 1), 2);
        out["earliest after"] = list_offsets(p, "diff-a", 0, -2);
        out["fetch below the start"] = fetch(p, "diff-a", 0, 0);
        return out;
    });
    add("IncrementalAlterConfigs of a topic", [](Peer& p) {
        json::object out;
        auto request = [](std::string key, std::int8_t op, std::optional<std::string> value) {
            msg::IncrementalAlterConfigsRequest r;
            msg::IncrementalAlterConfigsRequest::AlterConfigsResource res;
            res.resource_type = 2;
            res.resource_name = "diff-f";
            msg::IncrementalAlterConfigsRequest::AlterableConfig c;
            c.name = std::move(key);
            c.config_operation = op;
            c.value = std::move(value);
            res.configs.push_back(c);
            r.resources.push_back(res);
            return r;
        };
        out["set"] = p.call<msg::IncrementalAlterConfigsResponse>(request("retention.ms", 0, "3600000"), 1);
        out["unknown key"] = p.call<msg::IncrementalAlterConfigsResponse>(request("no.such.config", 0, "1"), 1);
        out["bad value"] = p.call<msg::IncrementalAlterConfigsResponse>(request("retention.ms", 0, "soon"), 1);
        out["append to a list"] =
            p.call<msg::IncrementalAlterConfigsResponse>(request("cleanup.policy", 2, "compact"), 1);
        out["append to a number"] = p.call<msg::IncrementalAlterConfigsResponse>(request("retention.ms", 2, "1"), 1);
        out["delete"] = p.call<msg::IncrementalAlterConfigsResponse>(request("retention.ms", 1, std::nullopt), 1);
        msg::DescribeConfigsRequest d;
        msg::DescribeConfigsRequest::DescribeConfigsResource res;
        res.resource_type = 2;
        res.resource_name = "diff-f";
        res.configuration_keys = std::vector<std::string>{"retention.ms", "cleanup.policy"};
        d.resources.push_back(res);
        out["after"] = p.call<msg::DescribeConfigsResponse>(d, 4);
        return out;
    });
    add("DescribeCluster", [](Peer& p) {
        msg::DescribeClusterRequest r;
        return p.call<msg::DescribeClusterResponse>(r, 1);
    });
    add("DescribeProducers and ListTransactions", [](Peer& p) {
        json::object out;
        msg::DescribeProducersRequest d;
        msg::DescribeProducersRequest::TopicRequest t;
        t.name = "diff-a";
        t.partition_indexes = {0, 9};
        d.topics.push_back(t);
        out["producers"] = p.call<msg::DescribeProducersResponse>(d, 0);
        out["transactions"] = p.call<msg::ListTransactionsResponse>(msg::ListTransactionsRequest{}, 0);
        return out;
    });
    add("LeaveGroup and OffsetDelete", [](Peer& p) {
        json::object out;
        msg::LeaveGroupRequest l;
        l.group_id = "diff-simple";
        msg::LeaveGroupRequest::MemberIdentity m;
        m.member_id = "nobody";
        l.members.push_back(m);
        out["leave"] = p.call<msg::LeaveGroupResponse>(l, 4);
        msg::OffsetDeleteRequest o;
        o.group_id = "diff-simple";
        msg::OffsetDeleteRequest::OffsetDeleteRequestTopic t;
        t.name = "diff-a";
        msg::OffsetDeleteRequest::OffsetDeleteRequestPartition part;
        part.partition_index = 0;
        t.partitions.push_back(part);
        o.topics.push_back(t);
        out["delete"] = p.call<msg::OffsetDeleteResponse>(o, 0);
        o.group_id = "no-such-group";
        out["unknown group"] = p.call<msg::OffsetDeleteResponse>(o, 0);
        return out;
    });

    add("Fetch and ListOffsets with a leader epoch newer than the leader's", [](Peer& p) {
        json::object out;
        out["fetch"] = fetch(p, "diff-a", 0, 0, 12, 5);
        out["list offsets"] = list_offsets(p, "diff-a", 0, -1, 7, 5);
        out["fetch, the leader's epoch"] = fetch(p, "diff-a", 0, 6, 12, 0);
        return out;
    });
    add("Idempotent Produce: sequences and epochs", [](Peer& p) {
        json::object out;
        out["create"] = create(p, {topic("diff-idem", 1, 1)});
        msg::InitProducerIdRequest init;
        init.transactional_id = std::nullopt;
        init.transaction_timeout_ms = 60000;
        const auto id = p.call<msg::InitProducerIdResponse>(init, 4);
        const auto pid = field(id, "ProducerId");
        const auto epoch = static_cast<std::int16_t>(field(id, "ProducerEpoch"));
        const auto busy = [](const json::value& v) { return has_error(v, kTopicNotReady); };
        out["first"] = settled([&] { return produce(p, "diff-idem", 0, idempotent_record(pid, epoch, 0)); }, busy);
        out["duplicate"] = produce(p, "diff-idem", 0, idempotent_record(pid, epoch, 0));
        out["gap"] = produce(p, "diff-idem", 0, idempotent_record(pid, epoch, 5));
        out["next"] = produce(p, "diff-idem", 0, idempotent_record(pid, epoch, 1));
        out["newer epoch, sequence 3"] = produce(p, "diff-idem", 0, idempotent_record(pid, epoch + 1, 3));
        out["newer epoch, sequence 0"] = produce(p, "diff-idem", 0, idempotent_record(pid, epoch + 1, 0));
        out["older epoch"] = produce(p, "diff-idem", 0, idempotent_record(pid, epoch, 2));
        out["unknown producer"] = produce(p, "diff-idem", 0, idempotent_record(pid + 1000, 0, 7));
        return out;
    });
    add("SyncGroup, Heartbeat and OffsetCommit of a wrong generation", [](Peer& p) {
        json::object out;
        const std::string group = "diff-generation";
        const auto first = join(p, group, 30000, "");
        const auto member = text_field(first, "MemberId");
        const auto busy = [](const json::value& v) { return has_error(v, kNotReady); };
        const auto joined = settled([&] { return join(p, group, 30000, member); }, busy);
        out["join"] = joined;
        const auto generation = static_cast<std::int32_t>(field(joined, "GenerationId"));
        auto sync = [&](std::int32_t gen) {
            msg::SyncGroupRequest r;
            r.group_id = group;
            r.generation_id = gen;
            r.member_id = member;
            r.protocol_type = "consumer";
            r.protocol_name = "range";
            msg::SyncGroupRequest::SyncGroupRequestAssignment a;
            a.member_id = member;
            r.assignments.push_back(a);
            return p.call<msg::SyncGroupResponse>(r, 5);
        };
        auto heartbeat = [&](std::int32_t gen) {
            msg::HeartbeatRequest r;
            r.group_id = group;
            r.generation_id = gen;
            r.member_id = member;
            return p.call<msg::HeartbeatResponse>(r, 4);
        };
        auto commit = [&](std::int32_t gen, std::string member_id) {
            msg::OffsetCommitRequest r;
            r.group_id = group;
            r.generation_id_or_member_epoch = gen;
            r.member_id = std::move(member_id);
            msg::OffsetCommitRequest::OffsetCommitRequestTopic t;
            t.name = "diff-a";
            msg::OffsetCommitRequest::OffsetCommitRequestPartition part;
            part.partition_index = 0;
            part.committed_offset = 1;
            t.partitions.push_back(part);
            r.topics.push_back(t);
            return p.call<msg::OffsetCommitResponse>(r, 8);
        };
        out["sync, next generation"] = sync(generation + 1);
        out["sync"] = sync(generation);
        out["heartbeat, next generation"] = heartbeat(generation + 1);
        out["heartbeat"] = heartbeat(generation);
        out["commit, next generation"] = commit(generation + 1, member);
        out["commit, unknown member"] = commit(generation, "nobody");
        out["commit"] = commit(generation, member);
        msg::LeaveGroupRequest leave;
        leave.group_id = group;
        msg::LeaveGroupRequest::MemberIdentity m;
        m.member_id = member;
        leave.members.push_back(m);
        out["leave"] = p.call<msg::LeaveGroupResponse>(leave, 4);
        out["heartbeat after leaving"] = heartbeat(generation);
        return out;
    });
    add("FindCoordinator of transactional ids", [](Peer& p) {
        msg::FindCoordinatorRequest r;
        r.key_type = 1;
        r.coordinator_keys = {"diff-txn", "diff-txn-offsets"};
        // The first one makes the broker create __transaction_state; a client asks again until it answers.
        return settled([&] { return p.call<msg::FindCoordinatorResponse>(r, 4); },
                       [](const json::value& v) { return has_error(v, kNotReady); });
    });
    add("Transactions out of order", [](Peer& p) {
        json::object out;
        msg::InitProducerIdRequest init;
        init.transactional_id = "diff-txn";
        init.transaction_timeout_ms = 60000;
        const auto busy = [](const json::value& v) { return has_error(v, kCoordinatorMoving); };
        const auto id = settled([&] { return p.call<msg::InitProducerIdResponse>(init, 4); }, busy);
        out["init"] = id;
        const auto pid = field(id, "ProducerId");
        const auto epoch = static_cast<std::int16_t>(field(id, "ProducerEpoch"));
        auto end = [&](std::int64_t producer, std::int16_t e, bool commit) {
            msg::EndTxnRequest r;
            r.transactional_id = "diff-txn";
            r.producer_id = producer;
            r.producer_epoch = e;
            r.committed = commit;
            return p.call<msg::EndTxnResponse>(r, 3);
        };
        auto add_partitions = [&](std::int64_t producer, std::int16_t e) {
            msg::AddPartitionsToTxnRequest r;
            r.v3_and_below_transactional_id = "diff-txn";
            r.v3_and_below_producer_id = producer;
            r.v3_and_below_producer_epoch = e;
            msg::AddPartitionsToTxnRequest::AddPartitionsToTxnTopic t;
            t.name = "diff-a";
            t.partitions = {0};
            r.v3_and_below_topics.push_back(t);
            return p.call<msg::AddPartitionsToTxnResponse>(r, 3);
        };
        out["commit with nothing begun"] = end(pid, epoch, true);
        out["add partitions, older epoch"] = add_partitions(pid, static_cast<std::int16_t>(epoch - 1));
        out["add partitions, newer epoch"] = add_partitions(pid, static_cast<std::int16_t>(epoch + 1));
        out["add partitions, unknown producer"] = add_partitions(pid + 1000, epoch);
        out["add partitions"] = add_partitions(pid, epoch);
        out["commit, unknown producer"] = end(pid + 1000, epoch, true);
        out["abort"] = end(pid, epoch, false);
        return out;
    });
    add("DeleteGroups", [](Peer& p) {
        msg::DeleteGroupsRequest r;
        r.groups_names = {"no-such-group", "diff-generation"};
        auto out = p.call<msg::DeleteGroupsResponse>(r, 2);
        if (out.is_object()) sort_by(out.as_object()["Results"], "GroupId");
        return out;
    });
    add("DescribeAcls without an authorizer", [](Peer& p) {
        msg::DescribeAclsRequest r;
        r.resource_type_filter = 1;  // any
        r.resource_name_filter = std::nullopt;
        r.pattern_type_filter = 1;  // any
        r.principal_filter = std::nullopt;
        r.host_filter = std::nullopt;
        r.operation = 1;        // any
        r.permission_type = 1;  // any
        return p.call<msg::DescribeAclsResponse>(r, 3);
    });

    add("CreateAcls and DeleteAcls without an authorizer", [](Peer& p) {
        json::object out;
        msg::CreateAclsRequest create;
        msg::CreateAclsRequest::AclCreation acl;
        acl.resource_type = 2;  // topic
        acl.resource_name = "diff-a";
        acl.resource_pattern_type = 3;  // literal
        acl.principal = "User:alice";
        acl.host = "*";
        acl.operation = 3;        // read
        acl.permission_type = 3;  // allow
        create.creations.push_back(acl);
        out["create"] = p.call<msg::CreateAclsResponse>(create, 3);
        msg::DeleteAclsRequest del;
        msg::DeleteAclsRequest::DeleteAclsFilter filter;
        filter.resource_type_filter = 1;  // any
        filter.resource_name_filter = std::nullopt;
        filter.pattern_type_filter = 1;  // any
        filter.principal_filter = std::nullopt;
        filter.host_filter = std::nullopt;
        filter.operation = 1;        // any
        filter.permission_type = 1;  // any
        del.filters.push_back(filter);
        out["delete"] = p.call<msg::DeleteAclsResponse>(del, 3);
        return out;
    });
    add("AlterConfigs, the legacy API", [](Peer& p) {
        json::object out;
        auto alter = [&](std::string topic, std::vector<std::pair<std::string, std::string>> configs,
                         bool validate_only) {
            msg::AlterConfigsRequest r;
            msg::AlterConfigsRequest::AlterConfigsResource res;
            res.resource_type = 2;  // topic
            res.resource_name = std::move(topic);
            for (auto& [k, v] : configs) {
                msg::AlterConfigsRequest::AlterableConfig c;
                c.name = k;
                c.value = v;
                res.configs.push_back(std::move(c));
            }
            r.resources.push_back(std::move(res));
            r.validate_only = validate_only;
            return p.call<msg::AlterConfigsResponse>(r, 2);
        };
        out["validate only"] = alter("diff-f", {{"retention.ms", "1000"}}, true);
        out["set"] = alter("diff-f", {{"retention.ms", "1000"}, {"cleanup.policy", "compact"}}, false);
        out["unknown key"] = alter("diff-f", {{"no.such.config", "1"}}, false);
        out["bad value"] = alter("diff-f", {{"retention.ms", "soon"}}, false);
        out["unknown topic"] = alter("no-such-topic", {{"retention.ms", "1000"}}, false);
        msg::DescribeConfigsRequest d;
        msg::DescribeConfigsRequest::DescribeConfigsResource res;
        res.resource_type = 2;
        res.resource_name = "diff-f";
        res.configuration_keys = std::vector<std::string>{"retention.ms", "cleanup.policy", "segment.bytes"};
        d.resources.push_back(res);
        // KRaft Kafka applies a change to its metadata image after answering: read until it shows.
        out["after"] = settled(
            [&] {
                auto described = p.call<msg::DescribeConfigsResponse>(d, 4);
                if (described.is_object())
                    for (auto& r : described.as_object()["Results"].as_array())
                        sort_by(r.as_object()["Configs"], "Name");
                return described;
            },
            [](const json::value& v) { return json::serialize(v).find("\"Value\":\"1000\"") == std::string::npos; });
        return out;
    });
    add("DescribeLogDirs", [](Peer& p) {
        msg::DescribeLogDirsRequest r;
        msg::DescribeLogDirsRequest::DescribableLogDirTopic t;
        t.topic = "diff-a";
        t.partitions = {0, 1, 2, 9};
        r.topics->push_back(t);
        t.topic = "no-such-topic";
        t.partitions = {0};
        r.topics->push_back(t);
        auto out = p.call<msg::DescribeLogDirsResponse>(r, 4);
        if (out.is_object())
            for (auto& dir : out.as_object()["Results"].as_array()) sort_by(dir.as_object()["Topics"], "Name");
        return out;
    });
    add("Transactional offsets: AddOffsetsToTxn, TxnOffsetCommit, DescribeTransactions", [](Peer& p) {
        json::object out;
        const std::string txn = "diff-txn-offsets";
        const std::string group = "diff-txn-group";
        msg::InitProducerIdRequest init;
        init.transactional_id = txn;
        init.transaction_timeout_ms = 60000;
        const auto busy = [](const json::value& v) { return has_error(v, kCoordinatorMoving); };
        const auto id = settled([&] { return p.call<msg::InitProducerIdResponse>(init, 4); }, busy);
        const auto pid = field(id, "ProducerId");
        const auto epoch = static_cast<std::int16_t>(field(id, "ProducerEpoch"));
        msg::AddOffsetsToTxnRequest add_offsets;
        add_offsets.transactional_id = txn;
        add_offsets.producer_id = pid;
        add_offsets.producer_epoch = epoch;
        add_offsets.group_id = group;
        out["add offsets"] = settled([&] { return p.call<msg::AddOffsetsToTxnResponse>(add_offsets, 3); }, busy);
        auto commit = [&](std::int16_t e) {
            msg::TxnOffsetCommitRequest r;
            r.transactional_id = txn;
            r.group_id = group;
            r.producer_id = pid;
            r.producer_epoch = e;
            msg::TxnOffsetCommitRequest::TxnOffsetCommitRequestTopic t;
            t.name = "diff-a";
            msg::TxnOffsetCommitRequest::TxnOffsetCommitRequestPartition part;
            part.partition_index = 0;
            part.committed_offset = 2;
            t.partitions.push_back(part);
            r.topics.push_back(t);
            return p.call<msg::TxnOffsetCommitResponse>(r, 3);
        };
        out["commit offsets"] = settled([&] { return commit(epoch); }, busy);
        out["commit offsets, older epoch"] = commit(static_cast<std::int16_t>(epoch - 1));
        msg::EndTxnRequest end;
        end.transactional_id = txn;
        end.producer_id = pid;
        end.producer_epoch = epoch;
        end.committed = true;
        out["end"] = p.call<msg::EndTxnResponse>(end, 3);
        msg::DescribeTransactionsRequest describe;
        describe.transactional_ids = {txn, "no-such-transaction"};
        // The markers follow EndTxn's answer: until they are written the state is PrepareCommit.
        out["describe"] = settled(
            [&] { return p.call<msg::DescribeTransactionsResponse>(describe, 0); },
            [](const json::value& v) { return json::serialize(v).find("\"PrepareCommit\"") != std::string::npos; });
        msg::OffsetFetchRequest fetch;
        fetch.group_id = group;
        msg::OffsetFetchRequest::OffsetFetchRequestTopic ft;
        ft.name = "diff-a";
        ft.partition_indexes = {0};
        fetch.topics.emplace().push_back(ft);
        fetch.require_stable = true;
        out["offsets"] = settled([&] { return p.call<msg::OffsetFetchResponse>(fetch, 7); },
                                 [](const json::value& v) { return has_error(v, {88}); });  // UNSTABLE_OFFSET_COMMIT
        return out;
    });

    // Frames a broker must refuse: Kafka closes the connection on each.
    add("Frames to refuse", [](Peer& p) {
        json::object out;
        const auto with_size = [](std::vector<std::uint8_t> body) {
            const auto n = static_cast<std::uint32_t>(body.size());
            std::vector<std::uint8_t> frame{static_cast<std::uint8_t>(n >> 24), static_cast<std::uint8_t>(n >> 16),
                                            static_cast<std::uint8_t>(n >> 8), static_cast<std::uint8_t>(n)};
            frame.insert(frame.end(), body.begin(), body.end());
            return frame;
        };
        // A size above socket.request.max.bytes (100 MiB), then the start of a header.
        out["larger than socket.request.max.bytes"] =
            p.raw(std::vector<std::uint8_t>{0x10, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x0c}, std::chrono::seconds(5));
        // An API key no broker knows: Kafka cannot read its header.
        out["unknown API key"] =
            p.raw(with_size({0x03, 0xe7, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00}), std::chrono::seconds(5));
        // Metadata v12 whose topic array says five topics and ends there.
        out["a body cut short"] =
            p.raw(with_size({0x00, 0x03, 0x00, 0x0c, 0x00, 0x00, 0x00, 0x08, 0x00, 0x01, 'x', 0x00, 0x06}),
                  std::chrono::seconds(5));
        // A size smaller than any request header.
        out["shorter than a header"] = p.raw(with_size({0x00, 0x03}), std::chrono::seconds(5));
        return out;
    });

    add("DeleteTopics of an unknown topic", [](Peer& p) {
        msg::DeleteTopicsRequest r;
        r.topic_names = {"no-such-topic"};
        r.timeout_ms = 30000;
        return p.call<msg::DeleteTopicsResponse>(r, 5);
    });
    add("Metadata at a version the broker does not know", [](Peer& p) {
        msg::MetadataRequest r;
        r.topics = std::vector<msg::MetadataRequest::MetadataRequestTopic>{};
        return p.call_as<msg::MetadataResponse>(r, 12, 99, 12);
    });
    return s;
}

// The reference Kafka: its version, and its major.minor, which ALLOWED.md's
// rows name.
struct Reference {
    std::string version;
    std::string release;
};

Reference reference() {
    const char* env = std::getenv("WEIR_DIFFERENTIAL_REFERENCE");
    Reference r{env != nullptr && *env != '\0' ? env : "3.9.2", ""};
    r.release = r.version.substr(0, r.version.find('.', r.version.find('.') + 1));
    return r;
}

// Both sides, started once for the suite's tests: one broker each, or with
// WEIR_DIFFERENTIAL_BROKERS=3 three (Kafka in ZooKeeper mode, Weir's cluster
// over its own chroot of the same ZooKeeper).
class Differential : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        ref_ = reference();
        // 3.x runs over ZooKeeper, as Weir's clusters do; 4.x knows only KRaft.
        const bool zookeeper_mode = ref_.version.starts_with("3.");
        const char* env = std::getenv("WEIR_DIFFERENTIAL_BROKERS");
        brokers_ = env != nullptr && std::string_view(env) == "3" ? 3 : 1;
        if (brokers_ > 1 && !zookeeper_mode) {
            setup_error_ = "three brokers run against Kafka 3.x only (ZooKeeper mode; the KRaft reference is one node)";
            return;
        }
        // One broker needs its internal topics at one replica; three keep Kafka's defaults.
        std::map<std::string, std::string> settings{{"offsets.topic.num.partitions", "4"},
                                                    {"group.initial.rebalance.delay.ms", "0"}};
        if (brokers_ == 1) settings.insert(kSingleBroker.begin(), kSingleBroker.end());
        if (zookeeper_mode) zookeeper_.emplace();
        const std::string kafka_chroot = zookeeper_ ? zookeeper_->fresh_chroot_connect() : "";
        for (int id = 0; id < brokers_; ++id) {
            auto props = settings;
            props["broker.id"] = std::to_string(id);
            kafka_.push_back(std::make_unique<compat::ReferenceKafka>(compat::ReferenceKafkaOptions{
                .version = ref_.version, .zookeeper_connect = kafka_chroot, .properties = props}));
        }
        std::cout << "[differential] reference: Apache Kafka " << ref_.version << " ("
                  << (zookeeper_mode ? "ZooKeeper" : "KRaft") << " mode), " << brokers_ << " broker(s)\n";
        const std::string weir_chroot = brokers_ > 1 ? zookeeper_->fresh_chroot_connect() : "";
        for (int id = 0; id < brokers_; ++id) {
            compat::BrokerOptions options;
            options.overrides = settings;
            if (brokers_ > 1) {
                options.overrides["broker.id"] = std::to_string(id);
                options.overrides["zookeeper.connect"] = weir_chroot;
            }
            weir_.push_back(std::make_unique<compat::BrokerProcess>(options));
            weir_.back()->start();
        }
    }
    static void TearDownTestSuite() {
        weir_.clear();
        kafka_.clear();
        zookeeper_.reset();
    }
    void SetUp() override { ASSERT_TRUE(setup_error_.empty()) << setup_error_; }

    static std::string bootstrap(const auto& brokers) {
        std::string out;
        for (const auto& b : brokers) out += (out.empty() ? "" : ",") + b->bootstrap();
        return out;
    }

    // One test's comparisons: each difference is a row of ALLOWED.md that
    // applies to this reference, or reported; so is a row of a scenario this
    // test ran that did not happen.
    class Comparison {
    public:
        explicit Comparison(std::string what)
            : what_(std::move(what)),
              allowed_(read_allowed(std::filesystem::path(WEIR_COMPAT_SOURCE_DIR) / "differential" / "ALLOWED.md")) {}

        void compare(const std::string& scenario, json::value kafka, json::value weir) {
            if (std::getenv("WEIR_DIFFERENTIAL_DUMP") != nullptr)
                std::cout << "== " << scenario << "\nKafka: " << json::serialize(kafka)
                          << "\nWeir:  " << json::serialize(weir) << "\n";
            normalize(kafka);
            normalize(weir);
            ran_.push_back(scenario);
            for (const auto& d : differences(kafka, weir)) {
                auto it = std::find_if(allowed_.begin(), allowed_.end(), [&](const Allowed& a) {
                    return a.applies_to(ref_.release) && a.scenario == scenario && a.difference.path == d.path &&
                           a.difference.kafka == d.kafka && a.difference.weir == d.weir;
                });
                if (it != allowed_.end()) {
                    it->seen = true;
                    ++allowed_seen_;
                    continue;
                }
                unexplained_.push_back(allowed_row(ref_.release, scenario, d));
            }
        }

        void check() {
            std::cout << "[differential] " << what_ << ", Kafka " << ref_.version << ": " << ran_.size()
                      << " scenarios; " << allowed_seen_ << " allowed differences; " << unexplained_.size() << " new\n";
            std::string report;
            for (const auto& row : unexplained_) report += row + "\n";
            EXPECT_TRUE(unexplained_.empty()) << "Differences from Kafka that ALLOWED.md does not list:\n" << report;
            std::string stale;
            for (const auto& a : allowed_)
                if (a.applies_to(ref_.release) && !a.seen &&
                    std::find(ran_.begin(), ran_.end(), a.scenario) != ran_.end())
                    stale += allowed_row(a.reference, a.scenario, a.difference) + "\n";
            EXPECT_TRUE(stale.empty()) << "ALLOWED.md rows that no longer happen (remove them):\n" << stale;
        }

        [[nodiscard]] const std::vector<Allowed>& allowed() const { return allowed_; }

    private:
        std::string what_;
        std::vector<Allowed> allowed_;
        std::vector<std::string> ran_;
        std::vector<std::string> unexplained_;
        std::size_t allowed_seen_ = 0;
    };

    static inline Reference ref_;
    static inline int brokers_ = 1;
    static inline std::string setup_error_;
    static inline std::optional<testing::ZooKeeperServer> zookeeper_;
    static inline std::vector<std::unique_ptr<compat::ReferenceKafka>> kafka_;
    static inline std::vector<std::unique_ptr<compat::BrokerProcess>> weir_;
};

constexpr std::string_view kClientPrefix = "client: ";

TEST_F(Differential, EveryAnswerIsKafkasOrAnAllowedDifference) {
    // Raw requests go to one broker, and two clusters place their leaders differently.
    if (brokers_ > 1) GTEST_SKIP() << "raw requests are compared against one broker only";
    Comparison comparison("requests");
    Peer kafka_peer(kafka_.front()->port());
    Peer weir_peer(weir_.front()->port());
    const auto busy = [](const json::value& v) { return has_error(v, kNotReady); };
    std::vector<std::string> names;
    for (const auto& scenario : scenarios()) {
        auto k = settled([&] { return scenario.run(kafka_peer); }, busy);
        auto w = settled([&] { return scenario.run(weir_peer); }, busy);
        comparison.compare(scenario.name, std::move(k), std::move(w));
        names.push_back(scenario.name);
    }
    comparison.check();
    // A row naming no scenario of either test would never be checked.
    for (const auto& a : comparison.allowed())
        EXPECT_TRUE(a.scenario.starts_with(kClientPrefix) ||
                    std::find(names.begin(), names.end(), a.scenario) != names.end())
            << "ALLOWED.md names a scenario that does not exist: " << a.scenario;
}

// What confluent-kafka and kafka-python see of each broker
// (client_scenarios.py): records, offsets, assignments, group states and
// error names, compared as the raw answers are.
std::vector<std::pair<std::string, json::value>> client_view(const std::string& bootstrap, int brokers) {
    const std::string python = compat::weir_cache_dir() + "/venv-clients/bin/python";
    const auto script = std::filesystem::path(WEIR_COMPAT_SOURCE_DIR) / "differential" / "client_scenarios.py";
    const auto r = compat::run_process(
        {python, script.string(), bootstrap, "--replication-factor", std::to_string(brokers)}, std::chrono::minutes(5));
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    std::vector<std::pair<std::string, json::value>> seen;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);) {
        if (line.empty()) continue;
        auto v = json::parse(line).as_object();
        seen.emplace_back(std::string(v.at("scenario").as_string()), v.at("seen"));
    }
    return seen;
}

TEST_F(Differential, WhatClientsSeeIsWhatTheySeeOfKafka) {
    const std::string python = compat::weir_cache_dir() + "/venv-clients/bin/python";
    ASSERT_TRUE(std::filesystem::exists(python))
        << python << " missing: scripts/install-deps.sh makes the clients' virtualenv";
    Comparison comparison("clients");
    const auto kafka = client_view(bootstrap(kafka_), brokers_);
    const auto weir = client_view(bootstrap(weir_), brokers_);
    ASSERT_FALSE(kafka.empty());
    for (const auto& [name, seen] : kafka) {
        ASSERT_TRUE(name.starts_with(kClientPrefix)) << name;
        const auto w = std::find_if(weir.begin(), weir.end(), [&](const auto& e) { return e.first == name; });
        comparison.compare(name, seen, w == weir.end() ? json::value("<not run>") : w->second);
    }
    comparison.check();
}

}  // namespace
}  // namespace weir::differential
