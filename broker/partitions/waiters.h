#pragma once
// The bookkeeping behind a partition's parked requests (Kafka's delayed
// produce and fetch purgatories, per partition): acks=all writes waiting for
// the high watermark to reach their offset, and fetches waiting for anything
// to change. Callbacks only: the coroutines that wait own their timers, so
// nothing here outlives them. Single-threaded, like the partition.
#include <cstdint>
#include <functional>
#include <map>

#include "protocol/errors.h"

namespace weir::partitions {

class HighWatermarkWaiters {
public:
    using Id = std::uint64_t;
    using Completion = std::function<void(ErrorCode)>;

    // `complete` runs once: with none when the high watermark reaches
    // `required_offset`, else with the error fail_all() is given.
    Id add(std::int64_t required_offset, Completion complete);
    // A waiter that gave up (its deadline passed); unknown ids are ignored.
    void remove(Id id);
    void complete_up_to(std::int64_t high_watermark);
    void fail_all(ErrorCode error);
    [[nodiscard]] std::size_t size() const { return waiters_.size(); }

private:
    struct Waiter {
        std::int64_t required_offset;
        Completion complete;
    };
    std::map<Id, Waiter> waiters_;
    Id next_id_ = 1;
};

class ChangeListeners {
public:
    using Id = std::uint64_t;

    Id add(std::function<void()> listener);
    void remove(Id id);
    // Calls every listener registered when it starts; a listener may remove
    // itself or others.
    void notify();
    [[nodiscard]] std::size_t size() const { return listeners_.size(); }

private:
    std::map<Id, std::function<void()>> listeners_;
    Id next_id_ = 1;
};

}  // namespace weir::partitions
