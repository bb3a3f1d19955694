#pragma once
// How an injected fault (broker/faults) acts on one request. Topics and
// partitions are found by the member names Kafka's schemas use (topics /
// topic_data / responses; name / topic / topic_id; partitions / partition_data
// / partition_responses / partition_indexes; partition_index / index /
// partition), so every API that names partitions can be targeted.
//
// An error aimed at partitions lands on those partitions' entries of the
// answer; Produce does not append to them at all (a client's retry must not
// store a batch twice). An error aimed at the whole request is the answer's
// top-level error code when it has one (the handler does not run), else
// every error code of the answer (the handler runs, Produce appends nothing).
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "broker/faults/fault_injector.h"
#include "broker/handler_api/broker_context.h"
#include "messages/produce.h"

namespace weir::dispatch::fault {

template <typename Topic>
std::string topic_name(const Topic& t, const handlers::BrokerContext& broker) {
    if constexpr (requires {
                      t.topic_id;
                      std::string_view(t.topic);
                  }) {
        if (!t.topic.empty()) return t.topic;
        return broker.topic_name_for_id(t.topic_id).value_or("");
    } else if constexpr (requires {
                             t.topic_id;
                             t.name->size();
                         }) {
        if (t.name && !t.name->empty()) return *t.name;
        return broker.topic_name_for_id(t.topic_id).value_or("");
    } else if constexpr (requires { std::string_view(t.name); }) {
        return t.name;
    } else if constexpr (requires { std::string_view(t.topic); }) {
        return t.topic;
    } else if constexpr (requires { t.name->size(); }) {
        return t.name ? *t.name : "";
    } else {
        return "";
    }
}

template <typename P>
std::optional<std::int32_t> partition_of(const P& p) {
    if constexpr (std::is_integral_v<P>) {
        return p;
    } else if constexpr (requires { p.partition_index; }) {
        return p.partition_index;
    } else if constexpr (requires { p.index; }) {
        return p.index;
    } else if constexpr (requires { p.partition; }) {
        return p.partition;
    } else {
        return std::nullopt;
    }
}

// Calls f(partition) for every partition entry of a topic entry; false if it has no partition list.
template <typename Topic, typename F>
bool for_partitions(Topic& t, F&& f) {
    if constexpr (requires { t.partition_data.begin(); }) {
        for (auto& p : t.partition_data) f(p);
    } else if constexpr (requires { t.partition_responses.begin(); }) {
        for (auto& p : t.partition_responses) f(p);
    } else if constexpr (requires { t.partitions.begin(); }) {
        for (auto& p : t.partitions) f(p);
    } else if constexpr (requires { t.partition_indexes.begin(); }) {
        for (auto& p : t.partition_indexes) f(p);
    } else {
        return false;
    }
    return true;
}

template <typename Message, typename F>
void for_topics(Message& m, F&& f) {
    if constexpr (requires { m.topic_data.begin(); }) {
        for (auto& t : m.topic_data) f(t);
    } else if constexpr (requires { m.responses.begin(); }) {
        for (auto& t : m.responses) f(t);
    } else if constexpr (requires { m.topics.begin(); }) {
        for (auto& t : m.topics) f(t);
    } else if constexpr (requires { m.topics->begin(); }) {
        if (m.topics)
            for (auto& t : *m.topics) f(t);
    }
}

// Whether the request names `topic` (and `partition`, when given and the
// request lists partitions).
template <typename Request>
bool names_partition(const Request& request, const handlers::BrokerContext& broker, std::string_view topic,
                     std::optional<std::int32_t> partition) {
    bool hit = false;
    for_topics(request, [&](const auto& t) {
        if (hit || topic_name(t, broker) != topic) return;
        bool listed = for_partitions(t, [&](const auto& p) {
            if (!partition || partition_of(p) == partition) hit = true;
        });
        if (!listed) hit = true;
    });
    return hit;
}

// Sets `error` on the answer's entries of the fault's topic and partitions.
template <typename Response>
void set_partition_errors(Response& response, const handlers::BrokerContext& broker, const faults::FaultSpec& f) {
    const auto code = to_int(f.error);
    for_topics(response, [&](auto& t) {
        if (topic_name(t, broker) != *f.topic) return;
        if constexpr (requires { t.error_code; }) {
            if (!f.partition) t.error_code = code;
        }
        for_partitions(t, [&](auto& p) {
            if constexpr (requires { p.error_code; }) {
                if (f.partition && partition_of(p) != f.partition) return;
                p.error_code = code;
                if constexpr (requires { p.records; }) p.records.reset();
            }
        });
    });
}

// Every error code of an answer, at every level.
template <typename T>
void set_all_errors(T& node, std::int16_t code) {
    if constexpr (requires { node.error_code; }) node.error_code = code;
    if constexpr (requires { node.records.reset(); }) node.records.reset();
    if constexpr (requires { node.responses.begin(); })
        for (auto& c : node.responses) set_all_errors(c, code);
    if constexpr (requires { node.partition_responses.begin(); })
        for (auto& c : node.partition_responses) set_all_errors(c, code);
    if constexpr (requires { node.topics.begin(); })
        for (auto& c : node.topics) set_all_errors(c, code);
    if constexpr (requires { node.partitions.begin(); })
        for (auto& c : node.partitions) set_all_errors(c, code);
    if constexpr (requires { node.groups.begin(); })
        for (auto& c : node.groups) set_all_errors(c, code);
    if constexpr (requires { node.results.begin(); })
        for (auto& c : node.results) set_all_errors(c, code);
    if constexpr (requires { node.coordinators.begin(); })
        for (auto& c : node.coordinators) set_all_errors(c, code);
}

// Produce: takes the partitions the fault hits out of the request, so nothing
// is appended to them; put_back() answers them with the fault's error.
struct WithheldPartitions {
    std::vector<std::pair<std::string, std::int32_t>> partitions;

    void put_back(msg::ProduceResponse& response, ErrorCode error) const {
        for (const auto& [topic, partition] : partitions) {
            auto it = std::find_if(response.responses.begin(), response.responses.end(),
                                   [&](const auto& t) { return t.name == topic; });
            if (it == response.responses.end()) {
                response.responses.emplace_back();
                response.responses.back().name = topic;
                it = std::prev(response.responses.end());
            }
            msg::ProduceResponse::PartitionProduceResponse p;
            p.index = partition;
            p.error_code = to_int(error);
            p.base_offset = -1;
            it->partition_responses.push_back(std::move(p));
        }
    }
};

inline WithheldPartitions withhold(msg::ProduceRequest& request, const faults::FaultSpec& f) {
    WithheldPartitions out;
    for (auto& t : request.topic_data) {
        if (f.topic && t.name != *f.topic) continue;
        std::erase_if(t.partition_data, [&](const auto& p) {
            if (f.partition && p.index != *f.partition) return false;
            out.partitions.emplace_back(t.name, p.index);
            return true;
        });
    }
    std::erase_if(request.topic_data, [](const auto& t) { return t.partition_data.empty(); });
    return out;
}

}  // namespace weir::dispatch::fault
