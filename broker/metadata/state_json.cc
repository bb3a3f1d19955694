#include "broker/metadata/state_json.h"

#include <boost/json.hpp>
#include <charconv>

#include "broker/metadata/producer_id_block.h"

namespace weir::metadata {
namespace json = boost::json;

namespace {

constexpr std::int64_t kFormatVersion = 1;
// ZooKeeper's name for the cluster-wide entity (/config/brokers/<default>).
constexpr std::string_view kDefaultEntity = "<default>";

json::array to_array(const std::vector<std::int32_t>& v) {
    json::array a;
    for (std::int32_t x : v) a.emplace_back(x);
    return a;
}

std::vector<std::int32_t> int_list(const json::value& v) {
    std::vector<std::int32_t> out;
    for (const json::value& x : v.as_array()) out.push_back(json::value_to<std::int32_t>(x));
    return out;
}

}  // namespace

std::string encode_state(const PersistedState& state) {
    json::object root;
    root["version"] = kFormatVersion;
    root["cluster_id"] = state.cluster_id;
    root["broker_id"] = state.broker_id;
    json::array topics;
    for (const TopicInfo& t : state.topics) {
        json::object o;
        o["name"] = t.name;
        o["topic_id"] = t.id.to_string();
        o["internal"] = t.internal;
        json::object configs;
        for (const auto& [k, v] : t.configs) configs[k] = v;
        o["configs"] = std::move(configs);
        json::array partitions;
        for (const PartitionInfo& p : t.partitions) {
            json::object po;
            po["partition"] = p.partition;
            po["leader"] = p.leader;
            po["leader_epoch"] = p.leader_epoch;
            po["replicas"] = to_array(p.replicas);
            po["isr"] = to_array(p.isr);
            partitions.push_back(std::move(po));
        }
        o["partitions"] = std::move(partitions);
        topics.push_back(std::move(o));
    }
    root["topics"] = std::move(topics);
    json::object broker_configs;
    auto to_object = [](const config::ConfigMap& configs) {
        json::object o;
        for (const auto& [k, v] : configs) o[k] = v;
        return o;
    };
    if (!state.default_broker_configs.empty()) broker_configs[kDefaultEntity] = to_object(state.default_broker_configs);
    for (const auto& [id, configs] : state.broker_configs)
        if (!configs.empty()) broker_configs[std::to_string(id)] = to_object(configs);
    root["broker_configs"] = std::move(broker_configs);
    if (const auto& block = state.latest_producer_id_block)
        root["latest_producer_id_block"] = json::parse(encode_producer_id_block(*block));
    return json::serialize(root) + "\n";
}

PersistedState decode_state(std::string_view text) {
    try {
        json::value v = json::parse(text);
        const json::object& root = v.as_object();
        if (root.at("version").as_int64() != kFormatVersion) {
            throw MetadataStoreError("unsupported metadata format version " + json::serialize(root.at("version")));
        }
        PersistedState state;
        state.cluster_id = json::value_to<std::string>(root.at("cluster_id"));
        state.broker_id = json::value_to<std::int32_t>(root.at("broker_id"));
        for (const json::value& tv : root.at("topics").as_array()) {
            const json::object& o = tv.as_object();
            TopicInfo t;
            t.name = json::value_to<std::string>(o.at("name"));
            auto id = Uuid::from_string(o.at("topic_id").as_string());
            if (!id) throw MetadataStoreError("bad topic id for topic " + t.name);
            t.id = *id;
            t.internal = o.at("internal").as_bool();
            for (const auto& [k, cv] : o.at("configs").as_object())
                t.configs.emplace(std::string(k), json::value_to<std::string>(cv));
            for (const json::value& pv : o.at("partitions").as_array()) {
                const json::object& po = pv.as_object();
                PartitionInfo p;
                p.partition = json::value_to<std::int32_t>(po.at("partition"));
                p.leader = json::value_to<std::int32_t>(po.at("leader"));
                p.leader_epoch = json::value_to<std::int32_t>(po.at("leader_epoch"));
                p.replicas = int_list(po.at("replicas"));
                p.isr = int_list(po.at("isr"));
                if (p.partition != static_cast<std::int32_t>(t.partitions.size())) {
                    throw MetadataStoreError("partitions of topic " + t.name + " are not numbered 0..n-1");
                }
                t.partitions.push_back(std::move(p));
            }
            state.topics.push_back(std::move(t));
        }
        if (const json::value* configs = root.if_contains("broker_configs")) {
            for (const auto& [entity, cv] : configs->as_object()) {
                config::ConfigMap values;
                for (const auto& [k, value] : cv.as_object())
                    values.emplace(std::string(k), json::value_to<std::string>(value));
                if (entity == kDefaultEntity) {
                    state.default_broker_configs = std::move(values);
                    continue;
                }
                std::int32_t id = 0;
                auto [end, ec] = std::from_chars(entity.data(), entity.data() + entity.size(), id);
                if (ec != std::errc{} || end != entity.data() + entity.size() || entity.empty())
                    throw MetadataStoreError("bad broker config entity " + std::string(entity));
                state.broker_configs.emplace(id, std::move(values));
            }
        }
        if (const json::value* block = root.if_contains("latest_producer_id_block"))
            state.latest_producer_id_block = decode_producer_id_block(json::serialize(*block));
        return state;
    } catch (const MetadataStoreError&) {
        throw;
    } catch (const std::exception& e) {
        throw MetadataStoreError(std::string("malformed metadata: ") + e.what());
    }
}

}  // namespace weir::metadata
