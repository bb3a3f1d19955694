#include "cli/topics/kafka_topic_admin.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

#include "cli/topics/kafka_error_messages.h"

namespace weir::cli::topics {

namespace {

// librdkafka answers within the request timeout; the margin only guards against a wedged client.
constexpr std::chrono::milliseconds kPollMargin{5'000};

void silent_log(const rd_kafka_t*, int, const char*, const char*) {}

int timeout_ms(std::chrono::milliseconds t) { return static_cast<int>(t.count()); }

// Thrown when the client stopped answering: its handle must not be destroyed
// (rd_kafka_destroy would wait for the stuck request forever).
class WedgedError : public AdminError {
public:
    using AdminError::AdminError;
};

// A broker's per-topic error. librdkafka puts its own wording ("Broker: ...") where the broker
// sent no message; Kafka's Java client puts the error's default message there, and so do we.
[[noreturn]] void throw_broker_error(rd_kafka_resp_err_t err, const char* text) {
    std::string message = text != nullptr ? text : "";
    if (message.empty() || message == rd_kafka_err2str(err)) {
        if (auto java = java_error_message(err)) {
            message = *java;
        } else if (message.empty()) {
            message = rd_kafka_err2str(err);
        }
    }
    throw AdminError(err, message);
}

std::vector<std::int32_t> ids(const std::int32_t* values, int count) {
    return values != nullptr ? std::vector<std::int32_t>(values, values + count) : std::vector<std::int32_t>{};
}

rdkafka::Conf make_conf(const AdminConfig& config) {
    rdkafka::Conf conf(rd_kafka_conf_new());
    char errstr[512];
    auto set = [&](const std::string& key, const std::string& value) {
        if (rd_kafka_conf_set(conf.get(), key.c_str(), value.c_str(), errstr, sizeof errstr) != RD_KAFKA_CONF_OK)
            throw AdminError(RD_KAFKA_RESP_ERR__INVALID_ARG,
                             fmt::format("client property {}={}: {}", key, value, errstr));
    };
    set("client.id", "weir-topics");
    // A consumer-type handle never auto-creates topics through its metadata requests.
    set("allow.auto.create.topics", "false");
    for (const auto& [key, value] : config.properties) set(key, value);
    set("bootstrap.servers", config.bootstrap);  // --bootstrap-server wins over the file, as in Kafka
    rd_kafka_conf_set_log_cb(conf.get(), silent_log);
    return conf;
}

}  // namespace

KafkaTopicAdmin::KafkaTopicAdmin(AdminConfig config) : config_(std::move(config)) {
    rdkafka::Conf conf = make_conf(config_);
    char errstr[512];
    rk_.reset(rd_kafka_new(RD_KAFKA_CONSUMER, conf.get(), errstr, sizeof errstr));
    if (!rk_) throw AdminError(RD_KAFKA_RESP_ERR__FAIL, fmt::format("cannot create the Kafka client: {}", errstr));
    (void)conf.release();  // rd_kafka_new took ownership
}

KafkaTopicAdmin::~KafkaTopicAdmin() = default;

rd_kafka_t* KafkaTopicAdmin::client() const {
    if (!rk_) throw AdminError(RD_KAFKA_RESP_ERR__FAIL, "the Kafka client stopped answering earlier; giving up");
    return rk_.get();
}

rdkafka::Metadata KafkaTopicAdmin::metadata(const char* what) {
    const rd_kafka_metadata_t* raw = nullptr;
    const rd_kafka_resp_err_t err = rd_kafka_metadata(client(), 1, nullptr, &raw, timeout_ms(config_.timeout));
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) throw AdminError(err, fmt::format("{}: {}", what, rd_kafka_err2str(err)));
    return rdkafka::Metadata(raw);
}

// Starts one Admin API call and waits, bounded, for its result event. `operation`: the broker
// may wait for the change to complete (CreateTopics and the like), within half the bound.
template <typename Start>
rdkafka::Event KafkaTopicAdmin::run_admin(rd_kafka_admin_op_t op, const char* what, bool operation, Start&& start) {
    try {
        rdkafka::Queue queue(rd_kafka_queue_new(client()));
        rdkafka::AdminOptions options(rd_kafka_AdminOptions_new(client(), op));
        char errstr[512];
        if (rd_kafka_AdminOptions_set_request_timeout(options.get(), timeout_ms(config_.timeout), errstr,
                                                      sizeof errstr) != RD_KAFKA_RESP_ERR_NO_ERROR ||
            (operation &&
             rd_kafka_AdminOptions_set_operation_timeout(options.get(), timeout_ms(config_.timeout / 2), errstr,
                                                         sizeof errstr) != RD_KAFKA_RESP_ERR_NO_ERROR))
            throw AdminError(RD_KAFKA_RESP_ERR__INVALID_ARG, fmt::format("{}: {}", what, errstr));
        start(options.get(), queue.get());
        rdkafka::Event event(rd_kafka_queue_poll(queue.get(), timeout_ms(config_.timeout + kPollMargin)));
        if (!event)
            throw WedgedError(RD_KAFKA_RESP_ERR__TIMED_OUT,
                              fmt::format("{}: no answer within {} ms", what, (config_.timeout + kPollMargin).count()));
        if (const rd_kafka_resp_err_t err = rd_kafka_event_error(event.get()); err != RD_KAFKA_RESP_ERR_NO_ERROR)
            throw AdminError(err, fmt::format("{}: {}", what, rd_kafka_event_error_string(event.get())));
        return event;
    } catch (const WedgedError&) {
        (void)rk_.release();
        throw;
    }
}

std::vector<std::string> KafkaTopicAdmin::list_topics() {
    const rdkafka::Metadata md = metadata("list topics");
    std::vector<std::string> out;
    for (int i = 0; i < md->topic_cnt; ++i)
        if (md->topics[i].err == RD_KAFKA_RESP_ERR_NO_ERROR) out.emplace_back(md->topics[i].topic);
    return out;
}

std::vector<TopicDescription> KafkaTopicAdmin::describe_topics(const std::vector<std::string>& topics) {
    const rdkafka::Metadata md = metadata("describe topics");
    std::vector<TopicDescription> out;
    for (const auto& name : topics) {
        const rd_kafka_metadata_topic_t* t =
            std::find_if(md->topics, md->topics + md->topic_cnt, [&](const auto& mt) { return name == mt.topic; });
        if (t == md->topics + md->topic_cnt) throw_broker_error(RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART, nullptr);
        if (t->err != RD_KAFKA_RESP_ERR_NO_ERROR) throw_broker_error(t->err, nullptr);
        TopicDescription d;
        d.name = name;
        for (int j = 0; j < t->partition_cnt; ++j) {
            const auto& p = t->partitions[j];
            d.partitions.push_back({p.id, p.leader, ids(p.replicas, p.replica_cnt), ids(p.isrs, p.isr_cnt)});
        }
        std::sort(d.partitions.begin(), d.partitions.end(),
                  [](const PartitionInfo& a, const PartitionInfo& b) { return a.partition < b.partition; });
        out.push_back(std::move(d));
    }
    return out;
}

std::map<std::string, std::vector<ConfigEntry>> KafkaTopicAdmin::describe_configs(
    const std::vector<std::string>& topics) {
    std::map<std::string, std::vector<ConfigEntry>> out;
    if (topics.empty()) return out;
    std::vector<rdkafka::ConfigResource> owned;
    std::vector<rd_kafka_ConfigResource_t*> resources;
    for (const auto& t : topics) {
        owned.emplace_back(rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_TOPIC, t.c_str()));
        resources.push_back(owned.back().get());
    }
    const rdkafka::Event ev =
        run_admin(RD_KAFKA_ADMIN_OP_DESCRIBECONFIGS, "describe configs", false,
                  [&](rd_kafka_AdminOptions_t* o, rd_kafka_queue_t* q) {
                      rd_kafka_DescribeConfigs(client(), resources.data(), resources.size(), o, q);
                  });
    std::size_t n = 0;
    const rd_kafka_ConfigResource_t** results =
        rd_kafka_DescribeConfigs_result_resources(rd_kafka_event_DescribeConfigs_result(ev.get()), &n);
    for (std::size_t i = 0; i < n; ++i) {
        const rd_kafka_ConfigResource_t* r = results[i];
        if (const rd_kafka_resp_err_t err = rd_kafka_ConfigResource_error(r); err != RD_KAFKA_RESP_ERR_NO_ERROR)
            throw_broker_error(err, rd_kafka_ConfigResource_error_string(r));
        auto& entries = out[rd_kafka_ConfigResource_name(r)];
        std::size_t count = 0;
        const rd_kafka_ConfigEntry_t** configs = rd_kafka_ConfigResource_configs(r, &count);
        const auto text = [](const char* v) { return v != nullptr ? std::optional<std::string>(v) : std::nullopt; };
        for (std::size_t j = 0; j < count; ++j) {
            const rd_kafka_ConfigEntry_t* c = configs[j];
            ConfigEntry e{rd_kafka_ConfigEntry_name(c), text(rd_kafka_ConfigEntry_value(c)),
                          rd_kafka_ConfigEntry_is_default(c) != 0};
            e.source = rd_kafka_ConfigSource_name(rd_kafka_ConfigEntry_source(c));
            e.sensitive = rd_kafka_ConfigEntry_is_sensitive(c) != 0;
            std::size_t synonym_count = 0;
            const rd_kafka_ConfigEntry_t** synonyms = rd_kafka_ConfigEntry_synonyms(c, &synonym_count);
            for (std::size_t k = 0; k < synonym_count; ++k)
                e.synonyms.push_back({rd_kafka_ConfigEntry_name(synonyms[k]),
                                      text(rd_kafka_ConfigEntry_value(synonyms[k])),
                                      rd_kafka_ConfigSource_name(rd_kafka_ConfigEntry_source(synonyms[k]))});
            entries.push_back(std::move(e));
        }
    }
    return out;
}

