// DescribeConfigs, AlterConfigs, IncrementalAlterConfigs: every version.
// Topic configs and dynamic broker configs (KIP-226: this broker's own set,
// resource name = its id, and the cluster-wide defaults, resource name "")
// change through the metadata store; broker/config/dynamic_broker_config.h
// says which keys Weir acts on. BROKER_LOGGER describes and sets the level of
// the "root" logger.
#include <algorithm>
#include <charconv>
#include <map>
#include <set>

#include "broker/common/logging.h"
#include "broker/config/config_keys.h"
#include "broker/config/describe_configs.h"
#include "broker/config/dynamic_broker_config.h"
#include "broker/config/topic_config.h"
#include "broker/handlers/handlers.h"
#include "broker/metadata/topic_name.h"
#include "protocol/errors.h"

namespace weir::handlers {

namespace {

// ConfigResource.Type ids.
constexpr std::int8_t kTopic = 2;
constexpr std::int8_t kBroker = 4;
constexpr std::int8_t kBrokerLogger = 8;
constexpr std::int8_t kClientMetrics = 16;
constexpr std::int8_t kGroup = 32;

// AlterConfigOp.OpType ids.
constexpr std::int8_t kSet = 0;
constexpr std::int8_t kDelete = 1;
constexpr std::int8_t kAppend = 2;
constexpr std::int8_t kSubtract = 3;

constexpr std::string_view kRootLogger = "root";

struct ApiError {
    ErrorCode error = ErrorCode::none;
    std::optional<std::string> message;

