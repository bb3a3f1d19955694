#include "broker/admin/router.h"

#include <exception>

#include "broker/common/logging.h"

namespace weir::admin {

namespace {

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

std::optional<std::string> percent_decode(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '%') {
            out += s[i];
            continue;
        }
        if (i + 2 >= s.size()) return std::nullopt;
        int hi = hex_value(s[i + 1]);
        int lo = hex_value(s[i + 2]);
        if (hi < 0 || lo < 0) return std::nullopt;
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
    }
    return out;
}

}  // namespace

std::optional<std::vector<std::string>> split_path(std::string_view target) {
    if (auto q = target.find_first_of("?#"); q != std::string_view::npos) target = target.substr(0, q);
    if (target.empty() || target.front() != '/') return std::nullopt;
    std::vector<std::string> segments;
    target.remove_prefix(1);
    while (true) {
        auto slash = target.find('/');
        auto decoded = percent_decode(target.substr(0, slash));
        if (!decoded) return std::nullopt;
        segments.push_back(std::move(*decoded));
        if (slash == std::string_view::npos) break;
        target.remove_prefix(slash + 1);
    }
    return segments;
}

void Router::add(std::string method, std::string_view pattern, Endpoint endpoint) {
    Route r{std::move(method), {}, std::move(endpoint)};
    auto segments = split_path(pattern);
    for (auto& s : segments.value()) r.segments.push_back(s.starts_with('{') ? "{}" : std::move(s));
    routes_.push_back(std::move(r));
}

bool Router::matches(const Route& route, const std::vector<std::string>& path, PathParams& params) {
    params.clear();
    if (route.segments.size() != path.size()) return false;
    for (std::size_t i = 0; i < path.size(); ++i) {
        if (route.segments[i] == "{}") {
            if (path[i].empty()) return false;
            params.push_back(path[i]);
        } else if (route.segments[i] != path[i]) {
            return false;
        }
    }
    return true;
}

boost::asio::awaitable<HttpResponse> Router::route(const HttpRequest& request) const {
    auto path = split_path(request.target);
    if (!path) co_return error_response(400, "malformed request target");
    PathParams params;
    std::string allowed;
    for (const auto& r : routes_) {
        if (!matches(r, *path, params)) continue;
        if (r.method != request.method) {
            allowed += (allowed.empty() ? "" : ", ") + r.method;
            continue;
        }
        HttpResponse response;
        std::exception_ptr failed;
        try {
            auto task = r.endpoint(request, params);
            response = co_await std::move(task);
        } catch (const std::exception& e) {
            logging::warn("admin: {} {} failed: {}", request.method, request.target, e.what());
            failed = std::current_exception();
        }
        if (failed) co_return error_response(500, "internal error");
        co_return response;
    }
    if (!allowed.empty()) {
        auto response = error_response(405, "method " + request.method + " not allowed here");
        response.headers.emplace_back("Allow", allowed);
        co_return response;
    }
    co_return error_response(404, "no such endpoint");
}

}  // namespace weir::admin
