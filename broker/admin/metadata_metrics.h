#pragma once
// Counts what the metadata says happened: ISR shrinks and expansions of the
// partitions this broker leads (Kafka's IsrShrinksPerSec/IsrExpandsPerSec),
// and drops a deleted topic's traffic series from the registry.
#include "broker/metadata/metadata_store.h"
#include "broker/metrics/metrics_registry.h"

namespace weir::admin {

class MetadataMetrics {
public:
    MetadataMetrics(metadata::MetadataStore& store, metrics::MetricsRegistry& metrics, std::int32_t broker_id);
    ~MetadataMetrics();
    MetadataMetrics(const MetadataMetrics&) = delete;
    MetadataMetrics& operator=(const MetadataMetrics&) = delete;

    void on_change(const metadata::MetadataChange& change);

private:
    metadata::MetadataStore& store_;
    metrics::MetricsRegistry& metrics_;
    std::int32_t broker_id_;
    metadata::MetadataStore::ListenerId listener_;
};

}  // namespace weir::admin
