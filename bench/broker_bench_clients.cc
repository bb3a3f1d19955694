// The client phases of broker_bench: produce, consume and end-to-end latency,
// each with librdkafka against --bootstrap, sampling --server-pid around it.
#include <fmt/core.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <random>
#include <stdexcept>
#include <thread>

#include "bench/broker_bench_common.h"
#include "bench/broker_bench_phases.h"

namespace weir::bench {
namespace {

constexpr auto kTopicWait = std::chrono::seconds(15);

struct DeliveryCounts {
    std::atomic<std::int64_t> ok{0};
    std::atomic<std::int64_t> failed{0};
    std::atomic<int> first_error{0};
};

void on_delivery(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
    auto* counts = static_cast<DeliveryCounts*>(opaque);
    if (m->err) {
        int expected = 0;
        counts->first_error.compare_exchange_strong(expected, m->err);
        counts->failed.fetch_add(1, std::memory_order_relaxed);
    } else {
        counts->ok.fetch_add(1, std::memory_order_relaxed);
    }
}

void install_delivery_callback(rd_kafka_conf_t* conf, void*) { rd_kafka_conf_set_dr_msg_cb(conf, on_delivery); }

std::vector<std::pair<std::string, std::string>> base_settings(const Args& a) {
    std::vector<std::pair<std::string, std::string>> s{{"bootstrap.servers", a.str("bootstrap")}};
    // Extra client settings: --set "k=v,k=v" (for diagnostics only).
    std::string extra = a.str("set");
    for (std::size_t pos = 0; pos < extra.size();) {
        auto comma = extra.find(',', pos);
        auto item = extra.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        auto eq = item.find('=');
        if (eq == std::string::npos) throw std::runtime_error("--set wants k=v, got " + item);
        s.emplace_back(item.substr(0, eq), item.substr(eq + 1));
        if (comma == std::string::npos) break;
        pos = comma + 1;
    }
    return s;
}

PartitionList all_partitions(const std::string& topic, int count, std::int64_t offset) {
    PartitionList list(rd_kafka_topic_partition_list_new(count));
    for (int p = 0; p < count; ++p) rd_kafka_topic_partition_list_add(list.get(), topic.c_str(), p)->offset = offset;
    return list;
}

void check(rd_kafka_resp_err_t err, const char* what) {
    if (err) throw std::runtime_error(fmt::format("{}: {}", what, rd_kafka_err2str(err)));
}

void check_error(rd_kafka_error_t* error, const char* what) {
    if (!error) return;
    auto message = fmt::format("{}: {}", what, rd_kafka_error_string(error));
    rd_kafka_error_destroy(error);
    throw std::runtime_error(message);
}

}  // namespace

// Produces --count messages of --size bytes (random, incompressible) to
// --topic as fast as the client allows, and waits for every delivery report.
int run_produce(const Args& a) {
    const std::string topic = a.str("topic");
    const std::int64_t count = a.num("count", 1000000);
    const std::size_t size = static_cast<std::size_t>(a.num("size", 100));
    const int partitions = static_cast<int>(a.num("partitions", 4));
    // --transaction-size N: a transactional producer committing every N
    // messages (transactions imply idempotence and acks=all).
    const std::int64_t transaction_size = a.num("transaction-size", 0);
    auto settings = base_settings(a);
    settings.emplace_back("acks", a.str("acks", "1"));
    settings.emplace_back("enable.idempotence", a.str("idempotence", "false"));
    if (transaction_size > 0) settings.emplace_back("transactional.id", a.str("transactional-id", "broker-bench"));

    std::vector<char> payload(size);
    std::mt19937 rng(42);
    for (auto& c : payload) c = static_cast<char>(rng());

    DeliveryCounts counts;
    auto rk = make_client(RD_KAFKA_PRODUCER, settings, install_delivery_callback, &counts);
    wait_for_topic(rk.get(), topic, partitions, kTopicWait);
    rd_kafka_topic_t* rkt = rd_kafka_topic_new(rk.get(), topic.c_str(), nullptr);

    constexpr int kTxnTimeoutMs = 60000;
    if (transaction_size > 0) check_error(rd_kafka_init_transactions(rk.get(), kTxnTimeoutMs), "init_transactions");

    ServerMeter meter(static_cast<pid_t>(a.num("server-pid", 0)));
    meter.start();
    auto t0 = Clock::now();
    std::int64_t queue_full = 0;
    std::int64_t transactions = 0;
    for (std::int64_t i = 0; i < count;) {
        if (transaction_size > 0 && i % transaction_size == 0 && i / transaction_size == transactions) {
            if (transactions > 0) check_error(rd_kafka_commit_transaction(rk.get(), kTxnTimeoutMs), "commit");
            check_error(rd_kafka_begin_transaction(rk.get()), "begin_transaction");
            ++transactions;
        }
        // The payload outlives the producer and is never modified: no copy.
        if (rd_kafka_produce(rkt, RD_KAFKA_PARTITION_UA, 0, payload.data(), payload.size(), nullptr, 0, nullptr) == 0) {
            ++i;
            if ((i & 1023) == 0) rd_kafka_poll(rk.get(), 0);
            continue;
        }
        auto err = rd_kafka_last_error();
        if (err != RD_KAFKA_RESP_ERR__QUEUE_FULL) check(err, "produce");
        ++queue_full;
        rd_kafka_poll(rk.get(), 1);
        if (seconds_since(t0) > 600) throw std::runtime_error("produce: no progress for 600 s");
    }
    if (transactions > 0) check_error(rd_kafka_commit_transaction(rk.get(), kTxnTimeoutMs), "commit");
    auto flush_err = rd_kafka_flush(rk.get(), 120000);
    double elapsed = seconds_since(t0);
    Result r;
    meter.stop(r);
    rd_kafka_topic_destroy(rkt);
    check(flush_err, "flush");
    if (counts.failed > 0 || counts.ok != count)
        throw std::runtime_error(
            fmt::format("produce: {} delivered, {} failed (first error: {})", counts.ok.load(), counts.failed.load(),
                        rd_kafka_err2str(static_cast<rd_kafka_resp_err_t>(counts.first_error.load()))));
    const double bytes = static_cast<double>(count) * static_cast<double>(size);
    r.add("phase", a.str("name", "produce"))
        .add("msgs", count)
        .add("size", static_cast<std::int64_t>(size))
        .add("acks", a.str("acks", "1"))
        .add("idempotence", a.str("idempotence", "false"))
        .add("transaction_size", transaction_size)
        .add("transactions", transactions)
        .add("elapsed_s", elapsed)
        .add("msgs_per_s", static_cast<double>(count) / elapsed)
        .add("mb_per_s", bytes / elapsed / 1e6)
        .add("payload_bytes", static_cast<std::int64_t>(bytes))
        .add("queue_full_waits", queue_full);
    r.print();
    return 0;
}

// Reads every partition of --topic from its log start to the high watermark
// seen at start (a plain assign consumer, no group). With --min-bytes, seeks
// back to the start and reads again until that many payload bytes were read
// (the mock keeps only the last 5 MB of each partition).
int run_consume(const Args& a) {
    const std::string topic = a.str("topic");
    const int partitions = static_cast<int>(a.num("partitions", 4));
    const double min_bytes = static_cast<double>(a.num("min-bytes", 0));
    auto settings = base_settings(a);
    // librdkafka's assign() needs a group handle; no group is joined.
    settings.emplace_back("group.id", "broker-bench-" + topic);
    settings.emplace_back("enable.auto.commit", "false");
    settings.emplace_back("enable.auto.offset.store", "false");
    settings.emplace_back("enable.partition.eof", "true");
    auto rk = make_client(RD_KAFKA_CONSUMER, settings);
    wait_for_topic(rk.get(), topic, partitions, kTopicWait);

    std::vector<std::int64_t> low(partitions), high(partitions);
    std::int64_t expected = 0;
    for (int p = 0; p < partitions; ++p) {
        check(rd_kafka_query_watermark_offsets(rk.get(), topic.c_str(), p, &low[p], &high[p], 10000), "watermarks");
        expected += high[p] - low[p];
    }
    if (expected == 0) throw std::runtime_error("consume: topic is empty");

    ServerMeter meter(static_cast<pid_t>(a.num("server-pid", 0)));
    meter.start();
    auto t0 = Clock::now();
    check(rd_kafka_assign(rk.get(), all_partitions(topic, partitions, RD_KAFKA_OFFSET_BEGINNING).get()), "assign");
    // Empty partitions are done from the start (also on every later pass).
    std::vector<bool> done(partitions, false);
    int done_count = 0;
    auto reset_done = [&] {
        done_count = 0;
        for (int p = 0; p < partitions; ++p) {
            done[p] = high[p] == low[p];
            done_count += done[p] ? 1 : 0;
        }
    };
    reset_done();
    std::int64_t msgs = 0, passes = 1;
    double bytes = 0;
    std::int64_t first_offset_seen = -1;
    while (true) {
        if (seconds_since(t0) > 300) throw std::runtime_error(fmt::format("consume: timeout after {} msgs", msgs));
        rd_kafka_message_t* m = rd_kafka_consumer_poll(rk.get(), 500);
        if (!m) continue;
        const int p = m->partition;
        if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
            if (p >= 0 && p < partitions && m->offset >= high[p] && !done[p]) {
                done[p] = true;
                ++done_count;
            }
        } else if (m->err) {
            std::string e = rd_kafka_message_errstr(m);
            rd_kafka_message_destroy(m);
            throw std::runtime_error("consume: " + e);
        } else if (!done[p] && m->offset < high[p]) {
            if (first_offset_seen < 0) first_offset_seen = m->offset;
            ++msgs;
            bytes += static_cast<double>(m->len + m->key_len);
            if (m->offset == high[p] - 1) {
                done[p] = true;
                ++done_count;
            }
        }
        rd_kafka_message_destroy(m);
        if (done_count < partitions) continue;
        if (bytes >= min_bytes) break;
        // Another pass over what the broker kept.
        ++passes;
        reset_done();
        check(rd_kafka_assign(rk.get(), all_partitions(topic, partitions, RD_KAFKA_OFFSET_BEGINNING).get()),
              "re-assign");
    }
    double elapsed = seconds_since(t0);
    Result r;
    meter.stop(r);
    std::int64_t retained = 0;
    for (int p = 0; p < partitions; ++p) {
        std::int64_t lo = 0, hi = 0;
        check(rd_kafka_query_watermark_offsets(rk.get(), topic.c_str(), p, &lo, &hi, 10000), "watermarks");
        retained += hi - lo;
    }
    r.add("phase", a.str("name", "consume"))
        .add("msgs", msgs)
        .add("passes", passes)
        .add("retained_msgs", retained)
        .add("elapsed_s", elapsed)
        .add("msgs_per_s", static_cast<double>(msgs) / elapsed)
        .add("mb_per_s", bytes / elapsed / 1e6)
        .add("payload_bytes", static_cast<std::int64_t>(bytes));
    r.print();
    rd_kafka_consumer_close(rk.get());
    return 0;
}

