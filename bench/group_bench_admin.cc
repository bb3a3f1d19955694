// Admin-API helpers of group_bench: topic creation, OffsetCommit and
// OffsetFetch of many groups with a bounded number of requests in flight.
#include <fmt/core.h>

#include <algorithm>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "bench/group_bench_phases.h"

namespace weir::bench {
namespace {

using rdkafka::Event;
using rdkafka::Queue;
using Options = rdkafka::AdminOptions;

Options admin_options(rd_kafka_t* rk, rd_kafka_admin_op_t op, std::chrono::milliseconds timeout,
                      void* opaque = nullptr) {
    Options o(rd_kafka_AdminOptions_new(rk, op));
    char err[256];
    if (rd_kafka_AdminOptions_set_request_timeout(o.get(), static_cast<int>(timeout.count()), err, sizeof err))
        throw std::runtime_error(std::string("request timeout: ") + err);
    if (opaque) rd_kafka_AdminOptions_set_opaque(o.get(), opaque);
    return o;
}

// Waits for the next event on q until deadline; throws on timeout.
Event next_event(rd_kafka_queue_t* q, Clock::time_point deadline, const char* what) {
    while (true) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (left <= 0) throw std::runtime_error(fmt::format("{}: no answer in time", what));
        if (rd_kafka_event_t* ev = rd_kafka_queue_poll(q, static_cast<int>(std::min<long>(left, 1000))))
            return Event(ev);
    }
}

// Partitions of `topic` as the broker reports them (0: unknown topic). Asks
// for all topics: naming one would make an auto-creating broker create it.
int existing_partitions(rd_kafka_t* rk, const std::string& topic) {
    const rd_kafka_metadata_t* md = nullptr;
    if (auto e = rd_kafka_metadata(rk, 1, nullptr, &md, 10000))
        throw std::runtime_error(fmt::format("Metadata: {}", rd_kafka_err2name(e)));
    int n = 0;
    for (int i = 0; i < md->topic_cnt; ++i)
        if (topic == md->topics[i].topic && md->topics[i].err == RD_KAFKA_RESP_ERR_NO_ERROR)
            n = md->topics[i].partition_cnt;
    rd_kafka_metadata_destroy(md);
    return n;
}

}  // namespace

Settings client_settings(const Args& a, const std::string& bootstrap) {
    Settings s{{"bootstrap.servers", bootstrap}, {"log_level", "3"}};
    std::stringstream extra(a.str("set"));
    for (std::string kv; std::getline(extra, kv, ',');) {
        auto eq = kv.find('=');
        if (eq == std::string::npos) throw std::runtime_error("--set wants k=v,k=v, got " + kv);
        s.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
    }
    return s;
}

void create_topic(rd_kafka_t* rk, const std::string& topic, int partitions, std::chrono::milliseconds timeout) {
    // The mock answers no CreateTopics: its topics are made up front.
    if (int n = existing_partitions(rk, topic); n != 0) {
        if (n != partitions)
            throw std::runtime_error(fmt::format("topic {} exists with {} partitions, want {}", topic, n, partitions));
        wait_for_topic(rk, topic, partitions, timeout);
        return;
    }
    char err[256];
    rd_kafka_NewTopic_t* nt = rd_kafka_NewTopic_new(topic.c_str(), partitions, 1, err, sizeof err);
    if (!nt) throw std::runtime_error(std::string("NewTopic: ") + err);
    Queue q(rd_kafka_queue_new(rk));
    auto opts = admin_options(rk, RD_KAFKA_ADMIN_OP_CREATETOPICS, timeout);
    rd_kafka_CreateTopics(rk, &nt, 1, opts.get(), q.get());
    rd_kafka_NewTopic_destroy(nt);
    Event ev = next_event(q.get(), Clock::now() + timeout + std::chrono::seconds(5), "CreateTopics");
    if (rd_kafka_event_error(ev.get()))
        throw std::runtime_error(fmt::format("CreateTopics {}: {}", topic, rd_kafka_event_error_string(ev.get())));
    size_t n = 0;
    const rd_kafka_topic_result_t** results =
        rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(ev.get()), &n);
    for (size_t i = 0; i < n; ++i) {
        auto e = rd_kafka_topic_result_error(results[i]);
        if (e != RD_KAFKA_RESP_ERR_NO_ERROR && e != RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS)
            throw std::runtime_error(fmt::format(
                "CreateTopics {}: {} {}", topic, rd_kafka_err2name(e),
                rd_kafka_topic_result_error_string(results[i]) ? rd_kafka_topic_result_error_string(results[i]) : ""));
    }
    wait_for_topic(rk, topic, partitions, timeout);
}

PartitionList partition_list(const std::string& topic, int partitions,
                             const std::function<std::int64_t(int)>& offset_of) {
    PartitionList l(rd_kafka_topic_partition_list_new(partitions));
    for (int p = 0; p < partitions; ++p)
        rd_kafka_topic_partition_list_add(l.get(), topic.c_str(), p)->offset = offset_of(p);
    return l;
}

