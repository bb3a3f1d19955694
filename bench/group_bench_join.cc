// group_bench join: N consumers subscribe to one topic in a fresh group; time
// from the first subscribe until every member holds a non-empty assignment
// and together they hold every partition exactly once.
#include <fmt/core.h>

#include <set>
#include <stdexcept>
#include <thread>

#include "bench/group_bench_phases.h"

namespace weir::bench {
namespace {

struct Member {
    KafkaHandle rk;
    int assigns = 0;
    int revokes = 0;
};

// Eager protocol: apply what the coordinator hands out, count the rounds.
void rebalance_cb(rd_kafka_t* rk, rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t* parts, void* opaque) {
    auto* m = static_cast<Member*>(opaque);
    if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
        ++m->assigns;
        rd_kafka_assign(rk, parts);
    } else {
        ++m->revokes;
        rd_kafka_assign(rk, nullptr);
    }
}

void setup(rd_kafka_conf_t* conf, void*) { rd_kafka_conf_set_rebalance_cb(conf, rebalance_cb); }

void drain(rd_kafka_t* rk) {
    while (rd_kafka_message_t* msg = rd_kafka_consumer_poll(rk, 0)) rd_kafka_message_destroy(msg);
}

// Non-empty everywhere, disjoint, covering 0..partitions-1.
bool stable(std::vector<std::unique_ptr<Member>>& members, int partitions) {
    std::set<int> seen;
    for (auto& m : members) {
        rd_kafka_topic_partition_list_t* raw = nullptr;
        if (rd_kafka_assignment(m->rk.get(), &raw) != RD_KAFKA_RESP_ERR_NO_ERROR) return false;
        PartitionList l(raw);
        if (l->cnt == 0) return false;
        for (int i = 0; i < l->cnt; ++i)
            if (!seen.insert(l->elems[i].partition).second) return false;
    }
    return static_cast<int>(seen.size()) == partitions;
}

// Closes all members at once: closing one by one would make the rest
// rebalance after every leave.
void close_all(std::vector<std::unique_ptr<Member>>& members) {
    std::vector<std::thread> closers;
    for (auto& m : members)
        closers.emplace_back([&m] {
            rd_kafka_consumer_close(m->rk.get());
            m->rk.reset();
        });
    for (auto& t : closers) t.join();
}

}  // namespace

int run_join(const Args& a) {
    const std::string bootstrap = a.str("bootstrap");
    const std::string topic = a.str("topic", "join");
    const int partitions = static_cast<int>(a.num("partitions", 10));
    const int count = static_cast<int>(a.num("members", 10));
    const int reps = static_cast<int>(a.num("reps", 5));
    const auto timeout = std::chrono::milliseconds(a.num("timeout-ms", 60000));
    const auto hold = std::chrono::milliseconds(a.num("hold-ms", 1000));
    ServerMeter meter(static_cast<pid_t>(a.num("server-pid", 0)));

    Settings base = client_settings(a, bootstrap);
    {
        KafkaHandle admin = make_client(RD_KAFKA_PRODUCER, base);
        create_topic(admin.get(), topic, partitions, std::chrono::seconds(30));
    }
    std::vector<double> join_ms;
    int timeouts = 0;
    for (int rep = 0; rep < reps; ++rep) {
        const std::string group = fmt::format("join-{}-{}", rep, now_ns());
        std::vector<std::unique_ptr<Member>> members;
        for (int i = 0; i < count; ++i) {
            auto m = std::make_unique<Member>();
            Settings s = base;
            s.emplace_back("group.id", group);
            s.emplace_back("enable.auto.commit", "false");
            m->rk = make_client(RD_KAFKA_CONSUMER, s, setup, m.get());
            rd_kafka_poll_set_consumer(m->rk.get());
            // Bootstrap connection and metadata up front: the timed part is the group protocol.
            wait_for_topic(m->rk.get(), topic, partitions, std::chrono::seconds(30));
            members.push_back(std::move(m));
        }
        // Likewise the coordinator lookup and connection: an OffsetFetch
        // answered means the member's coordinator is known and connected.
        // (A member that joins late makes the mock wait session.timeout.ms.)
        for (auto& m : members) {
            PartitionList probe = partition_list(topic, 1);
            if (auto e = rd_kafka_committed(m->rk.get(), probe.get(), 30000))
                throw std::runtime_error(fmt::format("OffsetFetch before joining: {}", rd_kafka_err2name(e)));
        }
        PartitionList sub(rd_kafka_topic_partition_list_new(1));
        rd_kafka_topic_partition_list_add(sub.get(), topic.c_str(), RD_KAFKA_PARTITION_UA);

        meter.start();
        const auto t0 = Clock::now();
        for (auto& m : members)
            if (auto e = rd_kafka_subscribe(m->rk.get(), sub.get()))
                throw std::runtime_error(fmt::format("subscribe: {}", rd_kafka_err2name(e)));
        bool ok = false;
        while (Clock::now() - t0 < timeout) {
            for (auto& m : members) drain(m->rk.get());
            if ((ok = stable(members, partitions))) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        const double ms = seconds_since(t0) * 1000;
        if (!ok) {
            // Reported, not fatal: the other repetitions still say something.
            std::string state;
            for (auto& m : members) state += fmt::format("{}{}/{}", state.empty() ? "" : ",", m->assigns, m->revokes);
            Result r;
            r.add("phase", "join_timeout").add("rep", static_cast<std::int64_t>(rep)).add("after_ms", ms);
            r.add("assigns_revokes", state).print();
            ++timeouts;
            close_all(members);
            continue;
        }
        int rounds = 0, assigns = 0;
        for (auto& m : members) rounds = std::max(rounds, m->assigns), assigns += m->assigns;
        Result r;
        r.add("phase", "join_run").add("rep", static_cast<std::int64_t>(rep)).add("join_ms", ms);
        r.add("max_assigns_per_member", static_cast<std::int64_t>(rounds))
            .add("assigns_total", static_cast<std::int64_t>(assigns));
        meter.stop(r);
        // Stable means stable: no member may be moved during the hold.
        const auto hold_end = Clock::now() + hold;
        while (Clock::now() < hold_end) {
            for (auto& m : members) drain(m->rk.get());
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        int late = -assigns;
        for (auto& m : members) late += m->assigns;
        r.add("late_assigns", static_cast<std::int64_t>(late))
            .add("still_stable", stable(members, partitions) ? "1" : "0");
        r.print();
        join_ms.push_back(ms);
        close_all(members);
    }
    Result r;
    r.add("phase", "join").add("members", static_cast<std::int64_t>(count));
    r.add("partitions", static_cast<std::int64_t>(partitions)).add("reps", static_cast<std::int64_t>(reps));
    r.add("timeouts", static_cast<std::int64_t>(timeouts));
    if (!join_ms.empty())
        r.add("median_ms", median(join_ms))
            .add("min_ms", *std::min_element(join_ms.begin(), join_ms.end()))
            .add("max_ms", *std::max_element(join_ms.begin(), join_ms.end()));
    r.print();
    return 0;
}

}  // namespace weir::bench
