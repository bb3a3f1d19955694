#pragma once
// GET /: the web console, one self-contained page (no CDN, no build step)
// that reads the JSON API and refreshes itself.
#include <string_view>

namespace weir::admin {

std::string_view console_page();

}  // namespace weir::admin
