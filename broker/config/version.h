#pragma once

#include <string_view>

namespace weir {

inline constexpr std::string_view kWeirVersion = "0.1.0";

}  // namespace weir
