#include "broker/metadata/open_store.h"

#include "broker/metadata/embedded_metadata_store.h"
#include "broker/metadata/zookeeper/zk_metadata_store.h"

namespace weir::metadata {

BrokerInfo local_broker_info(const config::BrokerConfig& config) {
    BrokerInfo b;
    b.id = config.broker_id;
    b.rack = config.rack;
    for (const config::Listener& l : config.advertised_listeners) b.endpoints.push_back({l.name, l.host, l.port});
    return b;
}

std::unique_ptr<MetadataStore> open_metadata_store(const config::BrokerConfig& config,
                                                   boost::asio::any_io_executor executor) {
    if (!config.single_node()) {
        ZkMetadataStore::Options o;
        o.zookeeper.connect = config.zookeeper_connect;
        o.zookeeper.session_timeout = std::chrono::milliseconds(config.zookeeper_session_timeout_ms);
        o.zookeeper.connection_timeout = std::chrono::milliseconds(config.zookeeper_connection_timeout_ms);
        o.local_broker = local_broker_info(config);
        o.executor = std::move(executor);
        return std::make_unique<ZkMetadataStore>(std::move(o));
    }
    if (config.log_dirs.empty()) throw MetadataStoreError("no log directory configured");
    return std::make_unique<EmbeddedMetadataStore>(
        EmbeddedMetadataStore::Options{config.log_dirs.front(), local_broker_info(config)});
}

}  // namespace weir::metadata