namespace {

struct Stamp {
    std::int64_t seq;
    std::int64_t sent_ns;
};

}  // namespace

// One producer sends --rate msg/s of --size bytes for --seconds (after
// --warmup seconds not counted); one consumer in the same process reads them
// and records now - send time. Client settings are librdkafka's defaults.
int run_latency(const Args& a) {
    const std::string topic = a.str("topic");
    const int partitions = static_cast<int>(a.num("partitions", 4));
    const std::int64_t rate = a.num("rate", 1000);
    const std::size_t size = static_cast<std::size_t>(std::max<std::int64_t>(a.num("size", 1024), sizeof(Stamp)));
    const std::int64_t warmup = a.num("warmup", 2) * rate;
    const std::int64_t total = warmup + a.num("seconds", 20) * rate;

    DeliveryCounts counts;
    auto producer = make_client(RD_KAFKA_PRODUCER, base_settings(a), install_delivery_callback, &counts);
    wait_for_topic(producer.get(), topic, partitions, kTopicWait);
    // --set is for the producer (the linger diagnostic); the consumer keeps defaults.
    std::vector<std::pair<std::string, std::string>> consumer_settings{{"bootstrap.servers", a.str("bootstrap")}};
    consumer_settings.emplace_back("group.id", "broker-bench-" + topic);  // needed by assign(), not a tuning
    auto consumer = make_client(RD_KAFKA_CONSUMER, consumer_settings);
    check(rd_kafka_assign(consumer.get(), all_partitions(topic, partitions, RD_KAFKA_OFFSET_BEGINNING).get()),
          "assign");

    std::vector<double> latencies_ms;
    latencies_ms.reserve(static_cast<std::size_t>(total));
    std::atomic<bool> producing_done{false};
    std::atomic<std::int64_t> received{0};
    std::atomic<bool> failed{false};
    std::string consumer_error;
    std::thread reader([&] {
        auto stop_at = Clock::time_point::max();
        while (received < total && Clock::now() < stop_at) {
            if (producing_done && stop_at == Clock::time_point::max())
                stop_at = Clock::now() + std::chrono::seconds(10);
            rd_kafka_message_t* m = rd_kafka_consumer_poll(consumer.get(), 100);
            if (!m) continue;
            auto now = now_ns();
            if (m->err) {
                if (m->err != RD_KAFKA_RESP_ERR__PARTITION_EOF) {
                    consumer_error = rd_kafka_message_errstr(m);
                    failed = true;
                }
            } else if (m->len >= sizeof(Stamp)) {
                Stamp s;
                std::memcpy(&s, m->payload, sizeof s);
                if (s.seq >= warmup) latencies_ms.push_back(static_cast<double>(now - s.sent_ns) / 1e6);
                ++received;
            }
            rd_kafka_message_destroy(m);
            if (failed) return;
        }
    });

    ServerMeter meter(static_cast<pid_t>(a.num("server-pid", 0)));
    std::vector<char> payload(size, 'x');
    auto t0 = Clock::now();
    const auto interval = std::chrono::nanoseconds(1'000'000'000 / rate);
    std::int64_t late = 0;
    for (std::int64_t i = 0; i < total && !failed; ++i) {
        if (i == warmup) meter.start();
        auto due = t0 + i * interval;
        if (Clock::now() > due + std::chrono::milliseconds(1)) ++late;
        std::this_thread::sleep_until(due);
        Stamp s{i, now_ns()};
        std::memcpy(payload.data(), &s, sizeof s);
        auto err = rd_kafka_producev(producer.get(), RD_KAFKA_V_TOPIC(topic.c_str()),
                                     RD_KAFKA_V_VALUE(payload.data(), payload.size()),
                                     RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
        check(err, "producev");
        rd_kafka_poll(producer.get(), 0);
    }
    check(rd_kafka_flush(producer.get(), 30000), "flush");
    producing_done = true;
    reader.join();
    Result r;
    meter.stop(r);
    if (failed) throw std::runtime_error("latency consumer: " + consumer_error);
    std::sort(latencies_ms.begin(), latencies_ms.end());
    r.add("phase", a.str("name", "latency"))
        .add("sent", total - warmup)
        .add("measured", static_cast<std::int64_t>(latencies_ms.size()))
        .add("delivery_failed", counts.failed.load())
        .add("send_late", late)
        .add("p50_ms", percentile(latencies_ms, 50))
        .add("p99_ms", percentile(latencies_ms, 99))
        .add("p999_ms", percentile(latencies_ms, 99.9))
        .add("max_ms", latencies_ms.empty() ? 0.0 : latencies_ms.back());
    r.print();
    rd_kafka_consumer_close(consumer.get());
    return 0;
}

}  // namespace weir::bench
