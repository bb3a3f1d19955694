#pragma once
// An HTTP request and response as the admin endpoints see them: plain values,
// so routing and every view are tested without sockets (http_listener.cc
// converts to and from Boost.Beast's messages).
#include <boost/json/value.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace weir::admin {

struct HttpRequest {
    std::string method;  // "GET", "POST", ...
    std::string target;  // path and query, as sent: "/v1/topics/t?x=1"
    std::string body;
};

struct HttpResponse {
    unsigned status = 200;
    std::string content_type = "text/plain; charset=utf-8";
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers;  // beyond Content-Type and Content-Length
};

HttpResponse text_response(unsigned status, std::string body);
HttpResponse json_response(unsigned status, const boost::json::value& body);
// {"error": {"status": 404, "message": "..."}}: every failure of the JSON API
// (and of routing) has this shape.
HttpResponse error_response(unsigned status, std::string_view message);

}  // namespace weir::admin
