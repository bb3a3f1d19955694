// FindCoordinator at every version (batched keys from v4): each key type is
// answered by its coordinator's locator.
#include "broker/handler_api/coordinator_locator.h"
#include "broker/handler_api/group_service.h"
#include "broker/handlers/handlers.h"

namespace weir::handlers {

namespace {

// Kafka's FindCoordinatorRequest.CoordinatorType.
constexpr std::int8_t kGroupKey = 0;
constexpr std::int8_t kTransactionKey = 1;

Task<CoordinatorLocation> locate(BrokerContext& b, const std::string& key, std::int8_t key_type,
                                 const std::string& listener) {
    CoordinatorLocator* locator = nullptr;
    if (key_type == kGroupKey) {
        locator = &b.groups().locator();
    } else if (key_type == kTransactionKey) {
        locator = b.transaction_locator;
        if (!locator) {
            CoordinatorLocation out;
            out.error = ErrorCode::coordinator_not_available;
            out.message = "transactions are not supported";
            co_return out;
        }
    } else {
        CoordinatorLocation out;
        out.error = ErrorCode::invalid_request;
        out.message = "unknown coordinator key type " + std::to_string(key_type);
        co_return out;
    }
    co_return co_await locator->locate(key, listener);
}

// Kafka before v4 (Errors.message()): the enum's name when there is no
// error, else the exception's message.
std::optional<std::string> message_of(const CoordinatorLocation& located) {
    if (located.error == ErrorCode::none) return "NONE";
    return located.message.empty() ? std::string(error_message(located.error)) : located.message;
}

}  // namespace

Task<msg::FindCoordinatorResponse> handle(BrokerContext& b, const RequestContext& c, msg::FindCoordinatorRequest r) {
    const auto v = c.version();
    const std::string& listener = c.connection.listener;
    msg::FindCoordinatorResponse resp;
    if (v >= 4) {
        for (const auto& key : r.coordinator_keys) {
            auto located = co_await locate(b, key, r.key_type, listener);
            auto& out = resp.coordinators.emplace_back();
            out.key = key;
            out.node_id = located.node_id;
            out.host = std::move(located.host);
            out.port = located.port;
            out.error_code = to_int(located.error);
            // Kafka's v4+ answer never sets it: the field's default, "".
            out.error_message = "";
        }
        co_return resp;
    }
    // v0 has no key type: a group.
    auto located = co_await locate(b, r.key, v >= 1 ? r.key_type : kGroupKey, listener);
    resp.error_code = to_int(located.error);
    resp.error_message = message_of(located);
    resp.node_id = located.node_id;
    resp.host = std::move(located.host);
    resp.port = located.port;
    co_return resp;
}

}  // namespace weir::handlers
