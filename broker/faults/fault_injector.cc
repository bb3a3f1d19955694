#include "broker/faults/fault_injector.h"

#include <algorithm>

namespace weir::faults {

namespace {
constexpr std::string_view kActionNames[] = {"error", "delay", "disconnect", "drop", "broker_down", "leader_change"};

bool aimed_at_requests(const Fault& f) {
    return f.spec.action != FaultAction::broker_down && f.spec.action != FaultAction::leader_change && !f.exhausted();
}
}  // namespace

std::string_view action_name(FaultAction a) { return kActionNames[static_cast<std::size_t>(a)]; }

std::optional<FaultAction> action_from_name(std::string_view name) {
    for (std::size_t i = 0; i < std::size(kActionNames); ++i)
        if (kActionNames[i] == name) return static_cast<FaultAction>(i);
    return std::nullopt;
}

std::uint64_t FaultInjector::add(FaultSpec spec, Clock::time_point now) {
    Fault f{next_id_++, std::move(spec), 0};
    if (f.spec.action == FaultAction::broker_down) {
        f.fired = 1;  // it acts at once
        if (f.spec.duration) f.until = now + *f.spec.duration;
    }
    if (f.spec.action == FaultAction::leader_change) {
        f.fired = 1;  // done before it is recorded
        f.ended = true;
    }
    if (aimed_at_requests(f)) ++armed_;
    faults_.push_back(std::move(f));
    const auto id = faults_.back().id;
    changed();
    return id;
}

bool FaultInjector::remove(std::uint64_t id) {
    auto it = std::find_if(faults_.begin(), faults_.end(), [id](const Fault& f) { return f.id == id; });
    if (it == faults_.end()) return false;
    if (aimed_at_requests(*it)) --armed_;
    faults_.erase(it);
    changed();
    return true;
}

void FaultInjector::clear() {
    faults_.clear();
    armed_ = 0;
    changed();
}

bool FaultInjector::broker_down(Clock::time_point now) {
    bool down = false;
    for (auto& f : faults_) {
        if (f.spec.action != FaultAction::broker_down || f.ended) continue;
        if (f.until && *f.until <= now) {
            f.ended = true;
            continue;
        }
        down = true;
    }
    return down;
}

std::optional<FaultInjector::Clock::time_point> FaultInjector::next_broker_up() const {
    std::optional<Clock::time_point> next;
    for (const auto& f : faults_)
        if (f.spec.action == FaultAction::broker_down && !f.ended && f.until && (!next || *f.until < *next))
            next = f.until;
    return next;
}

}  // namespace weir::faults
