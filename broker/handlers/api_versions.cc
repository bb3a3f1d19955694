#include <regex>

#include "broker/handlers/handlers.h"
#include "protocol/errors.h"

namespace weir::handlers {

bool serves(msg::ApiKey key) {
    return msg::visit_api(key, [](auto request_type, auto) {
        using Request = typename decltype(request_type)::type;
        return Handles<Request>;
    });
}

std::int16_t max_served_version(const msg::ApiInfo& api) {
    return api.latest_version_unstable ? static_cast<std::int16_t>(api.max_version - 1) : api.max_version;
}

namespace {

msg::ApiVersionsResponse::ApiVersion entry(const msg::ApiInfo& api) {
    msg::ApiVersionsResponse::ApiVersion v;
    v.api_key = static_cast<std::int16_t>(api.key);
    v.min_version = api.min_version;
    v.max_version = max_served_version(api);
    return v;
}

// KIP-511: software name and version must look like "[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?".
bool valid_software_field(const std::string& s) {
    static const std::regex pattern("[a-zA-Z0-9](?:[a-zA-Z0-9\\-.]*[a-zA-Z0-9])?");
    return std::regex_match(s, pattern);
}

}  // namespace

msg::ApiVersionsResponse unsupported_api_versions_response() {
    msg::ApiVersionsResponse r;
    r.error_code = static_cast<std::int16_t>(ErrorCode::unsupported_version);
    r.api_keys.push_back(entry(*msg::find_api(static_cast<std::int16_t>(msg::ApiKey::ApiVersions))));
    return r;
}

Task<msg::ApiVersionsResponse> handle(BrokerContext&, const RequestContext& ctx, msg::ApiVersionsRequest request) {
    msg::ApiVersionsResponse r;
    if (ctx.version() >= 3 && (!valid_software_field(request.client_software_name) ||
                               !valid_software_field(request.client_software_version))) {
        r.error_code = static_cast<std::int16_t>(ErrorCode::invalid_request);
        co_return r;
    }
    for (const auto& api : msg::kApis)
        if (serves(api.key)) r.api_keys.push_back(entry(api));
    // No feature is finalized; a ZooKeeper-mode Kafka says so with epoch 0
    // (its /feature node's first version), not -1.
    r.finalized_features_epoch = 0;
    co_return r;
}

}  // namespace weir::handlers
