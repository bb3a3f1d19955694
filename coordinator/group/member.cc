#include "coordinator/group/member.h"

namespace weir::coordinator {

const wire::Bytes* Member::metadata(std::string_view protocol) const {
    for (const auto& p : protocols)
        if (p.name == protocol) return &p.metadata;
    return nullptr;
}

std::string Member::vote(const std::set<std::string>& candidates) const {
    for (const auto& p : protocols)
        if (candidates.contains(p.name)) return p.name;
    // Unreachable while every member supports every candidate.
    return candidates.empty() ? std::string() : *candidates.begin();
}

}  // namespace weir::coordinator