    [[nodiscard]] bool ok() const { return error == ErrorCode::none; }
};

ApiError fail(ErrorCode error, std::string message) { return {error, std::move(message)}; }
ApiError from_status(const metadata::Status& s) {
    if (s.ok()) return {};
    return {s.error, s.message.empty() ? std::nullopt : std::optional<std::string>(s.message)};
}

std::string type_name(std::int8_t type) {
    switch (type) {
        case kTopic:
            return "TOPIC";
        case kBroker:
            return "BROKER";
        case kBrokerLogger:
            return "BROKER_LOGGER";
        case kClientMetrics:
            return "CLIENT_METRICS";
        case kGroup:
            return "GROUP";
        default:
            return "UNKNOWN";
    }
}

bool known_type(std::int8_t type) {
    return type == kTopic || type == kBroker || type == kBrokerLogger || type == kClientMetrics || type == kGroup;
}

// Java's Integer.parseInt.
std::optional<std::int32_t> parse_int(std::string_view s) {
    if (!s.empty() && s.front() == '+') s.remove_prefix(1);
    std::int32_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
    return v;
}

// ---- loggers ---------------------------------------------------------------

std::string root_level() {
    using logging::Level;
    if (logging::enabled(Level::debug)) return "DEBUG";
    if (logging::enabled(Level::info)) return "INFO";
    if (logging::enabled(Level::warn)) return "WARN";
    return "ERROR";
}

std::optional<logging::Level> parse_level(std::string_view level) {
    using logging::Level;
    if (level == "TRACE" || level == "DEBUG") return Level::debug;
    if (level == "INFO") return Level::info;
    if (level == "WARN") return Level::warn;
    if (level == "ERROR" || level == "FATAL") return Level::error;
    return std::nullopt;
}

// ---- broker resources ------------------------------------------------------

// ConfigAdminManager.validateResourceNameIsCurrentNodeId.
ApiError check_node_id(const BrokerContext& broker, const std::string& name) {
    auto id = parse_int(name);
    if (!id) return fail(ErrorCode::invalid_request, "Node id must be an integer, but it is: " + name);
    if (*id != broker.config.broker_id)
        return fail(ErrorCode::invalid_request, "Unexpected broker id, expected " +
                                                    std::to_string(broker.config.broker_id) + ", but received " + name);
    return {};
}

// The stored dynamic set of one level, as Kafka reads it back before an
// incremental change (fromPersistentProps drops entries that no longer apply).
config::ConfigMap stored_broker_configs(const BrokerContext& broker, bool per_broker) {
    auto dynamic =
        config::applicable_dynamic_configs(broker.metadata.snapshot()->dynamic_broker_configs(broker.config.broker_id));
    return per_broker ? dynamic.broker : dynamic.cluster_default;
}

std::string loggable(const config::ConfigMap& props) {
    std::string out;
    for (const auto& [name, value] : props) {
        const auto* key = config::broker_config_key_for(name);
        const bool hidden = key == nullptr || key->sensitive();
        out += (out.empty() ? "" : ",") + name + " -> " + (hidden ? "[hidden]" : value);
    }
    return out;
}

// `props` becomes the whole dynamic set of the resource's level: validated as
// ConfigAdminManager.validateBrokerConfigChange does (every failure is
// INVALID_REQUEST there, KAFKA-13609), then stored unless validate_only.
Task<ApiError> alter_broker(BrokerContext& broker, std::string name, config::ConfigMap props, bool validate_only) {
    const bool per_broker = !name.empty();
    if (per_broker) {
        if (auto error = check_node_id(broker, name); !error.ok()) co_return error;
    }
    const auto stored = broker.metadata.snapshot()->dynamic_broker_configs(broker.config.broker_id);
    config::ConfigMap normalized;
    if (auto error = config::validate_dynamic_broker_configs(broker.config, stored, props, per_broker, &normalized))
        co_return fail(ErrorCode::invalid_request, *error);
    if (validate_only) co_return ApiError{};
    if (per_broker) {
        logging::info("Updating broker {} with new configuration : {}", broker.config.broker_id, loggable(normalized));
    } else {
        logging::info("Updating brokers with new configuration : {}", loggable(normalized));
    }
    co_return from_status(co_await broker.metadata.alter_broker_configs(
        per_broker ? std::optional<std::int32_t>(broker.config.broker_id) : std::nullopt, std::move(normalized)));
}

// ---- topic resources -------------------------------------------------------

// ZkAdminManager.alterTopicConfigs with the complete new set of overrides.
Task<ApiError> alter_topic(BrokerContext& broker, std::string name, config::ConfigMap props, bool validate_only) {
    if (name.empty()) co_return fail(ErrorCode::invalid_request, "Default topic resources are not allowed.");
    if (!(co_await broker.metadata.snapshot_showing(name))->topic(name))
        co_return fail(ErrorCode::unknown_topic_or_partition, "The topic '" + name + "' does not exist.");
    auto status = co_await broker.metadata.alter_topic_configs(name, std::move(props), validate_only);
    if (status.error == ErrorCode::invalid_config && !status.message.starts_with("Unknown topic config name"))
        status.message =
            "Invalid config value for resource ConfigResource(type=TOPIC, name='" + name + "'): " + status.message;
    co_return from_status(status);
}

std::vector<std::string> split_list(std::string_view s) {
    std::vector<std::string> out;
    while (!s.empty()) {
        auto comma = s.find(',');
        auto item = s.substr(0, comma);
        if (!item.empty()) out.emplace_back(item);
        if (comma == std::string_view::npos) break;
        s.remove_prefix(comma + 1);
    }
    return out;
}

std::string join_list(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& i : items) out += (out.empty() ? "" : ",") + i;
    return out;
}

struct Op {
    std::string name;
    std::int8_t operation = kSet;
    std::optional<std::string> value;
};

// ZkAdminManager.prepareIncrementalConfigs. `key_of` finds a key's definition
// (nullptr if unknown) for APPEND/SUBTRACT, which need a LIST key.
template <typename KeyOf>
ApiError apply_ops(config::ConfigMap& props, const std::vector<Op>& ops, KeyOf key_of,
                   std::string_view unknown_prefix) {
    for (const auto& op : ops) {
        switch (op.operation) {
            case kSet:
                props.insert_or_assign(op.name, *op.value);
                break;
            case kDelete:
                props.erase(op.name);
                break;
            case kAppend:
            case kSubtract: {
                const config::ConfigKey* key = key_of(op.name);
                if (key == nullptr) return fail(ErrorCode::invalid_config, std::string(unknown_prefix) + op.name);
                const bool append = op.operation == kAppend;
                // Kafka's ConfigAdminManager: InvalidConfigurationException.
                if (key->type != config::ConfigType::list)
                    return fail(ErrorCode::invalid_config, std::string("Config value ") +
                                                               (append ? "append" : "subtract") +
                                                               " is not allowed for config key: " + op.name);
                auto it = props.find(op.name);
                auto items =
                    split_list(it != props.end() ? std::string_view(it->second) : key->default_value.value_or(""));
                for (auto& v : split_list(*op.value)) {
                    if (append) {
                        items.push_back(std::move(v));
                    } else if (auto found = std::find(items.begin(), items.end(), v); found != items.end()) {
                        items.erase(found);
                    }
                }
                props.insert_or_assign(op.name, join_list(items));
                break;
            }
            default:
                return fail(ErrorCode::invalid_request, "Unknown operations type " + std::to_string(op.operation));
        }
    }
    return {};
}

// RuntimeLoggerManager: validate, then (unless validate_only) apply.
ApiError alter_loggers(const BrokerContext& broker, const std::string& name, const std::vector<Op>& ops,
                       bool validate_only) {
    if (auto id = parse_int(name); !id) {
        return fail(ErrorCode::invalid_request, "Node id must be an integer, but it is: " + name);
    } else if (*id != broker.config.broker_id) {
        return fail(ErrorCode::invalid_request, "Unexpected node id. Expected " +
                                                    std::to_string(broker.config.broker_id) + ", but received " + name);
    }
    for (const auto& op : ops) {
        switch (op.operation) {
            case kSet:
                if (op.name != kRootLogger)
                    return fail(ErrorCode::invalid_config, "Logger " + op.name + " does not exist!");
                if (!parse_level(*op.value))
                    return fail(ErrorCode::invalid_config,
                                "Cannot set the log level of " + op.name + " to " + *op.value +
                                    " as it is not a supported log level. Valid log levels are "
                                    "FATAL, ERROR, WARN, INFO, DEBUG, TRACE");
                break;
            case kDelete:
                if (op.name != kRootLogger)
                    return fail(ErrorCode::invalid_config, "Logger " + op.name + " does not exist!");
                return fail(ErrorCode::invalid_request, "Removing the log level of the root logger is not allowed");
            case kAppend:
            case kSubtract:
                return fail(ErrorCode::invalid_request, std::string(op.operation == kAppend ? "APPEND" : "SUBTRACT") +
                                                            " operation is not allowed for the BROKER_LOGGER resource");
            default:
                return fail(ErrorCode::invalid_request, "Unknown operation type " + std::to_string(op.operation) +
                                                            " is not allowed for the BROKER_LOGGER resource");
        }
    }
    if (!validate_only)
        for (const auto& op : ops) logging::set_min_level(*parse_level(*op.value));
    return {};
}

// Resource-level checks both AlterConfigs flavours make first
// (ConfigAdminManager.preprocess); fills `errors` for resources that fail.
// A key named twice is refused only by IncrementalAlterConfigs: legacy
// AlterConfigs collects the entries into Properties, where the last value wins
// (Kafka 3.x; librdkafka's read-modify-write of a topic relies on it).
enum class DuplicateKeys { refuse, last_wins };
template <typename Resource, typename NeedsValue>
std::vector<std::optional<ApiError>> preprocess(const std::vector<Resource>& resources, DuplicateKeys duplicates,
                                                NeedsValue needs_value) {
    std::vector<std::optional<ApiError>> errors(resources.size());
    std::map<std::pair<std::int8_t, std::string>, std::size_t> first;
    for (std::size_t i = 0; i < resources.size(); ++i) {
        auto [it, inserted] = first.emplace(std::pair{resources[i].resource_type, resources[i].resource_name}, i);
        if (inserted) continue;
        errors[it->second] = errors[i] = fail(ErrorCode::invalid_request, "Each resource must appear at most once.");
    }
    for (std::size_t i = 0; i < resources.size(); ++i) {
        if (errors[i]) continue;
        std::set<std::string> names;
        std::vector<std::string> nulls;
        bool duplicate_keys = false;
        for (const auto& c : resources[i].configs) {
            duplicate_keys = duplicate_keys || !names.insert(c.name).second;
            if (!c.value && needs_value(c)) nulls.push_back(c.name);
        }
        if (duplicate_keys && duplicates == DuplicateKeys::refuse) {
            errors[i] = fail(ErrorCode::invalid_request, "Error due to duplicate config keys");
        } else if (!nulls.empty()) {
            std::string list;
            for (const auto& n : nulls) list += (list.empty() ? "" : ", ") + n;
            errors[i] = fail(ErrorCode::invalid_request, "Null value not supported for : " + list);
        }
    }
    return errors;
}

template <typename Response, typename Resource>
void add_result(Response& response, const Resource& resource, const ApiError& error) {
    auto& out = response.responses.emplace_back();
    out.error_code = to_int(error.error);
    out.error_message = error.message;
    out.resource_type = resource.resource_type;
    out.resource_name = resource.resource_name;
}

// ---- DescribeConfigs -------------------------------------------------------

using DescribeResult = msg::DescribeConfigsResponse::DescribeConfigsResult;
using DescribeEntry = msg::DescribeConfigsResponse::DescribeConfigsResourceResult;

bool wanted(const std::optional<std::vector<std::string>>& keys, const std::string& name) {
    return !keys || keys->empty() || std::find(keys->begin(), keys->end(), name) != keys->end();
}

DescribeEntry to_entry(const config::ConfigEntry& e, bool synonyms, bool documentation) {
    DescribeEntry out;
    out.name = e.name;
    out.value = e.value;
    out.read_only = e.read_only;
    out.is_default = e.is_default();
    out.config_source = static_cast<std::int8_t>(e.source);
    out.is_sensitive = e.is_sensitive;
    if (synonyms) {
        for (const auto& s : e.synonyms) {
            auto& syn = out.synonyms.emplace_back();
            syn.name = s.name;
            syn.value = s.value;
            syn.source = static_cast<std::int8_t>(s.source);
        }
    }
    out.config_type = static_cast<std::int8_t>(e.type);
    // Kafka has no documentation for names it does not define (listener
    // overrides, custom keys).
    out.documentation =
        documentation && !e.documentation.empty() ? std::optional<std::string>(e.documentation) : std::nullopt;
    return out;
}

DescribeResult describe(const BrokerContext& broker,
                        const msg::DescribeConfigsRequest::DescribeConfigsResource& resource, bool synonyms,
                        bool documentation) {
    DescribeResult out;
    out.resource_type = resource.resource_type;
    out.resource_name = resource.resource_name;
    auto error = [&](ErrorCode code, std::optional<std::string> message) {
        out.error_code = to_int(code);
        out.error_message = std::move(message);
        return out;
    };
    std::vector<config::ConfigEntry> entries;
    const auto& name = resource.resource_name;
    const auto snapshot = broker.metadata.snapshot();
    const auto dynamic = snapshot->dynamic_broker_configs(broker.config.broker_id);
    switch (resource.resource_type) {
        case kTopic: {
            if (auto invalid = metadata::validate_topic_name(name))
                return error(ErrorCode::invalid_topic_exception, *invalid);
            auto topic = snapshot->topic(name);
            if (!topic) return error(ErrorCode::unknown_topic_or_partition, std::string());
            entries = config::describe_topic_configs(broker.config, topic->configs, dynamic);
            break;
        }
        case kBroker: {
            if (name.empty()) {
                entries = config::describe_default_broker_configs(dynamic);
                break;
            }
            auto id = parse_int(name);
            if (!id) return error(ErrorCode::invalid_request, "Broker id must be an integer, but it is: " + name);
            if (*id != broker.config.broker_id)
                return error(ErrorCode::invalid_request, "Unexpected broker id, expected " +
                                                             std::to_string(broker.config.broker_id) +
                                                             " or empty string, but received " + name);
            entries = config::describe_broker_configs(broker.config, dynamic);
            break;
        }
        case kBrokerLogger: {
            if (name.empty()) return error(ErrorCode::invalid_request, "Broker id must not be empty");
            auto id = parse_int(name);
            if (!id) return error(ErrorCode::invalid_request, "Broker id must be an integer, but it is: " + name);
            if (*id != broker.config.broker_id)
                return error(ErrorCode::invalid_request, "Unexpected broker id, expected " +
                                                             std::to_string(broker.config.broker_id) +
                                                             " but received " + name);
            if (wanted(resource.configuration_keys, std::string(kRootLogger))) {
                auto& e = out.configs.emplace_back();
                e.name = kRootLogger;
                e.value = root_level();
                e.config_source = static_cast<std::int8_t>(config::ConfigSource::dynamic_broker_logger_config);
            }
            return out;
        }
        default:
            return error(ErrorCode::invalid_request, "Unsupported resource type: " + type_name(resource.resource_type));
    }
    for (const auto& e : entries)
        if (wanted(resource.configuration_keys, e.name)) out.configs.push_back(to_entry(e, synonyms, documentation));
    return out;
}

}  // namespace

