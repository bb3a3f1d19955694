#pragma once
// Maps method and path to an endpoint. Patterns are literal segments and
// `{name}` segments that match one non-empty, percent-decoded segment, e.g.
// "/v1/topics/{name}". Unknown paths get 404, a known path with another
// method 405 (with Allow), a malformed path 400, and an endpoint that throws
// 500; all as JSON errors.
#include <boost/asio/awaitable.hpp>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker/admin/http_message.h"

namespace weir::admin {

// The values of a pattern's `{...}` segments, in order.
using PathParams = std::vector<std::string>;
using Endpoint = std::function<boost::asio::awaitable<HttpResponse>(const HttpRequest&, const PathParams&)>;

// "/a/b%2Fc/" -> {"a", "b/c", ""}, query dropped; nullopt when the target is
// not an origin-form path or has a bad percent escape.
std::optional<std::vector<std::string>> split_path(std::string_view target);

class Router {
public:
    void add(std::string method, std::string_view pattern, Endpoint endpoint);
    [[nodiscard]] boost::asio::awaitable<HttpResponse> route(const HttpRequest& request) const;

private:
    struct Route {
        std::string method;
        std::vector<std::string> segments;  // "{}" for a parameter
        Endpoint endpoint;
    };
    [[nodiscard]] static bool matches(const Route& route, const std::vector<std::string>& path, PathParams& params);

    std::vector<Route> routes_;
};

}  // namespace weir::admin
