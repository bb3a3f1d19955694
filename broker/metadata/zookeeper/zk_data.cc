#include "broker/metadata/zookeeper/zk_data.h"

#include <boost/json.hpp>
#include <charconv>

namespace weir::zk {
namespace json = boost::json;

namespace paths {

std::vector<std::string> persistent_paths() {
    return {"/consumers",
            std::string(kBrokerIds),
            std::string(kTopics),
            std::string(kConfigChanges),
            std::string(kDeleteTopics),
            "/brokers/seqid",
            std::string(kIsrChangeNotification),
            std::string(kProducerIdBlock),
            "/log_dir_event_notification",
            std::string(kConfigTopics),
            "/config/clients",
            "/config/users",
            std::string(kConfigBrokers),
            "/config/ips"};
}

std::string broker(std::int32_t id) { return std::string(kBrokerIds) + "/" + std::to_string(id); }
std::string topic(std::string_view name) { return std::string(kTopics) + "/" + std::string(name); }
std::string topic_partitions(std::string_view name) { return topic(name) + "/partitions"; }
std::string partition_state(std::string_view name, std::int32_t partition) {
    return topic_partitions(name) + "/" + std::to_string(partition) + "/state";
}
std::string topic_config(std::string_view name) { return std::string(kConfigTopics) + "/" + std::string(name); }
std::string broker_config(std::optional<std::int32_t> id) {
    return std::string(kConfigBrokers) + "/" + (id ? std::to_string(*id) : std::string("<default>"));
}
std::string delete_topic(std::string_view name) { return std::string(kDeleteTopics) + "/" + std::string(name); }

}  // namespace paths

std::optional<std::int32_t> parse_id(std::string_view text) {
    std::int32_t v = 0;
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || p != text.data() + text.size()) return std::nullopt;
    return v;
}

namespace {

json::object parse_object(std::string_view text) {
    boost::system::error_code ec;
    json::value v = json::parse(text, ec);
    if (ec || !v.is_object()) throw ZkDataError("not a JSON object: " + std::string(text.substr(0, 200)));
    return v.as_object();
}

std::int32_t as_i32(const json::value& v, std::string_view what) {
    if (v.is_int64()) return static_cast<std::int32_t>(v.as_int64());
    if (v.is_uint64()) return static_cast<std::int32_t>(v.as_uint64());
    if (v.is_string()) {
        // Kafka writes some numbers as strings ("version":"1" in /cluster/id).
        const auto& s = v.as_string();
        std::int32_t out = 0;
        auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
        if (ec == std::errc() && p == s.data() + s.size()) return out;
    }
    throw ZkDataError("expected an integer for " + std::string(what));
}

const json::value& field(const json::object& o, std::string_view key) {
    auto* v = o.if_contains(key);
    if (!v) throw ZkDataError("missing field " + std::string(key));
    return *v;
}

std::vector<std::int32_t> int_list(const json::value& v, std::string_view what) {
    if (!v.is_array()) throw ZkDataError("expected a list for " + std::string(what));
    std::vector<std::int32_t> out;
    for (const auto& e : v.as_array()) out.push_back(as_i32(e, what));
    return out;
}

json::array to_array(const std::vector<std::int32_t>& ids) {
    json::array a;
    for (auto id : ids) a.emplace_back(id);
    return a;
}

// "PLAINTEXT://host:9092" -> listener, host, port.
metadata::BrokerEndpoint parse_endpoint(std::string_view s) {
    auto sep = s.find("://");
    auto colon = s.rfind(':');
    if (sep == std::string_view::npos || colon == std::string_view::npos || colon < sep + 3)
        throw ZkDataError("bad endpoint " + std::string(s));
    metadata::BrokerEndpoint e;
    e.listener = std::string(s.substr(0, sep));
    e.host = std::string(s.substr(sep + 3, colon - sep - 3));
    // IPv6 literals are bracketed in Kafka's endpoint strings.
    if (e.host.size() >= 2 && e.host.front() == '[' && e.host.back() == ']')
        e.host = e.host.substr(1, e.host.size() - 2);
    auto port = s.substr(colon + 1);
    auto [p, ec] = std::from_chars(port.data(), port.data() + port.size(), e.port);
    if (ec != std::errc() || p != port.data() + port.size()) throw ZkDataError("bad endpoint " + std::string(s));
    return e;
}

std::string endpoint_string(const metadata::BrokerEndpoint& e) {
    const bool v6 = e.host.find(':') != std::string::npos;
    return e.listener + "://" + (v6 ? "[" + e.host + "]" : e.host) + ":" + std::to_string(e.port);
}

}  // namespace

std::string encode_broker(const metadata::BrokerInfo& broker, std::int64_t timestamp_ms) {
    json::object o;
    o["features"] = json::object();
    json::object protocols;
    json::array endpoints;
    const metadata::BrokerEndpoint* plaintext = nullptr;
    for (const auto& e : broker.endpoints) {
        endpoints.emplace_back(endpoint_string(e));
        // Weir's listeners are PLAINTEXT unless the name says SSL.
        protocols[e.listener] = e.listener == "SSL" ? "SSL" : "PLAINTEXT";
        if (!plaintext && e.listener == "PLAINTEXT") plaintext = &e;
    }
    o["listener_security_protocol_map"] = std::move(protocols);
    o["endpoints"] = std::move(endpoints);
    o["jmx_port"] = -1;
    o["port"] = plaintext ? plaintext->port : -1;
    o["host"] = plaintext ? json::value(plaintext->host) : json::value(nullptr);
    o["version"] = 5;
    o["timestamp"] = std::to_string(timestamp_ms);
    if (broker.rack) o["rack"] = *broker.rack;
    return json::serialize(o);
}