Task<msg::DescribeConfigsResponse> handle(BrokerContext& broker, const RequestContext& ctx,
                                          msg::DescribeConfigsRequest request) {
    const auto version = ctx.version();
    msg::DescribeConfigsResponse response;
    response.results.reserve(request.resources.size());
    const bool bad_type = std::any_of(request.resources.begin(), request.resources.end(),
                                      [](const auto& r) { return !known_type(r.resource_type); });
    if (bad_type) {
        // KafkaApis throws for the whole request: every resource gets the error.
        for (const auto& r : request.resources) {
            auto& out = response.results.emplace_back();
            out.error_code = to_int(ErrorCode::invalid_request);
            out.error_message = std::string(error_message(ErrorCode::invalid_request));
            out.resource_type = r.resource_type;
            out.resource_name = r.resource_name;
        }
        co_return response;
    }
    const bool synonyms = version >= 1 && request.include_synonyms;
    const bool documentation = version >= 3 && request.include_documentation;
    for (const auto& r : request.resources) response.results.push_back(describe(broker, r, synonyms, documentation));
    co_return response;
}

Task<msg::AlterConfigsResponse> handle(BrokerContext& broker, const RequestContext&, msg::AlterConfigsRequest request) {
    msg::AlterConfigsResponse response;
    auto errors = preprocess(request.resources, DuplicateKeys::last_wins, [](const auto&) { return true; });
    for (std::size_t i = 0; i < request.resources.size(); ++i) {
        const auto& r = request.resources[i];
        if (errors[i]) {
            add_result(response, r, *errors[i]);
            continue;
        }
        config::ConfigMap props;
        for (const auto& c : r.configs) props.insert_or_assign(c.name, *c.value);
        ApiError result;
        if (r.resource_type == kBroker) {
            result = co_await alter_broker(broker, r.resource_name, std::move(props), request.validate_only);
        } else if (r.resource_type == kTopic) {
            result = co_await alter_topic(broker, r.resource_name, std::move(props), request.validate_only);
        } else {
            result = fail(ErrorCode::invalid_request, "Unknown resource type " + std::to_string(r.resource_type));
        }
        add_result(response, r, result);
    }
    co_return response;
}

