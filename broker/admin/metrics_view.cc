#include "broker/admin/metrics_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "broker/admin/group_state.h"
#include "broker/admin/prometheus_writer.h"
#include "broker/partitions/replica_manager.h"
#include "broker/storage/log_manager.h"
#include "messages/api_table.h"

namespace weir::admin {

namespace asio = boost::asio;

namespace {

struct PartitionRow {
    TopicPartition tp;
    std::int64_t log_start = 0;
    std::int64_t log_end = 0;
    std::uint64_t size = 0;
    bool leader = false;
    bool under_replicated = false;
};

std::string api_label(std::size_t key) {
    auto name = msg::api_name(static_cast<msg::ApiKey>(key));
    return name == "Unknown" ? std::to_string(key) : std::string(name);
}

void write_requests(PrometheusWriter& w, const metrics::MetricsRegistry& m) {
    const auto& apis = m.apis();
    w.family("weir_requests_total", "counter", "Kafka requests served, by API.");
    for (std::size_t k = 0; k < apis.size(); ++k)
        if (apis[k].requests > 0) w.sample("weir_requests_total", {{"api", api_label(k)}}, apis[k].requests);

    w.family("weir_request_errors_total", "counter",
             "Error codes in Kafka responses (top-level and per partition, topic or group), by API and error.");
    for (std::size_t k = 0; k < apis.size(); ++k)
        for (const auto& [code, count] : apis[k].errors)
            w.sample("weir_request_errors_total", {{"api", api_label(k)}, {"error", error_name(code)}}, count);

    w.family("weir_request_duration_seconds", "histogram",
             "Time from a Kafka request's arrival to its response, by API.");
    for (std::size_t k = 0; k < apis.size(); ++k) {
        const auto& a = apis[k];
        if (a.requests == 0) continue;
        const auto api = api_label(k);
        std::uint64_t cumulative = 0;
        for (std::size_t b = 0; b < metrics::kDurationBuckets.size(); ++b) {
            cumulative += a.duration.counts[b];
            const auto le = fmt::format("{}", metrics::kDurationBuckets[b]);
            w.sample("weir_request_duration_seconds_bucket", {{"api", api}, {"le", le}}, cumulative);
        }
        w.sample("weir_request_duration_seconds_bucket", {{"api", api}, {"le", "+Inf"}}, a.duration.count);
        w.sample("weir_request_duration_seconds_sum", {{"api", api}}, a.duration.sum);
        w.sample("weir_request_duration_seconds_count", {{"api", api}}, a.duration.count);
    }
}

void write_traffic(PrometheusWriter& w, const metrics::MetricsRegistry& m) {
    std::vector<std::pair<std::string_view, const metrics::TopicTraffic*>> topics;
    for (const auto& [name, t] : m.topics()) topics.emplace_back(name, &t);
    std::sort(topics.begin(), topics.end());
    w.family("weir_bytes_in_total", "counter", "Bytes of record batches appended by producers, by topic.");
    for (const auto& [name, t] : topics) w.sample("weir_bytes_in_total", {{"topic", name}}, t->bytes_in);
    w.family("weir_bytes_out_total", "counter", "Bytes of records sent to consumers (not followers), by topic.");
    for (const auto& [name, t] : topics) w.sample("weir_bytes_out_total", {{"topic", name}}, t->bytes_out);
    w.family("weir_messages_in_total", "counter", "Records appended by producers, by topic.");
    for (const auto& [name, t] : topics) w.sample("weir_messages_in_total", {{"topic", name}}, t->messages_in);
}

asio::awaitable<std::vector<PartitionRow>> partition_rows(const AdminContext& context, std::size_t batch) {
    auto hosted = context.broker.partitions.hosted();
    std::vector<PartitionRow> rows;
    rows.reserve(hosted.size());
    for (std::size_t i = 0; i < hosted.size(); ++i) {
        if (i > 0 && i % batch == 0) co_await asio::post(context.broker.executor, asio::use_awaitable);
        const auto& p = *hosted[i];
        if (p.stopped()) continue;
        auto log = context.logs.get(p.topic_partition());
        rows.push_back({p.topic_partition(), p.log_start_offset(), p.log_end_offset(), log ? log->size_bytes() : 0,
                        p.is_leader(), p.is_leader() && p.isr().size() < p.replicas().size()});
    }
    std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.tp < b.tp; });
    co_return rows;
}

enum class PartitionGauge { log_end, log_start, size };

