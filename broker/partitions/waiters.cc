#include "broker/partitions/waiters.h"

#include <vector>

namespace weir::partitions {

HighWatermarkWaiters::Id HighWatermarkWaiters::add(std::int64_t required_offset, Completion complete) {
    auto id = next_id_++;
    waiters_.emplace(id, Waiter{required_offset, std::move(complete)});
    return id;
}

void HighWatermarkWaiters::remove(Id id) { waiters_.erase(id); }

void HighWatermarkWaiters::complete_up_to(std::int64_t high_watermark) {
    // Taken out before completing: a completion may add or remove waiters.
    std::vector<Completion> done;
    for (auto it = waiters_.begin(); it != waiters_.end();) {
        if (it->second.required_offset <= high_watermark) {
            done.push_back(std::move(it->second.complete));
            it = waiters_.erase(it);
        } else {
            ++it;
        }
    }
    for (auto& complete : done) complete(ErrorCode::none);
}

void HighWatermarkWaiters::fail_all(ErrorCode error) {
    auto failed = std::move(waiters_);
    waiters_.clear();
    for (auto& [id, waiter] : failed) waiter.complete(error);
}

ChangeListeners::Id ChangeListeners::add(std::function<void()> listener) {
    auto id = next_id_++;
    listeners_.emplace(id, std::move(listener));
    return id;
}

void ChangeListeners::remove(Id id) { listeners_.erase(id); }

void ChangeListeners::notify() {
    std::vector<Id> ids;
    ids.reserve(listeners_.size());
    for (const auto& [id, listener] : listeners_) ids.push_back(id);
    for (auto id : ids) {
        auto it = listeners_.find(id);
        if (it == listeners_.end()) continue;
        auto listener = it->second;  // a copy: the listener may remove itself
        listener();
    }
}

}  // namespace weir::partitions
