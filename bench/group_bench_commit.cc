// group_bench commit, memory and fill: OffsetCommit throughput of one
// consumer, server memory per committed group-partition, and bulk commits
// for the replay measurement.
#include <fmt/core.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <thread>

#include "bench/group_bench_phases.h"

namespace weir::bench {
namespace {

// One synchronous commit through the consumer's group coordinator; throws
// on a request or partition error.
void commit_once(rd_kafka_t* rk, rd_kafka_queue_t* q, const rd_kafka_topic_partition_list_t* offsets) {
    if (auto e = rd_kafka_commit_queue(rk, offsets, q, nullptr, nullptr))
        throw std::runtime_error(fmt::format("commit: {}", rd_kafka_err2name(e)));
    rdkafka::Event guard(rd_kafka_queue_poll(q, 30000));
    rd_kafka_event_t* ev = guard.get();
    if (!ev) throw std::runtime_error("commit: no answer in 30 s");
    if (auto e = rd_kafka_event_error(ev)) throw std::runtime_error(fmt::format("commit: {}", rd_kafka_err2name(e)));
    if (const rd_kafka_topic_partition_list_t* parts = rd_kafka_event_topic_partition_list(ev))
        for (int i = 0; i < parts->cnt; ++i)
            if (parts->elems[i].err)
                throw std::runtime_error(fmt::format("commit {}[{}]: {}", parts->elems[i].topic,
                                                     parts->elems[i].partition,
                                                     rd_kafka_err2name(parts->elems[i].err)));
}

std::int64_t rss_kb(pid_t pid) {
    auto s = sample_process(pid);
    if (!s) throw std::runtime_error(fmt::format("cannot sample server pid {}", pid));
    return s->vm_rss_kb;
}

}  // namespace

int run_commit(const Args& a) {
    const std::string bootstrap = a.str("bootstrap");
    const int partitions = static_cast<int>(a.num("partitions", 1));
    const std::string topic = a.str("topic", fmt::format("commit{}", partitions));
    const double seconds = static_cast<double>(a.num("seconds", 10));
    const double warmup = static_cast<double>(a.num("warmup", 1));
    ServerMeter meter(static_cast<pid_t>(a.num("server-pid", 0)));

    Settings s = client_settings(a, bootstrap);
    {
        KafkaHandle admin = make_client(RD_KAFKA_PRODUCER, s);
        create_topic(admin.get(), topic, partitions, std::chrono::seconds(30));
    }
    s.emplace_back("group.id", fmt::format("commit-{}-{}", partitions, now_ns()));
    s.emplace_back("enable.auto.commit", "false");
    KafkaHandle rk = make_client(RD_KAFKA_CONSUMER, s);
    rdkafka::Queue q(rd_kafka_queue_new(rk.get()));
    std::int64_t next_offset = 1;
    PartitionList offsets = partition_list(topic, partitions);
    auto commit = [&] {
        for (int i = 0; i < offsets->cnt; ++i) offsets->elems[i].offset = next_offset;
        ++next_offset;
        commit_once(rk.get(), q.get(), offsets.get());
    };
    // Coordinator lookup and connections are not part of the figure.
    for (auto t0 = Clock::now(); seconds_since(t0) < warmup;) commit();

    std::vector<double> latency_ms;
    meter.start();
    const auto t0 = Clock::now();
    while (seconds_since(t0) < seconds) {
        auto c0 = Clock::now();
        commit();
        latency_ms.push_back(seconds_since(c0) * 1000);
    }
    const double elapsed = seconds_since(t0);
    const auto commits = static_cast<std::int64_t>(latency_ms.size());
    std::sort(latency_ms.begin(), latency_ms.end());
    Result r;
    r.add("phase", "commit").add("partitions", static_cast<std::int64_t>(partitions)).add("commits", commits);
    r.add("seconds", elapsed)
        .add("commits_per_s", static_cast<double>(commits) / elapsed)
        .add("offsets_per_s", static_cast<double>(commits * partitions) / elapsed)
        .add("p50_ms", percentile(latency_ms, 50))
        .add("p99_ms", percentile(latency_ms, 99))
        .add("max_ms", latency_ms.empty() ? 0.0 : latency_ms.back());
    meter.stop(r);
    r.print();
    rd_kafka_consumer_close(rk.get());
    return 0;
}

int run_memory(const Args& a) {
    const std::string bootstrap = a.str("bootstrap");
    const int partitions = static_cast<int>(a.num("partitions", 1000));
    const std::string topic = a.str("topic", "mem");
    const int groups = static_cast<int>(a.num("groups", 10));
    const int rounds = static_cast<int>(a.num("rounds", 3));
    const int warm_groups = static_cast<int>(a.num("warm-groups", 200));
    const auto settle = std::chrono::milliseconds(a.num("settle-ms", 1000));
    const auto pid = static_cast<pid_t>(a.num("server-pid", 0));
    if (pid <= 0) throw std::runtime_error("memory: --server-pid is required");

    KafkaHandle admin = make_client(RD_KAFKA_PRODUCER, client_settings(a, bootstrap));
    create_topic(admin.get(), topic, partitions, std::chrono::seconds(60));
    const auto timeout = std::chrono::seconds(300);
    // One partition in many groups first, so that every coordinator
    // partition and the connection exist before the first sample.
    commit_groups(
        admin.get(), static_cast<std::size_t>(warm_groups),
        [&](std::size_t i) {
            return GroupCommit{fmt::format("mem-warm-{}", i), partition_list(topic, 1, [](int) { return 1; })};
        },
        4, timeout);
    std::this_thread::sleep_for(settle);
    std::int64_t before = rss_kb(pid);
    const std::int64_t start_rss = before;
    std::vector<double> delta_kb;
    for (int round = 0; round < rounds; ++round) {
        commit_groups(
            admin.get(), static_cast<std::size_t>(groups),
            [&](std::size_t i) {
                return GroupCommit{fmt::format("mem-{}-{}", round, i),
                                   partition_list(topic, partitions, [](int p) { return 1000 + p; })};
            },
            1, timeout);
        std::this_thread::sleep_for(settle);
        std::int64_t after = rss_kb(pid);
        Result r;
        r.add("phase", "memory_round").add("round", static_cast<std::int64_t>(round));
        r.add("group_partitions", static_cast<std::int64_t>(groups) * partitions)
            .add("rss_before_kb", before)
            .add("rss_after_kb", after)
            .add("delta_kb", after - before)
            .print();
        delta_kb.push_back(static_cast<double>(after - before));
        before = after;
    }
    const double per = static_cast<double>(groups) * partitions;
    Result r;
    r.add("phase", "memory").add("group_partitions_per_round", static_cast<std::int64_t>(per));
    r.add("rounds", static_cast<std::int64_t>(rounds))
        .add("start_rss_kb", start_rss)
        .add("end_rss_kb", before)
        .add("median_delta_kb", median(delta_kb))
        .add("kb_per_10k", median(delta_kb) * 10000.0 / per)
        .add("bytes_per_group_partition", median(delta_kb) * 1024.0 / per)
        .print();
    return 0;
}

// Offset committed in `round` for group g, partition p: distinct for every
// commit, so a replay that keeps an older value is caught.
std::int64_t fill_offset(int round, std::size_t g, int p) {
    return static_cast<std::int64_t>(round) * 1'000'000'000 + static_cast<std::int64_t>(g) * 100'000 + p + 1;
}

int run_fill(const Args& a) {
    const std::string bootstrap = a.str("bootstrap");
    const int partitions = static_cast<int>(a.num("partitions", 1000));
    const std::string topic = a.str("topic", "fill");
    const auto groups = static_cast<std::size_t>(a.num("groups", 1000));
    const int rounds = static_cast<int>(a.num("rounds", 1));
    const std::string prefix = a.str("group-prefix", "fill-");
    const int window = static_cast<int>(a.num("window", 4));
    ServerMeter meter(static_cast<pid_t>(a.num("server-pid", 0)));

    KafkaHandle admin = make_client(RD_KAFKA_PRODUCER, client_settings(a, bootstrap));
    create_topic(admin.get(), topic, partitions, std::chrono::seconds(60));
    meter.start();
    const auto t0 = Clock::now();
    for (int round = 0; round < rounds; ++round)
        commit_groups(
            admin.get(), groups,
            [&](std::size_t g) {
                return GroupCommit{fmt::format("{}{}", prefix, g),
                                   partition_list(topic, partitions, [&](int p) { return fill_offset(round, g, p); })};
            },
            window, std::chrono::seconds(1200));
    const double elapsed = seconds_since(t0);
    const auto offsets = static_cast<std::int64_t>(groups) * partitions * rounds;
    Result r;
    r.add("phase", "fill").add("groups", static_cast<std::int64_t>(groups));
    r.add("partitions", static_cast<std::int64_t>(partitions)).add("rounds", static_cast<std::int64_t>(rounds));
    r.add("requests", static_cast<std::int64_t>(groups) * rounds).add("offsets", offsets);
    r.add("seconds", elapsed).add("offsets_per_s", static_cast<double>(offsets) / elapsed);
    meter.stop(r);
    r.print();
    return 0;
}

}  // namespace weir::bench