void KafkaTopicAdmin::alter_topic_configs(const std::string& topic,
                                          const std::vector<std::pair<std::string, std::string>>& configs) {
    rdkafka::ConfigResource resource(rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_TOPIC, topic.c_str()));
    for (const auto& [name, value] : configs)
        if (const rd_kafka_resp_err_t err =
                rd_kafka_ConfigResource_set_config(resource.get(), name.c_str(), value.c_str());
            err != RD_KAFKA_RESP_ERR_NO_ERROR)
            throw AdminError(err, rd_kafka_err2str(err));
    rd_kafka_ConfigResource_t* resources[] = {resource.get()};
    const rdkafka::Event ev = run_admin(
        RD_KAFKA_ADMIN_OP_ALTERCONFIGS, "alter configs", false,
        [&](rd_kafka_AdminOptions_t* o, rd_kafka_queue_t* q) { rd_kafka_AlterConfigs(client(), resources, 1, o, q); });
    std::size_t n = 0;
    const rd_kafka_ConfigResource_t** results =
        rd_kafka_AlterConfigs_result_resources(rd_kafka_event_AlterConfigs_result(ev.get()), &n);
    for (std::size_t i = 0; i < n; ++i)
        if (const rd_kafka_resp_err_t err = rd_kafka_ConfigResource_error(results[i]);
            err != RD_KAFKA_RESP_ERR_NO_ERROR)
            throw_broker_error(err, rd_kafka_ConfigResource_error_string(results[i]));
}

