#include "harness/admin.h"

#include <stdexcept>

#include "cli/rdkafka/handles.h"

namespace weir::compat {
namespace {

using rdkafka::Event;
using rdkafka::Queue;
using Options = rdkafka::AdminOptions;

Options make_options(rd_kafka_t* rk, rd_kafka_admin_op_t op, std::chrono::milliseconds timeout, bool validate_only) {
    Options o(rd_kafka_AdminOptions_new(rk, op));
    char err[256];
    const int t = static_cast<int>(timeout.count());
    rd_kafka_AdminOptions_set_request_timeout(o.get(), t, err, sizeof err);
    if (op != RD_KAFKA_ADMIN_OP_DESCRIBECONFIGS) {
        rd_kafka_AdminOptions_set_operation_timeout(o.get(), t, err, sizeof err);
    }
    if (validate_only) {
        if (rd_kafka_AdminOptions_set_validate_only(o.get(), 1, err, sizeof err) != RD_KAFKA_RESP_ERR_NO_ERROR) {
            throw std::runtime_error(std::string("set_validate_only: ") + err);
        }
    }
    return o;
}

// Waits (bounded) for the admin result event of the operation just started on `q`.
Event wait_event(rd_kafka_queue_t* q, std::chrono::milliseconds timeout) {
    Event ev(rd_kafka_queue_poll(q, static_cast<int>(timeout.count()) + 2000));
    if (!ev) throw std::runtime_error("admin request: no result within the timeout");
    return ev;
}

AdminResult event_error(rd_kafka_event_t* ev) {
    AdminResult r;
    r.err = rd_kafka_event_error(ev);
    if (r.err) r.message = rd_kafka_event_error_string(ev) ? rd_kafka_event_error_string(ev) : "";
    return r;
}

AdminResult topic_result(const rd_kafka_topic_result_t* const* results, std::size_t n, const std::string& name) {
    for (std::size_t i = 0; i < n; ++i) {
        if (name == rd_kafka_topic_result_name(results[i])) {
            AdminResult r;
            r.err = rd_kafka_topic_result_error(results[i]);
            const char* msg = rd_kafka_topic_result_error_string(results[i]);
            r.message = msg ? msg : "";
            return r;
        }
    }
    throw std::runtime_error("admin result has no entry for topic " + name);
}

DescribeConfigsResult describe(rd_kafka_t* rk, rd_kafka_ResourceType_t type, const std::string& name,
                               std::chrono::milliseconds timeout) {
    Queue q(rd_kafka_queue_new(rk));
    auto opts = make_options(rk, RD_KAFKA_ADMIN_OP_DESCRIBECONFIGS, timeout, false);
    rd_kafka_ConfigResource_t* res = rd_kafka_ConfigResource_new(type, name.c_str());
    rd_kafka_DescribeConfigs(rk, &res, 1, opts.get(), q.get());
    rd_kafka_ConfigResource_destroy(res);
    auto ev = wait_event(q.get(), timeout);
    DescribeConfigsResult out;
    out.result = event_error(ev.get());
    if (out.result.err) return out;
    const auto* result = rd_kafka_event_DescribeConfigs_result(ev.get());
    if (!result) throw std::runtime_error("unexpected admin event type");
    std::size_t n = 0;
    const auto* const* resources = rd_kafka_DescribeConfigs_result_resources(result, &n);
    if (n != 1) throw std::runtime_error("DescribeConfigs: expected one resource, got " + std::to_string(n));
    out.result.err = rd_kafka_ConfigResource_error(resources[0]);
    if (const char* s = rd_kafka_ConfigResource_error_string(resources[0])) out.result.message = s;
    std::size_t cn = 0;
    const auto* const* entries = rd_kafka_ConfigResource_configs(resources[0], &cn);
    for (std::size_t i = 0; i < cn; ++i) {
        ConfigEntry e;
        const char* v = rd_kafka_ConfigEntry_value(entries[i]);
        e.is_null = v == nullptr;
        e.value = v ? v : "";
        e.is_default = rd_kafka_ConfigEntry_is_default(entries[i]);
        e.read_only = rd_kafka_ConfigEntry_is_read_only(entries[i]);
        e.sensitive = rd_kafka_ConfigEntry_is_sensitive(entries[i]);
        e.source = rd_kafka_ConfigEntry_source(entries[i]);
        out.entries[rd_kafka_ConfigEntry_name(entries[i])] = e;
    }
    return out;
}

}  // namespace

std::string AdminResult::describe() const {
    return std::string(rd_kafka_err2name(err)) + (message.empty() ? "" : ": " + message);
}

Admin::Admin(const std::string& bootstrap, const ConfigMap& extra) {
    auto conf = make_conf(bootstrap, extra);
    std::string err;
    handle_.reset(RdKafka::Producer::create(conf.get(), err));
    if (!handle_) throw std::runtime_error("admin client: " + err);
}

AdminResult Admin::create_topic(const std::string& name, int partitions, int replication_factor,
                                const std::map<std::string, std::string>& configs, bool validate_only) {
    rd_kafka_t* rk = handle_->c_ptr();
    char err[512];
    rd_kafka_NewTopic_t* nt = rd_kafka_NewTopic_new(name.c_str(), partitions, replication_factor, err, sizeof err);
    if (!nt) throw std::runtime_error(std::string("NewTopic_new: ") + err);
    for (const auto& [k, v] : configs) rd_kafka_NewTopic_set_config(nt, k.c_str(), v.c_str());
    Queue q(rd_kafka_queue_new(rk));
    auto opts = make_options(rk, RD_KAFKA_ADMIN_OP_CREATETOPICS, timeout, validate_only);
    rd_kafka_CreateTopics(rk, &nt, 1, opts.get(), q.get());
    rd_kafka_NewTopic_destroy(nt);
    auto ev = wait_event(q.get(), timeout);
    if (auto e = event_error(ev.get()); e.err) return e;
    const auto* result = rd_kafka_event_CreateTopics_result(ev.get());
    if (!result) throw std::runtime_error("unexpected admin event type");
    std::size_t n = 0;
    const auto* const* topics = rd_kafka_CreateTopics_result_topics(result, &n);
    return topic_result(topics, n, name);
}

AdminResult Admin::delete_topic(const std::string& name) {
    rd_kafka_t* rk = handle_->c_ptr();
    rd_kafka_DeleteTopic_t* dt = rd_kafka_DeleteTopic_new(name.c_str());
    Queue q(rd_kafka_queue_new(rk));
    auto opts = make_options(rk, RD_KAFKA_ADMIN_OP_DELETETOPICS, timeout, false);
    rd_kafka_DeleteTopics(rk, &dt, 1, opts.get(), q.get());
    rd_kafka_DeleteTopic_destroy(dt);
    auto ev = wait_event(q.get(), timeout);
    if (auto e = event_error(ev.get()); e.err) return e;
    const auto* result = rd_kafka_event_DeleteTopics_result(ev.get());
    if (!result) throw std::runtime_error("unexpected admin event type");
    std::size_t n = 0;
    const auto* const* topics = rd_kafka_DeleteTopics_result_topics(result, &n);
    return topic_result(topics, n, name);
}

AdminResult Admin::create_partitions(const std::string& name, int total_count, bool validate_only) {
    rd_kafka_t* rk = handle_->c_ptr();
    char err[512];
    rd_kafka_NewPartitions_t* np = rd_kafka_NewPartitions_new(name.c_str(), total_count, err, sizeof err);
    if (!np) throw std::runtime_error(std::string("NewPartitions_new: ") + err);
    Queue q(rd_kafka_queue_new(rk));
    auto opts = make_options(rk, RD_KAFKA_ADMIN_OP_CREATEPARTITIONS, timeout, validate_only);
    rd_kafka_CreatePartitions(rk, &np, 1, opts.get(), q.get());
    rd_kafka_NewPartitions_destroy(np);
    auto ev = wait_event(q.get(), timeout);
    if (auto e = event_error(ev.get()); e.err) return e;
    const auto* result = rd_kafka_event_CreatePartitions_result(ev.get());
    if (!result) throw std::runtime_error("unexpected admin event type");
    std::size_t n = 0;
    const auto* const* topics = rd_kafka_CreatePartitions_result_topics(result, &n);
    return topic_result(topics, n, name);
}

DescribeConfigsResult Admin::describe_topic_configs(const std::string& name) {
    return describe(handle_->c_ptr(), RD_KAFKA_RESOURCE_TOPIC, name, timeout);
}

DescribeConfigsResult Admin::describe_broker_configs(int broker_id) {
    return describe(handle_->c_ptr(), RD_KAFKA_RESOURCE_BROKER, std::to_string(broker_id), timeout);
}

AdminResult Admin::alter_configs(rd_kafka_ResourceType_t type, const std::string& name,
                                 const std::map<std::string, std::string>& configs, bool validate_only) {
    rd_kafka_t* rk = handle_->c_ptr();
    rd_kafka_ConfigResource_t* res = rd_kafka_ConfigResource_new(type, name.c_str());
    if (!res) throw std::runtime_error("librdkafka cannot name resource '" + name + "' (an empty name is refused)");
    for (const auto& [k, v] : configs) rd_kafka_ConfigResource_set_config(res, k.c_str(), v.c_str());
    Queue q(rd_kafka_queue_new(rk));
    auto opts = make_options(rk, RD_KAFKA_ADMIN_OP_ALTERCONFIGS, timeout, validate_only);
    rd_kafka_AlterConfigs(rk, &res, 1, opts.get(), q.get());
    rd_kafka_ConfigResource_destroy(res);
    auto ev = wait_event(q.get(), timeout);
    if (auto e = event_error(ev.get()); e.err) return e;
    const auto* result = rd_kafka_event_AlterConfigs_result(ev.get());
    if (!result) throw std::runtime_error("unexpected admin event type");
    std::size_t n = 0;
    const auto* const* resources = rd_kafka_AlterConfigs_result_resources(result, &n);
    if (n != 1) throw std::runtime_error("AlterConfigs: expected one resource, got " + std::to_string(n));
    AdminResult r;
    r.err = rd_kafka_ConfigResource_error(resources[0]);
    if (const char* s = rd_kafka_ConfigResource_error_string(resources[0])) r.message = s;
    return r;
}

}  // namespace weir::compat