Task<msg::IncrementalAlterConfigsResponse> handle(BrokerContext& broker, const RequestContext&,
                                                  msg::IncrementalAlterConfigsRequest request) {
    msg::IncrementalAlterConfigsResponse response;
    auto errors = preprocess(request.resources, DuplicateKeys::refuse,
                             [](const auto& c) { return c.config_operation != kDelete; });
    for (std::size_t i = 0; i < request.resources.size(); ++i) {
        const auto& r = request.resources[i];
        if (errors[i]) {
            add_result(response, r, *errors[i]);
            continue;
        }
        std::vector<Op> ops;
        for (const auto& c : r.configs) ops.push_back({c.name, c.config_operation, c.value});
        ApiError result;
        if (r.resource_type == kBrokerLogger) {
            result = alter_loggers(broker, r.resource_name, ops, request.validate_only);
        } else if (r.resource_type == kBroker) {
            if (!r.resource_name.empty()) result = check_node_id(broker, r.resource_name);
            config::ConfigMap props;
            if (result.ok()) {
                props = stored_broker_configs(broker, !r.resource_name.empty());
                result = apply_ops(
                    props, ops, [](std::string_view n) { return config::find_broker_config_key(n); },
                    "Unknown config name: ");
            }
            if (result.ok())
                result = co_await alter_broker(broker, r.resource_name, std::move(props), request.validate_only);
        } else if (r.resource_type == kTopic) {
            if (r.resource_name.empty()) {
                result = fail(ErrorCode::invalid_request, "Default topic resources are not allowed.");
            } else {
                // The ops apply to the stored overrides: read them from a
                // snapshot that shows a topic created a moment ago elsewhere.
                auto topic = (co_await broker.metadata.snapshot_showing(r.resource_name))->topic(r.resource_name);
                config::ConfigMap props = topic ? topic->configs : config::ConfigMap{};
                result = apply_ops(
                    props, ops,
                    [](std::string_view n) -> const config::ConfigKey* {
                        const auto* k = config::find_topic_config_key(n);
                        return k != nullptr ? &k->key : nullptr;
                    },
                    "Unknown topic config name: ");
                if (result.ok())
                    result = co_await alter_topic(broker, r.resource_name, std::move(props), request.validate_only);
            }
        } else {
            result = fail(ErrorCode::invalid_request, "Unknown resource type " + std::to_string(r.resource_type));
        }
        add_result(response, r, result);
    }
    co_return response;
}

}  // namespace weir::handlers
