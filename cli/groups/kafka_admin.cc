#include "cli/groups/kafka_admin.h"

#include <fmt/format.h>

#include <algorithm>

#include "cli/rdkafka/handles.h"

namespace weir::cli {

namespace {

// librdkafka answers within the request timeout; the margin only guards against a wedged client.
constexpr std::chrono::milliseconds kPollMargin{5'000};

using rdkafka::Conf;
using rdkafka::Event;
using rdkafka::Metadata;
using rdkafka::PartitionList;
using rdkafka::Queue;
using Options = rdkafka::AdminOptions;

void silent_log(const rd_kafka_t*, int, const char*, const char*) {}

int timeout_ms(std::chrono::milliseconds t) { return static_cast<int>(t.count()); }

std::string str_or_empty(const char* s) { return s != nullptr ? std::string(s) : std::string(); }

// Thrown by run_admin when the client stopped answering: its handle must not be destroyed
// (rd_kafka_destroy would wait for the stuck request forever).
class WedgedError : public AdminError {
public:
    using AdminError::AdminError;
};

PartitionList to_list(const std::vector<TopicPartition>& tps) {
    PartitionList list(rd_kafka_topic_partition_list_new(static_cast<int>(std::max<std::size_t>(tps.size(), 1))));
    for (const auto& tp : tps) rd_kafka_topic_partition_list_add(list.get(), tp.topic.c_str(), tp.partition);
    return list;
}

// Starts one Admin API call and waits, bounded, for its result event.
template <typename Start>
Event run_admin(rd_kafka_t* rk, rd_kafka_admin_op_t op, std::chrono::milliseconds timeout, std::string_view what,
                Start&& start) {
    Queue queue(rd_kafka_queue_new(rk));
    Options options(rd_kafka_AdminOptions_new(rk, op));
    char errstr[512];
    if (rd_kafka_AdminOptions_set_request_timeout(options.get(), timeout_ms(timeout), errstr, sizeof errstr) !=
        RD_KAFKA_RESP_ERR_NO_ERROR)
        throw AdminError(fmt::format("{}: {}", what, errstr));
    start(options.get(), queue.get());
    Event event(rd_kafka_queue_poll(queue.get(), timeout_ms(timeout + kPollMargin)));
    if (!event) throw WedgedError(fmt::format("{}: no answer within {} ms", what, (timeout + kPollMargin).count()));
    if (rd_kafka_event_error(event.get()) != RD_KAFKA_RESP_ERR_NO_ERROR)
        throw AdminError(fmt::format("{}: {}", what, rd_kafka_event_error_string(event.get())));
    return event;
}

const rd_kafka_group_result_t* single_group(const rd_kafka_group_result_t** groups, std::size_t count,
                                            std::string_view what) {
    if (count != 1) throw AdminError(fmt::format("{}: expected one group in the answer, got {}", what, count));
    if (const rd_kafka_error_t* e = rd_kafka_group_result_error(groups[0]))
        throw AdminError(fmt::format("{}: {}", what, rd_kafka_error_string(e)));
    return groups[0];
}

}  // namespace

void KafkaAdmin::HandleDeleter::operator()(rd_kafka_s* rk) const { rd_kafka_destroy(rk); }

KafkaAdmin::KafkaAdmin(AdminConfig config) : config_(std::move(config)), rk_(make_handle()) {}

KafkaAdmin::~KafkaAdmin() = default;

rd_kafka_s* KafkaAdmin::client() const {
    if (!rk_) throw AdminError("the Kafka client stopped answering earlier; giving up");
    return rk_.get();
}

KafkaAdmin::Handle KafkaAdmin::make_handle() const {
    Conf conf(rd_kafka_conf_new());
    char errstr[512];
    auto set = [&](const std::string& key, const std::string& value) {
        if (rd_kafka_conf_set(conf.get(), key.c_str(), value.c_str(), errstr, sizeof errstr) != RD_KAFKA_CONF_OK)
            throw AdminError(fmt::format("client property {}={}: {}", key, value, errstr));
    };
    set("bootstrap.servers", config_.bootstrap);
    set("client.id", "weir-groups");
    // A consumer-type handle never auto-creates topics through its metadata requests.
    set("allow.auto.create.topics", "false");
    for (const auto& [key, value] : config_.properties) set(key, value);
    if (!config_.verbose) rd_kafka_conf_set_log_cb(conf.get(), silent_log);
    rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf.get(), errstr, sizeof errstr);
    if (rk == nullptr) throw AdminError(fmt::format("cannot create the Kafka client: {}", errstr));
    (void)conf.release();  // rd_kafka_new took ownership
    return Handle(rk);
}

ListGroupsResult KafkaAdmin::list_groups() {
    ListGroupsResult out;
    try {
        Event ev = run_admin(
            client(), RD_KAFKA_ADMIN_OP_LISTCONSUMERGROUPS, config_.timeout, "list groups",
            [&](rd_kafka_AdminOptions_t* o, rd_kafka_queue_t* q) { rd_kafka_ListConsumerGroups(client(), o, q); });
        const auto* result = rd_kafka_event_ListConsumerGroups_result(ev.get());
        std::size_t n = 0;
        const rd_kafka_ConsumerGroupListing_t** valid = rd_kafka_ListConsumerGroups_result_valid(result, &n);
        for (std::size_t i = 0; i < n; ++i) {
            out.groups.push_back({str_or_empty(rd_kafka_ConsumerGroupListing_group_id(valid[i])),
                                  rd_kafka_consumer_group_state_name(rd_kafka_ConsumerGroupListing_state(valid[i])),
                                  rd_kafka_ConsumerGroupListing_is_simple_consumer_group(valid[i]) != 0});
        }
        std::size_t ne = 0;
        const rd_kafka_error_t** errors = rd_kafka_ListConsumerGroups_result_errors(result, &ne);
        for (std::size_t i = 0; i < ne; ++i) out.errors.emplace_back(rd_kafka_error_string(errors[i]));
    } catch (const WedgedError&) {
        (void)rk_.release();
        throw;
    }
    std::sort(out.groups.begin(), out.groups.end(),
              [](const GroupListing& a, const GroupListing& b) { return a.group_id < b.group_id; });
    return out;
}

std::optional<GroupDescription> KafkaAdmin::describe_group(const std::string& group) {
    // librdkafka 2.0.2 leaves a client unusable (and rd_kafka_destroy hanging) after DescribeGroups
    // fails with "unsupported"; a throwaway handle keeps that away from the other calls.
    Handle rk = make_handle();
    std::optional<GroupDescription> out;
    try {
        const char* groups[] = {group.c_str()};
        Event ev = run_admin(rk.get(), RD_KAFKA_ADMIN_OP_DESCRIBECONSUMERGROUPS, config_.timeout, "describe group",
                             [&](rd_kafka_AdminOptions_t* o, rd_kafka_queue_t* q) {
                                 rd_kafka_DescribeConsumerGroups(rk.get(), groups, 1, o, q);
                             });
        std::size_t n = 0;
        const rd_kafka_ConsumerGroupDescription_t** descs =
            rd_kafka_DescribeConsumerGroups_result_groups(rd_kafka_event_DescribeConsumerGroups_result(ev.get()), &n);
        if (n != 1) throw AdminError(fmt::format("describe group: expected one group in the answer, got {}", n));
        const auto* d = descs[0];
        if (const rd_kafka_error_t* e = rd_kafka_ConsumerGroupDescription_error(d)) {
            switch (rd_kafka_error_code(e)) {
                case RD_KAFKA_RESP_ERR__UNSUPPORTED_FEATURE:
                    (void)rk.release();
                    return std::nullopt;
                case RD_KAFKA_RESP_ERR_GROUP_ID_NOT_FOUND:
                    return GroupDescription{group, "Dead", {}, {}, {}};
                default:
                    throw AdminError(fmt::format("describe group: {}", rd_kafka_error_string(e)));
            }
        }
        GroupDescription g;
        g.group_id = str_or_empty(rd_kafka_ConsumerGroupDescription_group_id(d));
        g.state = rd_kafka_consumer_group_state_name(rd_kafka_ConsumerGroupDescription_state(d));
        g.assignor = str_or_empty(rd_kafka_ConsumerGroupDescription_partition_assignor(d));
        if (const rd_kafka_Node_t* node = rd_kafka_ConsumerGroupDescription_coordinator(d)) {
            g.coordinator = fmt::format("{}:{} ({})", str_or_empty(rd_kafka_Node_host(node)), rd_kafka_Node_port(node),
                                        rd_kafka_Node_id(node));
        }
        const std::size_t members = rd_kafka_ConsumerGroupDescription_member_count(d);
        for (std::size_t i = 0; i < members; ++i) {
            const rd_kafka_MemberDescription_t* m = rd_kafka_ConsumerGroupDescription_member(d, i);
            MemberInfo info{str_or_empty(rd_kafka_MemberDescription_consumer_id(m)),
                            str_or_empty(rd_kafka_MemberDescription_client_id(m)),
                            str_or_empty(rd_kafka_MemberDescription_host(m)),
                            {}};
            const rd_kafka_MemberAssignment_t* a = rd_kafka_MemberDescription_assignment(m);
            const rd_kafka_topic_partition_list_t* parts =
                a != nullptr ? rd_kafka_MemberAssignment_partitions(a) : nullptr;
            for (int j = 0; parts != nullptr && j < parts->cnt; ++j)
                info.assignment.push_back({parts->elems[j].topic, parts->elems[j].partition});
            std::sort(info.assignment.begin(), info.assignment.end());
            g.members.push_back(std::move(info));
        }
        out = std::move(g);
    } catch (const WedgedError&) {
        (void)rk.release();
        throw;
    }
    return out;
}

std::map<TopicPartition, std::int64_t> KafkaAdmin::committed_offsets(const std::string& group,
                                                                     const std::vector<TopicPartition>& partitions) {
    std::map<TopicPartition, std::int64_t> out;
    try {
        PartitionList list = partitions.empty() ? nullptr : to_list(partitions);
        Event ev = run_admin(client(), RD_KAFKA_ADMIN_OP_LISTCONSUMERGROUPOFFSETS, config_.timeout,
                             "fetch committed offsets", [&](rd_kafka_AdminOptions_t* o, rd_kafka_queue_t* q) {
                                 rd_kafka_ListConsumerGroupOffsets_t* req =
                                     rd_kafka_ListConsumerGroupOffsets_new(group.c_str(), list.get());
                                 rd_kafka_ListConsumerGroupOffsets(client(), &req, 1, o, q);
                                 rd_kafka_ListConsumerGroupOffsets_destroy(req);
                             });
        std::size_t n = 0;
        const rd_kafka_group_result_t** groups = rd_kafka_ListConsumerGroupOffsets_result_groups(
            rd_kafka_event_ListConsumerGroupOffsets_result(ev.get()), &n);
        const rd_kafka_topic_partition_list_t* parts =
            rd_kafka_group_result_partitions(single_group(groups, n, "fetch committed offsets"));
        for (int i = 0; parts != nullptr && i < parts->cnt; ++i) {
            const auto& e = parts->elems[i];
            if (e.err != RD_KAFKA_RESP_ERR_NO_ERROR)
                throw AdminError(
                    fmt::format("fetch committed offsets: {}-{}: {}", e.topic, e.partition, rd_kafka_err2str(e.err)));
            out[{e.topic, e.partition}] = e.offset < 0 ? -1 : e.offset;
        }
    } catch (const WedgedError&) {
        (void)rk_.release();
        throw;
    }
    return out;
}

std::vector<PartitionError> KafkaAdmin::alter_offsets(const std::string& group,
                                                      const std::map<TopicPartition, std::int64_t>& offsets) {
    std::vector<PartitionError> out;
    try {
        PartitionList list(
            rd_kafka_topic_partition_list_new(static_cast<int>(std::max<std::size_t>(offsets.size(), 1))));
        for (const auto& [tp, offset] : offsets)
            rd_kafka_topic_partition_list_add(list.get(), tp.topic.c_str(), tp.partition)->offset = offset;
        Event ev = run_admin(client(), RD_KAFKA_ADMIN_OP_ALTERCONSUMERGROUPOFFSETS, config_.timeout, "commit offsets",
                             [&](rd_kafka_AdminOptions_t* o, rd_kafka_queue_t* q) {
                                 rd_kafka_AlterConsumerGroupOffsets_t* req =
                                     rd_kafka_AlterConsumerGroupOffsets_new(group.c_str(), list.get());
                                 rd_kafka_AlterConsumerGroupOffsets(client(), &req, 1, o, q);
                                 rd_kafka_AlterConsumerGroupOffsets_destroy(req);
                             });
        std::size_t n = 0;
        const rd_kafka_group_result_t** groups = rd_kafka_AlterConsumerGroupOffsets_result_groups(
            rd_kafka_event_AlterConsumerGroupOffsets_result(ev.get()), &n);
        const rd_kafka_topic_partition_list_t* parts =
            rd_kafka_group_result_partitions(single_group(groups, n, "commit offsets"));
        for (int i = 0; parts != nullptr && i < parts->cnt; ++i) {
            const auto& e = parts->elems[i];
            if (e.err != RD_KAFKA_RESP_ERR_NO_ERROR) out.push_back({{e.topic, e.partition}, rd_kafka_err2str(e.err)});
        }
    } catch (const WedgedError&) {
        (void)rk_.release();
        throw;
    }
    return out;
}

void KafkaAdmin::delete_group(const std::string& group) {
    // Own handle for the same reason as describe_group.
    Handle rk = make_handle();
    try {
        const std::string what = fmt::format("Deletion of consumer group '{}' failed", group);
        Event ev = run_admin(rk.get(), RD_KAFKA_ADMIN_OP_DELETEGROUPS, config_.timeout, what,
                             [&](rd_kafka_AdminOptions_t* o, rd_kafka_queue_t* q) {
                                 rd_kafka_DeleteGroup_t* req = rd_kafka_DeleteGroup_new(group.c_str());
                                 rd_kafka_DeleteGroups(rk.get(), &req, 1, o, q);
                                 rd_kafka_DeleteGroup_destroy(req);
                             });
        std::size_t n = 0;
        const rd_kafka_group_result_t** groups =
            rd_kafka_DeleteGroups_result_groups(rd_kafka_event_DeleteGroups_result(ev.get()), &n);
        if (n == 1) {
            if (const rd_kafka_error_t* e = rd_kafka_group_result_error(groups[0]);
                e != nullptr && rd_kafka_error_code(e) == RD_KAFKA_RESP_ERR__UNSUPPORTED_FEATURE) {
                (void)rk.release();
                throw AdminError(what + ": the broker does not support DeleteGroups");
            }
        }
        single_group(groups, n, what);
    } catch (const WedgedError&) {
        (void)rk.release();
        throw;
    }
}

std::map<std::string, std::vector<std::int32_t>> KafkaAdmin::topic_partitions() {
    const rd_kafka_metadata_t* raw = nullptr;
    const rd_kafka_resp_err_t err = rd_kafka_metadata(client(), 1, nullptr, &raw, timeout_ms(config_.timeout));
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) throw AdminError(fmt::format("fetch metadata: {}", rd_kafka_err2str(err)));
    Metadata md(raw);
    std::map<std::string, std::vector<std::int32_t>> out;
    for (int i = 0; i < md->topic_cnt; ++i) {
        const auto& t = md->topics[i];
        if (t.err != RD_KAFKA_RESP_ERR_NO_ERROR) continue;
        auto& parts = out[t.topic];
        for (int j = 0; j < t.partition_cnt; ++j) parts.push_back(t.partitions[j].id);
        std::sort(parts.begin(), parts.end());
    }
    return out;
}

