#pragma once
// Faults an operator or a test asks for over the admin API
// (weir.admin.faults.enable): which requests they hit (API, optionally one
// topic and partition) and what happens to them (an error code in the
// answer, a delay, a closed connection, no answer at all), for a number of
// requests or until removed. The dispatcher asks before each request; no I/O
// here. Owned by the Broker, on the I/O thread.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/errors.h"

namespace weir::faults {

enum class FaultAction : std::uint8_t { error, delay, disconnect, drop };

std::string_view action_name(FaultAction a);
std::optional<FaultAction> action_from_name(std::string_view name);

struct FaultSpec {
    std::int16_t api_key = 0;
    std::optional<std::string> topic;       // nullopt: the whole request
    std::optional<std::int32_t> partition;  // with topic: one partition; nullopt: all of the topic's
    FaultAction action = FaultAction::error;
    ErrorCode error = ErrorCode::none;   // action error
    std::chrono::milliseconds delay{0};  // action delay
    std::optional<std::uint64_t> count;  // requests to hit; nullopt: until removed
};

struct Fault {
    std::uint64_t id = 0;
    FaultSpec spec;
    std::uint64_t fired = 0;
    [[nodiscard]] bool exhausted() const { return spec.count && fired >= *spec.count; }
};

class FaultInjector {
public:
    std::uint64_t add(FaultSpec spec);
    bool remove(std::uint64_t id);
    void clear() {
        faults_.clear();
        armed_ = 0;
    }
    // Every fault added and not removed, with how often it fired (exhausted ones included).
    [[nodiscard]] const std::vector<Fault>& faults() const { return faults_; }
    // Cheap check for the request path.
    [[nodiscard]] bool armed() const { return armed_ > 0; }

    // The first live fault of `api_key` that hits a request naming the given
    // partitions (a fault without a topic hits every request of its API);
    // counts it as fired. nullopt: serve the request as usual.
    template <typename NamesPartition>
    std::optional<Fault> take(std::int16_t api_key, NamesPartition&& names_partition) {
        for (auto& f : faults_) {
            if (f.exhausted() || f.spec.api_key != api_key) continue;
            if (f.spec.topic && !names_partition(std::string_view(*f.spec.topic), f.spec.partition)) continue;
            ++f.fired;
            if (f.exhausted()) --armed_;
            return f;
        }
        return std::nullopt;
    }

private:
    std::vector<Fault> faults_;
    std::uint64_t next_id_ = 1;
    std::size_t armed_ = 0;
};

}  // namespace weir::faults