std::vector<std::int32_t> KafkaTopicAdmin::live_brokers() {
    const rdkafka::Metadata md = metadata("describe cluster");
    std::vector<std::int32_t> out;
    for (int i = 0; i < md->broker_cnt; ++i) out.push_back(md->brokers[i].id);
    return out;
}

void KafkaTopicAdmin::create_topic(const NewTopic& topic) {
    char errstr[512];
    const bool assigned = !topic.assignment.empty();
    rdkafka::NewTopic nt(rd_kafka_NewTopic_new(topic.name.c_str(),
                                               assigned ? static_cast<int>(topic.assignment.size()) : topic.partitions,
                                               assigned ? -1 : topic.replication_factor, errstr, sizeof errstr));
    if (!nt) throw AdminError(RD_KAFKA_RESP_ERR__INVALID_ARG, errstr);
    for (std::size_t p = 0; p < topic.assignment.size(); ++p) {
        std::vector<std::int32_t> brokers = topic.assignment[p];
        if (rd_kafka_NewTopic_set_replica_assignment(nt.get(), static_cast<std::int32_t>(p), brokers.data(),
                                                     brokers.size(), errstr,
                                                     sizeof errstr) != RD_KAFKA_RESP_ERR_NO_ERROR)
            throw AdminError(RD_KAFKA_RESP_ERR__INVALID_ARG, errstr);
    }
    for (const auto& [key, value] : topic.configs) {
        if (rd_kafka_NewTopic_set_config(nt.get(), key.c_str(), value.c_str()) != RD_KAFKA_RESP_ERR_NO_ERROR)
            throw AdminError(RD_KAFKA_RESP_ERR__INVALID_ARG, fmt::format("config {}={} refused", key, value));
    }
    const rdkafka::Event ev = run_admin(RD_KAFKA_ADMIN_OP_CREATETOPICS, "create topic", true,
                                        [&](rd_kafka_AdminOptions_t* o, rd_kafka_queue_t* q) {
                                            rd_kafka_NewTopic_t* topics[] = {nt.get()};
                                            rd_kafka_CreateTopics(client(), topics, 1, o, q);
                                        });
    std::size_t n = 0;
    const rd_kafka_topic_result_t** results =
        rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(ev.get()), &n);
    for (std::size_t i = 0; i < n; ++i)
        if (const rd_kafka_resp_err_t err = rd_kafka_topic_result_error(results[i]); err != RD_KAFKA_RESP_ERR_NO_ERROR)
            throw_broker_error(err, rd_kafka_topic_result_error_string(results[i]));
}

