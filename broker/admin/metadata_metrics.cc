#include "broker/admin/metadata_metrics.h"

namespace weir::admin {

MetadataMetrics::MetadataMetrics(metadata::MetadataStore& store, metrics::MetricsRegistry& metrics,
                                 std::int32_t broker_id)
    : store_(store), metrics_(metrics), broker_id_(broker_id) {
    listener_ = store_.add_listener([this](const metadata::MetadataChange& change) { on_change(change); });
}

MetadataMetrics::~MetadataMetrics() { store_.remove_listener(listener_); }

void MetadataMetrics::on_change(const metadata::MetadataChange& change) {
    using Kind = metadata::MetadataChange::Kind;
    if (change.kind == Kind::topic_deleted) {
        metrics_.forget_topic(change.topic);
        return;
    }
    if (change.kind != Kind::partition_state_changed || !change.before || !change.after) return;
    const auto& before = change.before->partitions;
    const auto& after = change.after->partitions;
    for (std::size_t i = 0; i < std::min(before.size(), after.size()); ++i) {
        // Only the leader changes an ISR in place; a new leader's ISR is an election, not a shrink.
        if (after[i].leader != broker_id_ || before[i].leader != broker_id_) continue;
        if (before[i].leader_epoch != after[i].leader_epoch) continue;
        if (after[i].isr.size() < before[i].isr.size()) metrics_.isr_shrunk();
        if (after[i].isr.size() > before[i].isr.size()) metrics_.isr_expanded();
    }
}

}  // namespace weir::admin
