#include "broker/admin/fault_views.h"

#include <algorithm>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "broker/handlers/handlers.h"
#include "messages/api_table.h"

namespace weir::admin {

namespace json = boost::json;

namespace {

std::optional<std::int16_t> api_key_of(const json::value& v) {
    const msg::ApiInfo* api = nullptr;
    if (v.is_string()) {
        for (const auto& a : msg::kApis)
            if (a.name == std::string_view(v.as_string())) api = &a;
    } else if (v.is_int64()) {
        if (v.as_int64() >= 0 && v.as_int64() <= INT16_MAX)
            api = msg::find_api(static_cast<std::int16_t>(v.as_int64()));
    }
    if (!api || !handlers::serves(api->key)) return std::nullopt;
    return static_cast<std::int16_t>(api->key);
}

std::optional<ErrorCode> error_of(const json::value& v) {
    if (v.is_string()) return error_from_name(std::string_view(v.as_string()));
    if (v.is_int64() && v.as_int64() >= kMinErrorCode && v.as_int64() <= kMaxErrorCode)
        return static_cast<ErrorCode>(v.as_int64());
    return std::nullopt;
}

}  // namespace

std::variant<faults::FaultSpec, std::string> parse_fault(std::string_view body) {
    boost::system::error_code ec;
    auto parsed = json::parse(body, ec);
    if (ec) return "malformed JSON: " + ec.message();
    if (!parsed.is_object()) return std::string("expected a JSON object");
    const auto& o = parsed.as_object();
    for (const auto& [key, value] : o) {
        static constexpr std::string_view known[] = {"api",   "topic",    "partition", "client_id",   "action",
                                                     "error", "delay_ms", "count",     "duration_ms", "leader"};
        if (std::find(std::begin(known), std::end(known), std::string_view(key)) == std::end(known))
            return "unknown field " + std::string(key);
    }
    faults::FaultSpec spec;
    const auto* action = o.if_contains("action");
    if (!action || !action->is_string())
        return std::string("action is required: error, delay, disconnect, drop, broker_down or leader_change");
    auto a = faults::action_from_name(std::string_view(action->as_string()));
    if (!a) return std::string("action must be error, delay, disconnect, drop, broker_down or leader_change");
    spec.action = *a;
    if (spec.action == faults::FaultAction::broker_down) {
        // The listeners go down as a whole: nothing to aim at.
        for (std::string_view aimed : {"api", "topic", "partition", "client_id", "count"})
            if (o.contains(aimed)) return "broker_down takes no " + std::string(aimed) + " (only duration_ms)";
    } else if (o.contains("duration_ms")) {
        return std::string("duration_ms is only for action broker_down");
    }
    if (spec.action == faults::FaultAction::leader_change) {
        for (std::string_view aimed : {"api", "client_id", "count"})
            if (o.contains(aimed)) return "leader_change takes no " + std::string(aimed);
        if (!o.contains("topic") || !o.contains("partition"))
            return std::string("leader_change needs a topic and a partition");
        if (const auto* l = o.if_contains("leader")) {
            if (!l->is_int64() || l->as_int64() < 0 || l->as_int64() > INT32_MAX)
                return std::string("leader must be a broker id");
            spec.leader = static_cast<std::int32_t>(l->as_int64());
        }
    } else if (o.contains("leader")) {
        return std::string("leader is only for action leader_change");
    }
    if (const auto* api = o.if_contains("api")) {
        auto key = api_key_of(*api);
        if (!key) return "api " + json::serialize(*api) + " is not a Kafka API this broker serves";
        spec.api_key = *key;
    }
    if (const auto* t = o.if_contains("topic")) {
        if (!t->is_string() || t->as_string().empty()) return std::string("topic must be a non-empty string");
        spec.topic = std::string(t->as_string());
    }
    if (const auto* p = o.if_contains("partition")) {
        if (!spec.topic) return std::string("partition needs a topic");
        if (!p->is_int64() || p->as_int64() < 0 || p->as_int64() > INT32_MAX)
            return std::string("partition must be a non-negative integer");
        spec.partition = static_cast<std::int32_t>(p->as_int64());
    }
    if (const auto* c = o.if_contains("client_id")) {
        if (!c->is_string()) return std::string("client_id must be a string");
        spec.client_id = std::string(c->as_string());
    }
    if (spec.action == faults::FaultAction::error) {
        const auto* e = o.if_contains("error");
        auto code = e ? error_of(*e) : std::nullopt;
        if (!code || *code == ErrorCode::none)
            return std::string("action error needs an error: a Kafka error name or code");
        spec.error = *code;
    } else if (o.contains("error")) {
        return std::string("error is only for action error");
    }
    if (spec.action == faults::FaultAction::delay) {
        const auto* d = o.if_contains("delay_ms");
        if (!d || !d->is_int64() || d->as_int64() < 0 || d->as_int64() > 3'600'000)
            return std::string("action delay needs delay_ms between 0 and 3600000");
        spec.delay = std::chrono::milliseconds(d->as_int64());
    } else if (o.contains("delay_ms")) {
        return std::string("delay_ms is only for action delay");
    }
    if (const auto* d = o.if_contains("duration_ms")) {
        if (!d->is_int64() || d->as_int64() < 1 || d->as_int64() > 86'400'000)
            return std::string("duration_ms must be between 1 and 86400000");
        spec.duration = std::chrono::milliseconds(d->as_int64());
    }
    if (const auto* c = o.if_contains("count")) {
        if (!c->is_int64() || c->as_int64() < 1) return std::string("count must be a positive integer");
        spec.count = static_cast<std::uint64_t>(c->as_int64());
    }
    return spec;
}

json::value fault_json(const faults::Fault& f) {
    json::object out;
    out["id"] = f.id;
    out["api"] =
        f.spec.api_key ? json::value(msg::api_name(static_cast<msg::ApiKey>(*f.spec.api_key))) : json::value(nullptr);
    out["topic"] = f.spec.topic ? json::value(*f.spec.topic) : json::value(nullptr);
    out["partition"] = f.spec.partition ? json::value(*f.spec.partition) : json::value(nullptr);
    out["client_id"] = f.spec.client_id ? json::value(*f.spec.client_id) : json::value(nullptr);
    out["action"] = faults::action_name(f.spec.action);
    if (f.spec.action == faults::FaultAction::error) out["error"] = error_name(f.spec.error);
    if (f.spec.action == faults::FaultAction::delay) out["delay_ms"] = f.spec.delay.count();
    if (f.spec.action == faults::FaultAction::leader_change)
        out["leader"] = f.spec.leader ? json::value(*f.spec.leader) : json::value(nullptr);
    if (f.spec.action == faults::FaultAction::broker_down)
        out["duration_ms"] = f.spec.duration ? json::value(f.spec.duration->count()) : json::value(nullptr);
    out["count"] = f.spec.count ? json::value(*f.spec.count) : json::value(nullptr);
    out["fired"] = f.fired;
    out["active"] = !f.exhausted();
    return out;
}

json::value faults_json(const faults::FaultInjector& faults) {
    json::array out;
    for (const auto& f : faults.faults()) out.push_back(fault_json(f));
    return out;
}

}  // namespace weir::admin
