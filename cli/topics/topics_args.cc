#include "cli/topics/topics_args.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <initializer_list>
#include <map>
#include <set>

#include "cli/topics/topics_errors.h"

namespace weir::cli::topics {

namespace {

struct OptionSpec {
    std::string_view name;
    bool takes_value = false;
};

// Kafka 3.7's options; --version is left out because there is no Kafka version to print.
constexpr std::array kOptions{
    OptionSpec{"alter"},
    OptionSpec{"at-min-isr-partitions"},
    OptionSpec{"bootstrap-server", true},
    OptionSpec{"command-config", true},
    OptionSpec{"config", true},
    OptionSpec{"create"},
    OptionSpec{"delete"},
    OptionSpec{"delete-config", true},
    OptionSpec{"describe"},
    OptionSpec{"exclude-internal"},
    OptionSpec{"help"},
    OptionSpec{"if-exists"},
    OptionSpec{"if-not-exists"},
    OptionSpec{"list"},
    OptionSpec{"partitions", true},
    OptionSpec{"replica-assignment", true},
    OptionSpec{"replication-factor", true},
    OptionSpec{"topic", true},
    OptionSpec{"topic-id", true},
    OptionSpec{"topics-with-overrides"},
    OptionSpec{"unavailable-partitions"},
    OptionSpec{"under-min-isr-partitions"},
    OptionSpec{"under-replicated-partitions"},
};

constexpr std::array<std::string_view, 5> kActions{"alter", "create", "describe", "list", "delete"};
constexpr std::array<std::string_view, 4> kReportOptions{"under-replicated-partitions", "under-min-isr-partitions",
                                                         "at-min-isr-partitions", "unavailable-partitions"};

// Every option given, with its values in order (none for a flag).
using Given = std::map<std::string_view, std::vector<std::string>>;

const OptionSpec* find_option(std::string_view name) {
    const auto* it =
        std::find_if(kOptions.begin(), kOptions.end(), [&](const OptionSpec& o) { return o.name == name; });
    return it == kOptions.end() ? nullptr : it;
}

Given scan(const std::vector<std::string>& args) {
    Given given;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view arg = args[i];
        if (arg == "--") break;  // what follows is not options, and TopicCommand ignores non-options
        if (arg.size() < 2 || arg.front() != '-') continue;
        const bool long_form = arg.starts_with("--");
        const std::string_view body = arg.substr(long_form ? 2 : 1);
        const auto eq = body.find('=');
        const std::string_view name = body.substr(0, eq);
        const OptionSpec* spec = find_option(name);
        if (spec == nullptr) {
            // jopt-simple reads an unknown single-dash word as one-letter options and names the first.
            std::string message = fmt::format("{} is not a recognized option", long_form ? name : body.substr(0, 1));
            if (name == "zookeeper") message += "\n(--zookeeper was removed in Kafka 3.0; use --bootstrap-server)";
            throw UsageError(message, false);
        }
        auto& values = given[spec->name];
        if (!spec->takes_value) continue;  // jopt-simple drops "=value" after a flag
        if (eq != std::string_view::npos) {
            values.emplace_back(body.substr(eq + 1));
        } else if (i + 1 < args.size()) {
            values.push_back(args[++i]);  // taken even when it looks like an option, as jopt-simple does
        } else {
            throw UsageError(fmt::format("Option {} requires an argument", spec->name), false);
        }
    }
    return given;
}

bool has(const Given& given, std::string_view name) { return given.contains(name); }

[[noreturn]] void usage(const std::string& message) { throw UsageError(message, true); }

// TopicCommand's invalidOptions: every action but the allowed ones, then `extra`.
std::vector<std::string_view> actions_except(std::initializer_list<std::string_view> allowed,
                                             const std::vector<std::string_view>& extra = {}) {
    std::vector<std::string_view> out;
    for (auto a : kActions)
        if (std::find(allowed.begin(), allowed.end(), a) == allowed.end()) out.push_back(a);
    out.insert(out.end(), extra.begin(), extra.end());
    return out;
}

// CommandLineUtils.checkInvalidArgs.
void check_invalid(const Given& given, std::string_view used, const std::vector<std::string_view>& invalid) {
    if (!has(given, used)) return;
    for (auto other : invalid)
        if (has(given, other)) usage(fmt::format("Option \"[{}]\" can't be used with option \"[{}]\"", used, other));
}

void check_args(const Given& given) {
    if (has(given, "help")) usage("This tool helps to create, delete, describe, or change a topic.");
    const auto actions =
        std::count_if(kActions.begin(), kActions.end(), [&](std::string_view a) { return has(given, a); });
    if (actions != 1)
        usage("Command must include exactly one action: --list, --describe, --create, --alter or --delete");

    if (!has(given, "bootstrap-server")) throw UsageError("--bootstrap-server must be specified", false);
    if (has(given, "describe") && has(given, "if-exists") && !has(given, "topic") && !has(given, "topic-id"))
        usage("--topic or --topic-id is required to describe a topic");
    if (!has(given, "list") && !has(given, "describe") && !has(given, "topic"))
        usage("Missing required argument \"[topic]\"");
    if (has(given, "alter")) {
        if (has(given, "config"))
            usage(
                "Option combination \"[[bootstrap-server], [config]]\" can't be used with option \"[alter]\" (the "
                "kafka-configs CLI supports altering topic configs with a --bootstrap-server option)");
        if (!has(given, "partitions")) usage("Missing required argument \"[partitions]\"");
    }

    check_invalid(given, "config", actions_except({"alter", "create"}));
    check_invalid(given, "delete-config", actions_except({"alter"}, {"bootstrap-server"}));
    check_invalid(given, "partitions", actions_except({"alter", "create"}));
    check_invalid(given, "replication-factor", actions_except({"create"}));
    check_invalid(given, "replica-assignment", actions_except({"alter", "create"}));
    if (has(given, "create")) check_invalid(given, "replica-assignment", {"partitions", "replication-factor"});
    for (auto report : kReportOptions)
        check_invalid(given, report, actions_except({"describe"}, {"topics-with-overrides"}));
    check_invalid(given, "topics-with-overrides",
                  actions_except({"describe"}, {kReportOptions.begin(), kReportOptions.end()}));
    check_invalid(given, "if-exists", actions_except({"alter", "delete", "describe"}));
    check_invalid(given, "if-not-exists", actions_except({"create"}));
    check_invalid(given, "exclude-internal", actions_except({"list", "describe"}));
}

// jopt-simple's OptionSet.valueOf: one value, or an error when the option was given twice. TopicCommand
// reads --bootstrap-server and --command-config before it starts executing, the others while executing.
std::optional<std::string> single_value(const Given& given, std::string_view name) {
    auto it = given.find(name);
    if (it == given.end()) return std::nullopt;
    if (it->second.size() > 1) {
        const auto message = fmt::format("Found multiple arguments for option {}, but you asked for only one", name);
        if (name == "bootstrap-server" || name == "command-config") throw UsageError(message, false);
        throw CommandError(message);
    }
    return it->second.front();
}

bool is_java_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\x0B' || c == '\f' || c == '\r'; }

// String.trim: drops every character up to ' ' at both ends.
std::string_view java_trim(std::string_view s) {
    while (!s.empty() && static_cast<unsigned char>(s.front()) <= ' ') s.remove_prefix(1);
    while (!s.empty() && static_cast<unsigned char>(s.back()) <= ' ') s.remove_suffix(1);
    return s;
}

// Integer.parseInt: an optional sign and decimal digits, within int's range.
std::optional<std::int32_t> java_int(std::string_view text) {
    std::string_view digits = text;
    bool negative = false;
    if (!digits.empty() && (digits.front() == '+' || digits.front() == '-')) {
        negative = digits.front() == '-';
        digits.remove_prefix(1);
    }
    if (digits.empty()) return std::nullopt;
    std::int64_t value = 0;
    for (char c : digits) {
        if (c < '0' || c > '9') return std::nullopt;
        value = value * 10 + (c - '0');
        if (value > std::int64_t{1} << 31) return std::nullopt;
    }
    if (negative) value = -value;
    if (value > INT32_MAX) return std::nullopt;
    return static_cast<std::int32_t>(value);
}

std::optional<std::int32_t> int_value(const Given& given, std::string_view name) {
    auto text = single_value(given, name);
    if (!text) return std::nullopt;
    auto value = java_int(*text);
    if (!value) throw CommandError(fmt::format("Cannot parse argument '{}' of option {}", *text, name));
    return value;
}

// String.split around a separator that is `sep` with the blanks around it when `blanks` is set:
// a text without the separator is returned whole; trailing empty pieces are dropped.
std::vector<std::string_view> java_split(std::string_view text, char sep, bool blanks) {
    if (text.find(sep) == std::string_view::npos) return {text};
    std::vector<std::string_view> pieces;
    std::size_t start = 0;
    while (true) {
        const auto at = text.find(sep, start);
        pieces.push_back(text.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
        if (at == std::string_view::npos) break;
        start = at + 1;
    }
    if (blanks) {
        for (std::size_t i = 0; i < pieces.size(); ++i) {
            auto& p = pieces[i];
            if (i > 0)
                while (!p.empty() && is_java_space(p.front())) p.remove_prefix(1);
            if (i + 1 < pieces.size())
                while (!p.empty() && is_java_space(p.back())) p.remove_suffix(1);
        }
    }
    while (!pieces.empty() && pieces.back().empty()) pieces.pop_back();
    return pieces;
}

}  // namespace

TopicsOptions parse_topics_args(const std::vector<std::string>& args) {
    if (args.empty()) usage("Create, delete, describe, or change a topic.");
    const Given given = scan(args);
    check_args(given);

    TopicsOptions o;
    if (has(given, "list")) o.action = TopicsAction::List;
    if (has(given, "describe")) o.action = TopicsAction::Describe;
    if (has(given, "create")) o.action = TopicsAction::Create;
    if (has(given, "alter")) o.action = TopicsAction::Alter;
    if (has(given, "delete")) o.action = TopicsAction::Delete;
    o.bootstrap = *single_value(given, "bootstrap-server");
    o.command_config = single_value(given, "command-config");
    o.topic = single_value(given, "topic");
    o.topic_id = single_value(given, "topic-id");
    o.replica_assignment = single_value(given, "replica-assignment");
    if (auto it = given.find("config"); it != given.end()) o.configs = it->second;
    o.under_replicated = has(given, "under-replicated-partitions");
    o.unavailable = has(given, "unavailable-partitions");
    o.under_min_isr = has(given, "under-min-isr-partitions");
    o.at_min_isr = has(given, "at-min-isr-partitions");
    o.with_overrides = has(given, "topics-with-overrides");
    o.if_exists = has(given, "if-exists");
    o.if_not_exists = has(given, "if-not-exists");
    o.exclude_internal = has(given, "exclude-internal");
    o.partitions = int_value(given, "partitions");
    o.replication_factor = int_value(given, "replication-factor");
    return o;
}

std::vector<std::vector<std::int32_t>> parse_replica_assignment(std::string_view text) {
    std::vector<std::vector<std::int32_t>> out;
    for (const auto partition : java_split(text, ',', false)) {
        std::vector<std::int32_t> brokers;
        for (const auto id : java_split(partition, ':', false)) {
            const auto trimmed = java_trim(id);
            const auto broker = java_int(trimmed);
            if (!broker) throw CommandError(fmt::format("For input string: \"{}\"", trimmed));
            brokers.push_back(*broker);
        }
        std::set<std::int32_t> seen;
        std::set<std::int32_t> duplicates;
        for (auto b : brokers)
            if (!seen.insert(b).second) duplicates.insert(b);
        if (!duplicates.empty())
            throw CommandError(fmt::format("Partition replica lists may not contain duplicate entries: {}",
                                           fmt::join(duplicates, ",")));
        if (!out.empty() && brokers.size() != out.front().size())
            throw CommandError(fmt::format("Partition {} has different replication factor: [{}]", out.size(),
                                           fmt::join(brokers, ", ")));
        out.push_back(std::move(brokers));
    }
    return out;
}

std::vector<std::pair<std::string, std::string>> parse_topic_configs(const std::vector<std::string>& values) {
    std::vector<std::vector<std::string_view>> pairs;
    for (const auto& v : values) pairs.push_back(java_split(v, '=', true));
    if (!std::all_of(pairs.begin(), pairs.end(), [](const auto& p) { return p.size() == 2; }))
        throw CommandError(
            "requirement failed: Invalid topic config: all configs to be added must be in the format \"key=val\".");
    std::map<std::string, std::string> configs;
    for (const auto& p : pairs) configs[std::string(java_trim(p[0]))] = std::string(java_trim(p[1]));
    return {configs.begin(), configs.end()};
}

std::string topics_usage_text() {
    return R"(Option                                   Description
------                                   -----------
--alter                                  Alter the number of partitions and
                                           replica assignment. Update the
                                           configuration of an existing topic
                                           via --alter is no longer supported
                                           here (the kafka-configs CLI supports
                                           altering topic configs with a
                                           --bootstrap-server option).
--at-min-isr-partitions                  if set when describing topics, only
                                           show partitions whose isr count is
                                           equal to the configured minimum.
--bootstrap-server <String: server to    REQUIRED: The Kafka server to connect
  connect to>                              to.
--command-config <String: command        Property file containing configs to be
  config property file>                    passed to Admin Client. Keys the
                                           librdkafka client knows are passed
                                           to it, others are warned about;
                                           default.api.timeout.ms bounds every
                                           request (default: 30000).
--config <String: name=value>            A topic configuration override for the
                                           topic being created. See the Kafka
                                           documentation for full details on
                                           the topic configs. It is supported
                                           only in combination with --create.
--create                                 Create a new topic.
--delete                                 Delete a topic
--delete-config <String: name>           A topic configuration override to be
                                           removed for an existing topic. Not
                                           supported with the --bootstrap-
                                           server option.
--describe                               List details for the given topics.
--exclude-internal                       exclude internal topics when running
                                           list or describe command. The
                                           internal topics will be listed by
                                           default
--help                                   Print usage information.
--if-exists                              if set when altering or deleting or
                                           describing topics, the action will
                                           only execute if the topic exists.
--if-not-exists                          if set when creating topics, the
                                           action will only execute if the
                                           topic does not already exist.
--list                                   List all available topics.
--partitions <Integer: # of partitions>  The number of partitions for the topic
                                           being created or altered (WARNING:
                                           If partitions are increased for a
                                           topic that has a key, the partition
                                           logic or ordering of the messages
                                           will be affected). If not supplied
                                           for create, defaults to the cluster
                                           default.
--replica-assignment <String:            A list of manual partition-to-broker
  broker_id_for_part1_replica1 :           assignments for the topic being
  broker_id_for_part1_replica2 ,           created or altered.
  broker_id_for_part2_replica1 :
  broker_id_for_part2_replica2 , ...>
--replication-factor <Integer:           The replication factor for each
  replication factor>                      partition in the topic being
                                           created. If not supplied, defaults
                                           to the cluster default.
--topic <String: topic>                  The topic to create, alter, describe
                                           or delete. It also accepts a regular
                                           expression, except for --create
                                           option. Put topic name in double
                                           quotes and use the '\' prefix to
                                           escape regular expression symbols;
                                           e.g. "test\.topic".
--topic-id <String: topic-id>            The topic-id to describe. Not
                                           supported: this client cannot read
                                           topic ids.
--topics-with-overrides                  if set when describing topics, only
                                           show topics that have overridden
                                           configs
--unavailable-partitions                 if set when describing topics, only
                                           show partitions whose leader is not
                                           available
--under-min-isr-partitions               if set when describing topics, only
                                           show partitions whose isr count is
                                           less than the configured minimum.
--under-replicated-partitions            if set when describing topics, only
                                           show under replicated partitions
)";
}

}  // namespace weir::cli::topics
