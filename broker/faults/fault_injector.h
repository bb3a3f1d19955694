#pragma once
// Faults an operator or a test asks for over the admin API
// (weir.admin.faults.enable): which requests they hit (one API or all,
// optionally one client id, one topic and partition) and what happens to them
// (an error code in the answer, a delay, a closed connection, no answer at
// all), for a number of requests or until removed; or the broker's Kafka
// listeners going down for a while (librdkafka's mock broker down/up), or a
// record of a partition leadership moved on demand (leader_change). The
// dispatcher asks before each request and the Broker applies broker_down; no
// I/O here. Owned by the Broker, on the I/O thread.
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/errors.h"

namespace weir::faults {

enum class FaultAction : std::uint8_t { error, delay, disconnect, drop, broker_down, leader_change };

std::string_view action_name(FaultAction a);
std::optional<FaultAction> action_from_name(std::string_view name);

struct FaultSpec {
    std::optional<std::int16_t> api_key;    // nullopt: every API
    std::optional<std::string> topic;       // nullopt: the whole request
    std::optional<std::int32_t> partition;  // with topic: one partition; nullopt: all of the topic's
    std::optional<std::string> client_id;   // nullopt: every client
    FaultAction action = FaultAction::error;
    ErrorCode error = ErrorCode::none;   // action error
    std::chrono::milliseconds delay{0};  // action delay
    std::optional<std::uint64_t> count;  // requests to hit; nullopt: until removed
    // broker_down: how long the listeners stay down; nullopt: until removed.
    std::optional<std::chrono::milliseconds> duration;
    // leader_change (done by the admin API through the metadata store, kept
    // here as a record): the broker asked for, then the one that leads.
    std::optional<std::int32_t> leader;
};

struct Fault {
    std::uint64_t id = 0;
    FaultSpec spec;
    std::uint64_t fired = 0;
    std::optional<std::chrono::steady_clock::time_point> until;  // broker_down with a duration
    bool ended = false;                                          // its duration is over
    [[nodiscard]] bool exhausted() const { return ended || (spec.count && fired >= *spec.count); }
};

class FaultInjector {
public:
    using Clock = std::chrono::steady_clock;

    std::uint64_t add(FaultSpec spec, Clock::time_point now = Clock::now());
    bool remove(std::uint64_t id);
    void clear();
    // Every fault added and not removed, with how often it fired (exhausted ones included).
    [[nodiscard]] const std::vector<Fault>& faults() const { return faults_; }
    // Cheap check for the request path: a live fault aimed at requests exists.
    [[nodiscard]] bool armed() const { return armed_ > 0; }

    // The first live fault that hits a request of `api_key` from `client_id`
    // naming the given partitions (a fault without a topic hits every request
    // it otherwise matches); counts it as fired. nullopt: serve as usual.
    template <typename NamesPartition>
    std::optional<Fault> take(std::int16_t api_key, const std::optional<std::string>& client_id,
                              NamesPartition&& names_partition) {
        for (auto& f : faults_) {
            if (f.exhausted() || f.spec.action == FaultAction::broker_down) continue;
            if (f.spec.api_key && *f.spec.api_key != api_key) continue;
            if (f.spec.client_id && f.spec.client_id != client_id) continue;
            if (f.spec.topic && !names_partition(std::string_view(*f.spec.topic), f.spec.partition)) continue;
            ++f.fired;
            if (f.exhausted()) --armed_;
            return f;
        }
        return std::nullopt;
    }

    // broker_down: whether a live one exists, after ending those whose
    // duration is over at `now`; and when the next one ends.
    bool broker_down(Clock::time_point now);
    [[nodiscard]] std::optional<Clock::time_point> next_broker_up() const;

    // Called after every add, remove and clear (the Broker applies broker_down).
    void on_change(std::function<void()> observer) { observer_ = std::move(observer); }

private:
    void changed() const {
        if (observer_) observer_();
    }

    std::vector<Fault> faults_;
    std::uint64_t next_id_ = 1;
    std::size_t armed_ = 0;
    std::function<void()> observer_;
};

}  // namespace weir::faults