// Formatting is most of a scrape's work with many partitions: it yields too.
asio::awaitable<void> write_partitions(PrometheusWriter& w, const AdminContext& context,
                                       const std::vector<PartitionRow>& rows, std::size_t batch) {
    struct Family {
        std::string_view name;
        std::string_view help;
        PartitionGauge gauge;
    };
    static constexpr Family families[] = {
        {"weir_partition_log_end_offset", "Offset the next record appended to the partition's log gets.",
         PartitionGauge::log_end},
        {"weir_partition_log_start_offset", "First offset still in the partition's log.", PartitionGauge::log_start},
        {"weir_partition_size_bytes", "Bytes of the partition's log segments on disk.", PartitionGauge::size},
    };
    for (const auto& f : families) {
        w.family(f.name, "gauge", f.help);
        for (std::size_t i = 0; i < rows.size(); ++i) {
            if (i > 0 && i % batch == 0) co_await asio::post(context.broker.executor, asio::use_awaitable);
            const auto& r = rows[i];
            const auto partition = std::to_string(r.tp.partition);
            const std::initializer_list<Label> labels{{"topic", r.tp.topic}, {"partition", partition}};
            switch (f.gauge) {
                case PartitionGauge::log_end:
                    w.sample(f.name, labels, r.log_end);
                    break;
                case PartitionGauge::log_start:
                    w.sample(f.name, labels, r.log_start);
                    break;
                case PartitionGauge::size:
                    w.sample(f.name, labels, r.size);
                    break;
            }
        }
    }
}

asio::awaitable<void> write_groups(PrometheusWriter& w, const AdminContext& context, std::size_t batch) {
    if (!context.broker.group_service) co_return;
    auto listed = list_groups(context);
    const auto groups = co_await std::move(listed);
    std::vector<GroupState> states;
    states.reserve(groups.size());
    for (std::size_t i = 0; i < groups.size(); ++i) {
        if (i > 0 && i % batch == 0) co_await asio::post(context.broker.executor, asio::use_awaitable);
        auto described = describe_group(context, groups[i].group_id);
        auto state = co_await std::move(described);
        if (state.error == ErrorCode::none) states.push_back(std::move(state));
    }
    w.family("weir_consumer_group_members", "gauge", "Members of each consumer group this broker coordinates.");
    for (const auto& g : states)
        w.sample("weir_consumer_group_members", {{"group", g.group_id}}, static_cast<std::uint64_t>(g.members.size()));
    w.family("weir_consumer_group_lag", "gauge",
             "High watermark minus the group's committed offset, for partitions this broker leads.");
    for (const auto& g : states) {
        for (const auto& c : g.offsets) {
            auto lag = c.lag();
            if (!lag) continue;
            const auto partition = std::to_string(c.tp.partition);
            w.sample("weir_consumer_group_lag",
                     {{"group", g.group_id}, {"topic", c.tp.topic}, {"partition", partition}}, *lag);
        }
    }
}

}  // namespace

asio::awaitable<std::string> render_metrics(const AdminContext& context, std::size_t batch) {
    batch = std::max<std::size_t>(batch, 1);
    PrometheusWriter w;
    write_requests(w, context.metrics);
    write_traffic(w, context.metrics);
    w.family("weir_connections", "gauge", "Open Kafka client connections.");
    w.sample("weir_connections", {}, static_cast<std::uint64_t>(context.open_connections()));

    auto collected = partition_rows(context, batch);
    const auto rows = co_await std::move(collected);
    auto written = write_partitions(w, context, rows, batch);
    co_await std::move(written);
    if (!context.broker.config.single_node()) {
        w.family("weir_under_replicated_partitions", "gauge",
                 "Partitions this broker leads whose ISR is smaller than their replica set.");
        w.sample("weir_under_replicated_partitions", {},
                 static_cast<std::uint64_t>(
                     std::count_if(rows.begin(), rows.end(), [](const auto& r) { return r.under_replicated; })));
        w.family("weir_isr_shrinks_total", "counter", "ISR shrinks of partitions this broker leads.");
        w.sample("weir_isr_shrinks_total", {}, context.metrics.isr_shrinks());
        w.family("weir_isr_expands_total", "counter", "ISR expansions of partitions this broker leads.");
        w.sample("weir_isr_expands_total", {}, context.metrics.isr_expands());
    }
    // Kafka's kafka.log:type=LogManager,name=OfflineLogDirectoryCount.
    w.family("weir_offline_log_dirs", "gauge", "Log dirs taken offline after a failure of their disk.");
    w.sample("weir_offline_log_dirs", {}, context.metrics.offline_log_dirs());
    if (const auto* open_files = context.logs.open_files()) {
        w.family("weir_log_open_files", "gauge",
                 "Segment files held open or mapped now (weir.log.max.open.files bounds them).");
        w.sample("weir_log_open_files", {}, static_cast<std::uint64_t>(open_files->open()));
        w.family("weir_log_open_files_closed_total", "counter",
                 "Segment files closed to stay within weir.log.max.open.files (reopened when next used).");
        w.sample("weir_log_open_files_closed_total", {}, open_files->closed_for_budget());
    }
    const auto& scrub = context.metrics.scrub();
    w.family("weir_log_scrub_bytes_total", "counter", "Bytes of closed segments the background scrub checked.");
    w.sample("weir_log_scrub_bytes_total", {}, scrub.bytes);
    w.family("weir_log_scrub_damaged_segments_total", "counter",
             "Segments in which the background scrub found a damaged batch (once per segment and pass).");
    w.sample("weir_log_scrub_damaged_segments_total", {}, scrub.damaged_segments);
    w.family("weir_log_scrub_passes_total", "counter", "Scrub passes completed over every log.");
    w.sample("weir_log_scrub_passes_total", {}, scrub.passes);
    auto groups = write_groups(w, context, batch);
    co_await std::move(groups);
    co_return w.take();
}

}  // namespace weir::admin
