#include "coordinator/group/types.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace weir::coordinator {

namespace {

constexpr std::array<std::pair<GroupState, std::string_view>, 5> kNames{{
    {GroupState::empty, "Empty"},
    {GroupState::preparing_rebalance, "PreparingRebalance"},
    {GroupState::completing_rebalance, "CompletingRebalance"},
    {GroupState::stable, "Stable"},
    {GroupState::dead, "Dead"},
}};

bool iequals(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

}  // namespace

std::string_view state_name(GroupState state) {
    for (const auto& [s, name] : kNames)
        if (s == state) return name;
    return "Unknown";
}

std::optional<GroupState> parse_state(std::string_view name) {
    for (const auto& [s, n] : kNames)
        if (iequals(n, name)) return s;
    return std::nullopt;
}

}  // namespace weir::coordinator
