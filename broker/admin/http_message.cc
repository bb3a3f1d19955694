#include "broker/admin/http_message.h"

#include <boost/json/serialize.hpp>

namespace weir::admin {

HttpResponse text_response(unsigned status, std::string body) {
    HttpResponse r;
    r.status = status;
    r.body = std::move(body);
    return r;
}

HttpResponse json_response(unsigned status, const boost::json::value& body) {
    HttpResponse r;
    r.status = status;
    r.content_type = "application/json";
    r.body = boost::json::serialize(body);
    r.body += '\n';
    return r;
}

HttpResponse error_response(unsigned status, std::string_view message) {
    boost::json::object error;
    error["status"] = status;
    error["message"] = message;
    return json_response(status, boost::json::object{{"error", std::move(error)}});
}

}  // namespace weir::admin
