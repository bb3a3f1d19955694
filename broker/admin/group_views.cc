#include "broker/admin/group_views.h"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

namespace weir::admin {

namespace json = boost::json;

namespace {

json::value optional_json(const std::optional<std::int64_t>& v) { return v ? json::value(*v) : json::value(nullptr); }

}  // namespace

json::value groups_json(const std::vector<GroupListing>& groups) {
    json::array out;
    for (const auto& g : groups)
        out.push_back(json::object{{"group_id", g.group_id}, {"state", g.state}, {"protocol_type", g.protocol_type}});
    return out;
}

json::value group_json(const GroupState& group) {
    json::array members;
    for (const auto& m : group.members) {
        json::array assignment;
        for (const auto& tp : m.assignment)
            assignment.push_back(json::object{{"topic", tp.topic}, {"partition", tp.partition}});
        json::object member;
        member["member_id"] = m.member_id;
        member["group_instance_id"] = m.instance_id ? json::value(*m.instance_id) : json::value(nullptr);
        member["client_id"] = m.client_id;
        member["client_host"] = m.client_host;
        member["assignment"] = std::move(assignment);
        members.push_back(std::move(member));
    }
    json::array offsets;
    std::int64_t total_lag = 0;
    for (const auto& c : group.offsets) {
        json::object o;
        o["topic"] = c.tp.topic;
        o["partition"] = c.tp.partition;
        o["committed_offset"] = c.offset;
        o["high_watermark"] = optional_json(c.high_watermark);
        o["lag"] = optional_json(c.lag());
        total_lag += c.lag().value_or(0);
        offsets.push_back(std::move(o));
    }
    json::object out;
    out["group_id"] = group.group_id;
    out["state"] = group.state;
    out["protocol_type"] = group.protocol_type;
    out["protocol"] = group.protocol;
    out["members"] = std::move(members);
    out["offsets"] = std::move(offsets);
    out["total_lag"] = total_lag;
    return out;
}

}  // namespace weir::admin
