#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <memory>

#include "broker/config/broker_config.h"
#include "broker/metadata/metadata_store.h"

namespace weir::metadata {

// This broker as Metadata describes it: broker.id, advertised listeners, rack.
BrokerInfo local_broker_info(const config::BrokerConfig& config);

// The metadata backend the config asks for: embedded (in the first log dir)
// when zookeeper.connect is empty, else ZooKeeper, whose changes reach the
// listeners on `executor`. Throws MetadataStoreError.
std::unique_ptr<MetadataStore> open_metadata_store(const config::BrokerConfig& config,
                                                   boost::asio::any_io_executor executor);

}  // namespace weir::metadata
