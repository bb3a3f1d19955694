#include "broker/faults/fault_injector.h"

#include <algorithm>

namespace weir::faults {

namespace {
constexpr std::string_view kActionNames[] = {"error", "delay", "disconnect", "drop"};
}

std::string_view action_name(FaultAction a) { return kActionNames[static_cast<std::size_t>(a)]; }

std::optional<FaultAction> action_from_name(std::string_view name) {
    for (std::size_t i = 0; i < std::size(kActionNames); ++i)
        if (kActionNames[i] == name) return static_cast<FaultAction>(i);
    return std::nullopt;
}

std::uint64_t FaultInjector::add(FaultSpec spec) {
    Fault f{next_id_++, std::move(spec), 0};
    if (!f.exhausted()) ++armed_;
    faults_.push_back(std::move(f));
    return faults_.back().id;
}

bool FaultInjector::remove(std::uint64_t id) {
    auto it = std::find_if(faults_.begin(), faults_.end(), [id](const Fault& f) { return f.id == id; });
    if (it == faults_.end()) return false;
    if (!it->exhausted()) --armed_;
    faults_.erase(it);
    return true;
}

}  // namespace weir::faults
