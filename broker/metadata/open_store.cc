#include "broker/metadata/open_store.h"

#include "broker/metadata/embedded_metadata_store.h"

namespace weir::metadata {

BrokerInfo local_broker_info(const config::BrokerConfig& config) {
    BrokerInfo b;
    b.id = config.broker_id;
    b.rack = config.rack;
    for (const config::Listener& l : config.advertised_listeners) b.endpoints.push_back({l.name, l.host, l.port});
    return b;
}

std::unique_ptr<MetadataStore> open_metadata_store(const config::BrokerConfig& config) {
    if (!config.single_node()) {
        throw MetadataStoreError("ZooKeeper mode (zookeeper.connect=" + config.zookeeper_connect +
                                 ") is not implemented yet");
    }
    if (config.log_dirs.empty()) throw MetadataStoreError("no log directory configured");
    return std::make_unique<EmbeddedMetadataStore>(
        EmbeddedMetadataStore::Options{config.log_dirs.front(), local_broker_info(config)});
}

}  // namespace weir::metadata
