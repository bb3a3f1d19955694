#include "broker/dispatch/request_accounting.h"

#include <algorithm>
#include <tuple>

#include "protocol/records/record_batch.h"

namespace weir::dispatch {

namespace {

// Records in v2 batches, read off their headers. Legacy (magic 0/1) message
// sets count zero: their messages would have to be walked one by one.
std::uint64_t record_count(wire::ByteSpan records) {
    std::uint64_t n = 0;
    try {
        if (records.size() < records::kBatchHeaderSize || records::records_magic(records) != 2) return 0;
        records::for_each_batch(records, false, [&](const records::BatchHeader& h, wire::ByteSpan) {
            n += static_cast<std::uint64_t>(std::max(h.record_count, 0));
        });
    } catch (const wire::DecodeError&) {
        // The handler rejects such a batch; its partition gets an error and is not counted.
    }
    return n;
}

}  // namespace

RequestFacts facts_of(const msg::ProduceRequest& request) {
    RequestFacts facts;
    for (const auto& topic : request.topic_data) {
        for (const auto& p : topic.partition_data) {
            if (!p.records) continue;
            facts.produced.push_back({topic.name, p.index, p.records->size(), record_count(p.records->bytes())});
        }
    }
    std::sort(facts.produced.begin(), facts.produced.end());
    return facts;
}

RequestFacts facts_of(const msg::FetchRequest& request) {
    RequestFacts facts;
    facts.replica_fetch = request.replica_id >= 0 || request.replica_state.replica_id >= 0;
    return facts;
}

void count_traffic(metrics::MetricsRegistry& metrics, const handlers::BrokerContext&, const RequestFacts& facts,
                   const msg::ProduceResponse& response) {
    for (const auto& topic : response.responses) {
        metrics::TopicTraffic* traffic = nullptr;
        for (const auto& p : topic.partition_responses) {
            if (p.error_code != 0) continue;
            RequestFacts::Produced key{topic.name, p.index, 0, 0};
            auto it =
                std::lower_bound(facts.produced.begin(), facts.produced.end(), key, [](const auto& a, const auto& b) {
                    return std::tie(a.topic, a.partition) < std::tie(b.topic, b.partition);
                });
            if (it == facts.produced.end() || it->topic != topic.name || it->partition != p.index) continue;
            if (!traffic) traffic = &metrics.topic(topic.name);
            traffic->bytes_in += it->bytes;
            traffic->messages_in += it->records;
        }
    }
}

void count_traffic(metrics::MetricsRegistry& metrics, const handlers::BrokerContext& broker, const RequestFacts& facts,
                   const msg::FetchResponse& response) {
    if (facts.replica_fetch) return;
    for (const auto& topic : response.responses) {
        std::uint64_t bytes = 0;
        for (const auto& p : topic.partitions)
            if (p.records) bytes += p.records->size();
        if (bytes == 0) continue;
        // Fetch v13+ names topics by id only.
        if (!topic.topic.empty()) {
            metrics.topic(topic.topic).bytes_out += bytes;
        } else if (auto name = broker.topic_name_for_id(topic.topic_id)) {
            metrics.topic(*name).bytes_out += bytes;
        }
    }
}

}  // namespace weir::dispatch
