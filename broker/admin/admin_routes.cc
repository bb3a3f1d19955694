#include "broker/admin/admin_routes.h"

#include <charconv>

#include "broker/admin/cluster_views.h"
#include "broker/admin/console_page.h"
#include "broker/admin/fault_views.h"
#include "broker/admin/group_views.h"
#include "broker/admin/health_views.h"
#include "broker/admin/metrics_view.h"
#include "broker/admin/prometheus_writer.h"
#include "broker/admin/topic_views.h"

namespace weir::admin {

namespace {

using Task = boost::asio::awaitable<HttpResponse>;

HttpResponse group_error(const GroupState& g) {
    switch (g.error) {
        case ErrorCode::none:
            return error_response(404, "group " + g.group_id + " not found");
        case ErrorCode::coordinator_load_in_progress:
        case ErrorCode::coordinator_not_available:
            return error_response(503, std::string(error_name(g.error)) + ": try again");
        case ErrorCode::not_coordinator:
            return error_response(404, "group " + g.group_id + " is coordinated by another broker");
        default:
            return error_response(500, std::string(error_name(g.error)));
    }
}

HttpResponse faults_off() { return error_response(404, "fault injection is off (weir.admin.faults.enable=false)"); }

// leader_change acts at once through the metadata store and is recorded as a
// fault that already fired, so it shows in the list and the console.
Task change_leader(const AdminContext* c, faults::FaultSpec spec) {
    TopicPartition tp{*spec.topic, *spec.partition};
    auto moving = c->broker.metadata.move_leader(tp, spec.leader);
    metadata::Status moved = co_await std::move(moving);
    if (!moved.ok())
        co_return error_response(moved.error == ErrorCode::unknown_topic_or_partition ? 404 : 409, moved.message);
    if (auto t = c->broker.metadata.topic(tp.topic);
        t && tp.partition < static_cast<std::int32_t>(t->partitions.size()))
        spec.leader = t->partitions[static_cast<std::size_t>(tp.partition)].leader;
    c->faults->add(std::move(spec));
    co_return json_response(201, fault_json(c->faults->faults().back()));
}

void add_fault_routes(Router& r, const AdminContext* c) {
    r.add("GET", "/v1/faults", [c](const HttpRequest&, const PathParams&) -> Task {
        if (!c->faults) co_return faults_off();
        co_return json_response(200, faults_json(*c->faults));
    });
    r.add("POST", "/v1/faults", [c](const HttpRequest& request, const PathParams&) -> Task {
        if (!c->faults) co_return faults_off();
        auto parsed = parse_fault(request.body);
        if (auto* message = std::get_if<std::string>(&parsed)) co_return error_response(400, *message);
        auto& spec = std::get<faults::FaultSpec>(parsed);
        if (spec.action == faults::FaultAction::leader_change) {
            auto changed = change_leader(c, std::move(spec));
            co_return co_await std::move(changed);
        }
        const auto id = c->faults->add(std::move(spec));
        for (const auto& f : c->faults->faults())
            if (f.id == id) co_return json_response(201, fault_json(f));
        co_return error_response(500, "fault vanished");
    });
    r.add("DELETE", "/v1/faults", [c](const HttpRequest&, const PathParams&) -> Task {
        if (!c->faults) co_return faults_off();
        c->faults->clear();
        co_return text_response(204, "");
    });
    r.add("DELETE", "/v1/faults/{id}", [c](const HttpRequest&, const PathParams& params) -> Task {
        if (!c->faults) co_return faults_off();
        std::uint64_t id = 0;
        const auto& text = params.at(0);
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
        if (ec != std::errc() || end != text.data() + text.size() || !c->faults->remove(id))
            co_return error_response(404, "no fault " + text);
        co_return text_response(204, "");
    });
}

}  // namespace

Router make_router(const AdminContext& context) {
    Router r;
    const AdminContext* c = &context;
    r.add("GET", "/", [](const HttpRequest&, const PathParams&) -> Task {
        HttpResponse page;
        page.content_type = "text/html; charset=utf-8";
        page.body = std::string(console_page());
        co_return page;
    });
    r.add("GET", "/healthz", [c](const HttpRequest&, const PathParams&) -> Task { co_return healthz(*c); });
    r.add("GET", "/readyz", [c](const HttpRequest&, const PathParams&) -> Task { co_return readyz(*c); });
    r.add("GET", "/metrics", [c](const HttpRequest&, const PathParams&) -> Task {
        auto rendered = render_metrics(*c);
        HttpResponse response;
        response.content_type = std::string(kPrometheusContentType);
        response.body = co_await std::move(rendered);
        co_return response;
    });
    r.add("GET", "/v1/cluster",
          [c](const HttpRequest&, const PathParams&) -> Task { co_return json_response(200, cluster_json(*c)); });
    r.add("GET", "/v1/brokers",
          [c](const HttpRequest&, const PathParams&) -> Task { co_return json_response(200, brokers_json(*c)); });
    r.add("GET", "/v1/topics",
          [c](const HttpRequest&, const PathParams&) -> Task { co_return json_response(200, topics_json(*c)); });
    r.add("GET", "/v1/topics/{name}", [c](const HttpRequest&, const PathParams& params) -> Task {
        auto topic = topic_json(*c, params.at(0));
        if (!topic) co_return error_response(404, "topic " + params.at(0) + " not found");
        co_return json_response(200, *topic);
    });
    r.add("GET", "/v1/groups", [c](const HttpRequest&, const PathParams&) -> Task {
        if (!c->broker.group_service) co_return error_response(503, "no group coordinator");
        auto listed = list_groups(*c);
        auto groups = co_await std::move(listed);
        co_return json_response(200, groups_json(groups));
    });
    r.add("GET", "/v1/groups/{id}", [c](const HttpRequest&, const PathParams& params) -> Task {
        if (!c->broker.group_service) co_return error_response(503, "no group coordinator");
        auto described = describe_group(*c, params.at(0));
        auto group = co_await std::move(described);
        if (!group.exists()) co_return group_error(group);
        co_return json_response(200, group_json(group));
    });
    add_fault_routes(r, c);
    return r;
}

}  // namespace weir::admin
