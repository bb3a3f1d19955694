#pragma once
// Hands out producer ids (InitProducerId), one at a time from blocks the
// metadata store allocates durably (Kafka's ProducerIdManager): an id is never
// given twice, across restarts and across brokers; a crash wastes at most the
// rest of a block. Runs on the broker's I/O thread.
#include <cstdint>
#include <optional>

#include "broker/metadata/metadata_store.h"

namespace weir::metadata {

struct ProducerIdResult : Status {
    std::int64_t producer_id = -1;
};

class ProducerIdManager {
public:
    explicit ProducerIdManager(MetadataStore& store) : store_(store) {}
    // Movable so that BrokerContext, which holds one, can be built by value.
    ProducerIdManager(ProducerIdManager&&) = default;

    Task<ProducerIdResult> generate();

private:
    MetadataStore& store_;
    std::optional<ProducerIdBlock> block_;
    std::int64_t next_ = 0;
};

}  // namespace weir::metadata