void commit_groups(rd_kafka_t* admin, std::size_t count, const std::function<GroupCommit(std::size_t)>& make,
                   int window, std::chrono::milliseconds timeout) {
    Queue q(rd_kafka_queue_new(admin));
    const auto deadline = Clock::now() + timeout;
    std::size_t next = 0, done = 0;
    int in_flight = 0;
    while (done < count) {
        while (in_flight < window && next < count) {
            auto [group, offsets] = make(next++);
            rd_kafka_AlterConsumerGroupOffsets_t* req =
                rd_kafka_AlterConsumerGroupOffsets_new(group.c_str(), offsets.get());
            auto opts =
                admin_options(admin, RD_KAFKA_ADMIN_OP_ALTERCONSUMERGROUPOFFSETS, std::chrono::milliseconds(30000));
            rd_kafka_AlterConsumerGroupOffsets(admin, &req, 1, opts.get(), q.get());
            rd_kafka_AlterConsumerGroupOffsets_destroy(req);
            ++in_flight;
        }
        Event ev = next_event(q.get(), deadline, "OffsetCommit");
        --in_flight;
        ++done;
        if (rd_kafka_event_error(ev.get()))
            throw std::runtime_error(fmt::format("OffsetCommit: {}", rd_kafka_event_error_string(ev.get())));
        size_t n = 0;
        const rd_kafka_group_result_t** groups = rd_kafka_AlterConsumerGroupOffsets_result_groups(
            rd_kafka_event_AlterConsumerGroupOffsets_result(ev.get()), &n);
        for (size_t i = 0; i < n; ++i) {
            if (const rd_kafka_error_t* e = rd_kafka_group_result_error(groups[i]))
                throw std::runtime_error(fmt::format("OffsetCommit {}: {}", rd_kafka_group_result_name(groups[i]),
                                                     rd_kafka_error_string(e)));
            const rd_kafka_topic_partition_list_t* parts = rd_kafka_group_result_partitions(groups[i]);
            for (int k = 0; parts && k < parts->cnt; ++k)
                if (parts->elems[k].err)
                    throw std::runtime_error(fmt::format(
                        "OffsetCommit {} {}[{}]: {}", rd_kafka_group_result_name(groups[i]), parts->elems[k].topic,
                        parts->elems[k].partition, rd_kafka_err2name(parts->elems[k].err)));
        }
    }
}

std::vector<std::string> check_groups(rd_kafka_t* admin, const std::vector<std::string>& groups,
                                      const std::string& topic, int partitions,
                                      const std::function<std::int64_t(std::size_t, int)>& expected, int window,
                                      std::chrono::milliseconds timeout) {
    std::vector<std::string> verdict(groups.size(), "no answer");
    Queue q(rd_kafka_queue_new(admin));
    const auto deadline = Clock::now() + timeout;
    PartitionList wanted = partition_list(topic, partitions);
    std::size_t next = 0, done = 0;
    int in_flight = 0;
    while (done < groups.size()) {
        while (in_flight < window && next < groups.size()) {
            rd_kafka_ListConsumerGroupOffsets_t* req =
                rd_kafka_ListConsumerGroupOffsets_new(groups[next].c_str(), wanted.get());
            // The opaque carries the group's index back with the result.
            auto opts = admin_options(admin, RD_KAFKA_ADMIN_OP_LISTCONSUMERGROUPOFFSETS, timeout,
                                      reinterpret_cast<void*>(next + 1));
            rd_kafka_ListConsumerGroupOffsets(admin, &req, 1, opts.get(), q.get());
            rd_kafka_ListConsumerGroupOffsets_destroy(req);
            ++next;
            ++in_flight;
        }
        Event ev = next_event(q.get(), deadline + std::chrono::seconds(5), "OffsetFetch");
        --in_flight;
        ++done;
        auto index = reinterpret_cast<std::size_t>(rd_kafka_event_opaque(ev.get())) - 1;
        if (index >= groups.size()) throw std::runtime_error("OffsetFetch: result without its group");
        std::string& out = verdict[index];
        if (rd_kafka_event_error(ev.get())) {
            out = rd_kafka_err2name(rd_kafka_event_error(ev.get()));
            continue;
        }
        size_t n = 0;
        const rd_kafka_group_result_t** results = rd_kafka_ListConsumerGroupOffsets_result_groups(
            rd_kafka_event_ListConsumerGroupOffsets_result(ev.get()), &n);
        if (n != 1) {
            out = fmt::format("{} group results", n);
            continue;
        }
        if (const rd_kafka_error_t* e = rd_kafka_group_result_error(results[0])) {
            out = rd_kafka_error_name(e);
            continue;
        }
        const rd_kafka_topic_partition_list_t* parts = rd_kafka_group_result_partitions(results[0]);
        out.clear();
        int matched = 0;
        for (int k = 0; parts && k < parts->cnt && out.empty(); ++k) {
            const auto& e = parts->elems[k];
            if (e.err)
                out = rd_kafka_err2name(e.err);
            else if (e.offset != expected(index, e.partition))
                out = fmt::format("{}[{}]={} want {}", e.topic, e.partition, e.offset, expected(index, e.partition));
            else
                ++matched;
        }
        if (out.empty() && matched != partitions) out = fmt::format("{} of {} partitions", matched, partitions);
    }
    return verdict;
}

int offsets_partition_for(const std::string& group, int offsets_partitions) {
    std::uint32_t h = 0;  // Java's String.hashCode, ASCII names only
    for (unsigned char c : group) h = 31 * h + c;
    auto s = static_cast<std::int32_t>(h);
    std::int32_t abs = s == INT32_MIN ? 0 : (s < 0 ? -s : s);
    return abs % offsets_partitions;
}

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

}  // namespace weir::bench
