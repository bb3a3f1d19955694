// ACL APIs. Weir has no authorizer (every listener is PLAINTEXT without
// authentication), so it answers as Kafka does without one: SECURITY_DISABLED.
#include "broker/handlers/handlers.h"

namespace weir::handlers {

namespace {
constexpr auto kSecurityDisabled = static_cast<std::int16_t>(ErrorCode::security_disabled);
constexpr const char* kNoAuthorizer = "No Authorizer is configured on the broker";
}  // namespace

Task<msg::DescribeAclsResponse> handle(BrokerContext&, const RequestContext&, msg::DescribeAclsRequest) {
    msg::DescribeAclsResponse r;
    r.error_code = kSecurityDisabled;
    r.error_message = kNoAuthorizer;
    co_return r;
}

Task<msg::CreateAclsResponse> handle(BrokerContext&, const RequestContext&, msg::CreateAclsRequest request) {
    msg::CreateAclsResponse r;
    for (std::size_t i = 0; i < request.creations.size(); ++i) {
        auto& result = r.results.emplace_back();
        result.error_code = kSecurityDisabled;
        result.error_message = kNoAuthorizer;
    }
    co_return r;
}

Task<msg::DeleteAclsResponse> handle(BrokerContext&, const RequestContext&, msg::DeleteAclsRequest request) {
    msg::DeleteAclsResponse r;
    for (std::size_t i = 0; i < request.filters.size(); ++i) {
        auto& result = r.filter_results.emplace_back();
        result.error_code = kSecurityDisabled;
        result.error_message = kNoAuthorizer;
    }
    co_return r;
}

}  // namespace weir::handlers