metadata::BrokerInfo decode_broker(std::int32_t id, std::string_view text) {
    auto o = parse_object(text);
    metadata::BrokerInfo b;
    b.id = id;
    if (auto* eps = o.if_contains("endpoints"); eps && eps->is_array()) {
        for (const auto& e : eps->as_array()) {
            if (!e.is_string()) throw ZkDataError("bad endpoint in broker " + std::to_string(id));
            b.endpoints.push_back(parse_endpoint(e.as_string()));
        }
    }
    if (b.endpoints.empty()) {
        // Version 1 registrations have host and port only.
        auto* host = o.if_contains("host");
        if (!host || !host->is_string()) throw ZkDataError("broker " + std::to_string(id) + " has no endpoint");
        b.endpoints.push_back({"PLAINTEXT", std::string(host->as_string()), as_i32(field(o, "port"), "port")});
    }
    if (auto* rack = o.if_contains("rack"); rack && rack->is_string()) b.rack = std::string(rack->as_string());
    return b;
}

std::string encode_controller(std::int32_t broker_id, std::int64_t timestamp_ms) {
    json::object o;
    o["version"] = 1;
    o["brokerid"] = broker_id;
    o["timestamp"] = std::to_string(timestamp_ms);
    return json::serialize(o);
}

std::int32_t decode_controller(std::string_view text) {
    auto o = parse_object(text);
    return as_i32(field(o, "brokerid"), "brokerid");
}

std::string encode_topic_assignment(const TopicAssignment& a) {
    json::object parts;
    for (const auto& [p, replicas] : a.partitions) parts[std::to_string(p)] = to_array(replicas);
    json::object o;
    o["partitions"] = std::move(parts);
    if (a.topic_id) o["topic_id"] = a.topic_id->to_string();
    o["adding_replicas"] = json::object();
    o["removing_replicas"] = json::object();
    o["version"] = 2;
    return json::serialize(o);
}

TopicAssignment decode_topic_assignment(std::string_view text) {
    auto o = parse_object(text);
    TopicAssignment a;
    const auto& parts = field(o, "partitions");
    if (!parts.is_object()) throw ZkDataError("partitions is not an object");
    for (const auto& [key, replicas] : parts.as_object()) {
        std::int32_t p = as_i32(json::value(std::string_view(key)), "partition");
        a.partitions[p] = int_list(replicas, "replicas");
    }
    if (auto* id = o.if_contains("topic_id"); id && id->is_string()) {
        a.topic_id = Uuid::from_string(id->as_string());
        if (!a.topic_id) throw ZkDataError("bad topic_id");
    }
    return a;
}

std::string encode_partition_state(const LeaderAndIsr& s) {
    json::object o;
    o["controller_epoch"] = s.controller_epoch;
    o["leader"] = s.leader;
    o["version"] = 1;
    o["leader_epoch"] = s.leader_epoch;
    o["isr"] = to_array(s.isr);
    return json::serialize(o);
}

LeaderAndIsr decode_partition_state(std::string_view text) {
    auto o = parse_object(text);
    LeaderAndIsr s;
    s.leader = as_i32(field(o, "leader"), "leader");
    s.leader_epoch = as_i32(field(o, "leader_epoch"), "leader_epoch");
    s.isr = int_list(field(o, "isr"), "isr");
    if (auto* e = o.if_contains("controller_epoch")) s.controller_epoch = as_i32(*e, "controller_epoch");
    return s;
}

std::string encode_config(const config::ConfigMap& configs) {
    json::object c;
    for (const auto& [k, v] : configs) c[k] = v;
    json::object o;
    o["version"] = 1;
    o["config"] = std::move(c);
    return json::serialize(o);
}

config::ConfigMap decode_config(std::string_view text) {
    if (text.empty()) return {};
    auto o = parse_object(text);
    config::ConfigMap out;
    auto* c = o.if_contains("config");
    if (!c) return out;
    if (!c->is_object()) throw ZkDataError("config is not an object");
    for (const auto& [k, v] : c->as_object()) {
        if (!v.is_string()) throw ZkDataError("config value of " + std::string(k) + " is not a string");
        out[std::string(k)] = std::string(v.as_string());
    }
    return out;
}

std::string encode_config_change(std::string_view entity_path) {
    json::object o;
    o["version"] = 2;
    o["entity_path"] = entity_path;
    return json::serialize(o);
}

std::string encode_cluster_id(std::string_view id) {
    json::object o;
    o["version"] = "1";
    o["id"] = id;
    return json::serialize(o);
}

std::string decode_cluster_id(std::string_view text) {
    auto o = parse_object(text);
    const auto& id = field(o, "id");
    if (!id.is_string()) throw ZkDataError("cluster id is not a string");
    return std::string(id.as_string());
}

}  // namespace weir::zk