Watermarks KafkaAdmin::watermarks(const TopicPartition& tp) {
    Watermarks w;
    const rd_kafka_resp_err_t err = rd_kafka_query_watermark_offsets(client(), tp.topic.c_str(), tp.partition, &w.low,
                                                                     &w.high, timeout_ms(config_.timeout));
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR)
        throw AdminError(fmt::format("log offsets of {}-{}: {}", tp.topic, tp.partition, rd_kafka_err2str(err)));
    return w;
}

std::map<TopicPartition, std::int64_t> KafkaAdmin::offsets_for_time(const std::vector<TopicPartition>& partitions,
                                                                    std::int64_t timestamp_ms) {
    PartitionList list = to_list(partitions);
    for (int i = 0; i < list->cnt; ++i) list->elems[i].offset = timestamp_ms;
    const rd_kafka_resp_err_t err = rd_kafka_offsets_for_times(client(), list.get(), timeout_ms(config_.timeout));
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) throw AdminError(fmt::format("offsets for time: {}", rd_kafka_err2str(err)));
    std::map<TopicPartition, std::int64_t> out;
    for (int i = 0; i < list->cnt; ++i) {
        const auto& e = list->elems[i];
        if (e.err != RD_KAFKA_RESP_ERR_NO_ERROR)
            throw AdminError(fmt::format("offsets for time: {}-{}: {}", e.topic, e.partition, rd_kafka_err2str(e.err)));
        out[{e.topic, e.partition}] = e.offset < 0 ? -1 : e.offset;
    }
    return out;
}

}  // namespace weir::cli
