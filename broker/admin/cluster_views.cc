#include "broker/admin/cluster_views.h"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

namespace weir::admin {

namespace json = boost::json;

json::value cluster_json(const AdminContext& context) {
    const auto& config = context.broker.config;
    auto snapshot = context.broker.metadata.snapshot();
    std::size_t partitions = 0;
    for (const auto& [name, topic] : snapshot->topics_by_name) partitions += topic->partitions.size();
    json::object out;
    out["cluster_id"] = snapshot->cluster_id;
    out["mode"] = config.single_node() ? "single-node" : "zookeeper";
    out["broker_id"] = config.broker_id;
    out["controller_id"] = snapshot->controller_id;
    out["brokers"] = snapshot->brokers.size();
    out["topics"] = snapshot->topics_by_name.size();
    out["partitions"] = partitions;
    return out;
}

json::value brokers_json(const AdminContext& context) {
    auto snapshot = context.broker.metadata.snapshot();
    json::array out;
    for (const auto& b : snapshot->brokers) {
        json::array endpoints;
        for (const auto& e : b.endpoints)
            endpoints.push_back(json::object{{"listener", e.listener}, {"host", e.host}, {"port", e.port}});
        json::object broker;
        broker["id"] = b.id;
        broker["rack"] = b.rack ? json::value(*b.rack) : json::value(nullptr);
        broker["endpoints"] = std::move(endpoints);
        broker["controller"] = b.id == snapshot->controller_id;
        broker["self"] = b.id == context.broker.config.broker_id;
        out.push_back(std::move(broker));
    }
    return out;
}

}  // namespace weir::admin