void KafkaTopicAdmin::create_partitions(const std::vector<NewPartitions>& increases) {
    if (increases.empty()) return;
    char errstr[512];
    std::vector<rdkafka::NewPartitions> owned;
    std::vector<rd_kafka_NewPartitions_t*> requests;
    for (const auto& inc : increases) {
        if (inc.total < 1)  // librdkafka takes the count as size_t; Kafka's broker refuses it the same way
            throw_broker_error(RD_KAFKA_RESP_ERR_INVALID_PARTITIONS, nullptr);
        owned.emplace_back(
            rd_kafka_NewPartitions_new(inc.topic.c_str(), static_cast<std::size_t>(inc.total), errstr, sizeof errstr));
        if (!owned.back()) throw AdminError(RD_KAFKA_RESP_ERR__INVALID_ARG, errstr);
        for (std::size_t p = 0; p < inc.assignment.size(); ++p) {
            std::vector<std::int32_t> brokers = inc.assignment[p];
            if (rd_kafka_NewPartitions_set_replica_assignment(owned.back().get(), static_cast<std::int32_t>(p),
                                                              brokers.data(), brokers.size(), errstr,
                                                              sizeof errstr) != RD_KAFKA_RESP_ERR_NO_ERROR)
                throw AdminError(RD_KAFKA_RESP_ERR__INVALID_ARG, errstr);
        }
        requests.push_back(owned.back().get());
    }
    const rdkafka::Event ev = run_admin(RD_KAFKA_ADMIN_OP_CREATEPARTITIONS, "create partitions", true,
                                        [&](rd_kafka_AdminOptions_t* o, rd_kafka_queue_t* q) {
                                            rd_kafka_CreatePartitions(client(), requests.data(), requests.size(), o, q);
                                        });
    std::size_t n = 0;
    const rd_kafka_topic_result_t** results =
        rd_kafka_CreatePartitions_result_topics(rd_kafka_event_CreatePartitions_result(ev.get()), &n);
    for (std::size_t i = 0; i < n; ++i)
        if (const rd_kafka_resp_err_t err = rd_kafka_topic_result_error(results[i]); err != RD_KAFKA_RESP_ERR_NO_ERROR)
            throw_broker_error(err, rd_kafka_topic_result_error_string(results[i]));
}

void KafkaTopicAdmin::delete_topics(const std::vector<std::string>& topics) {
    if (topics.empty()) return;
    std::vector<rdkafka::DeleteTopic> owned;
    std::vector<rd_kafka_DeleteTopic_t*> requests;
    for (const auto& t : topics) {
        owned.emplace_back(rd_kafka_DeleteTopic_new(t.c_str()));
        requests.push_back(owned.back().get());
    }
    const rdkafka::Event ev = run_admin(RD_KAFKA_ADMIN_OP_DELETETOPICS, "delete topics", true,
                                        [&](rd_kafka_AdminOptions_t* o, rd_kafka_queue_t* q) {
                                            rd_kafka_DeleteTopics(client(), requests.data(), requests.size(), o, q);
                                        });
    std::size_t n = 0;
    const rd_kafka_topic_result_t** results =
        rd_kafka_DeleteTopics_result_topics(rd_kafka_event_DeleteTopics_result(ev.get()), &n);
    for (std::size_t i = 0; i < n; ++i)
        if (const rd_kafka_resp_err_t err = rd_kafka_topic_result_error(results[i]); err != RD_KAFKA_RESP_ERR_NO_ERROR)
            throw_broker_error(err, rd_kafka_topic_result_error_string(results[i]));
}

std::vector<std::string> unknown_client_properties(const config::ConfigMap& properties) {
    rdkafka::Conf conf(rd_kafka_conf_new());
    std::vector<std::string> out;
    char errstr[512];
    for (const auto& [key, value] : properties)
        if (rd_kafka_conf_set(conf.get(), key.c_str(), value.c_str(), errstr, sizeof errstr) == RD_KAFKA_CONF_UNKNOWN)
            out.push_back(key);
    return out;
}

}  // namespace weir::cli::topics
