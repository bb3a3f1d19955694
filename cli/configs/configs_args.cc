#include "cli/configs/configs_args.h"

#include <algorithm>

namespace weir::cli::configs {

namespace {

std::vector<std::string> split_outside_brackets(const std::string& text) {
    std::vector<std::string> parts;
    std::string current;
    int depth = 0;
    for (char c : text) {
        if (c == '[') ++depth;
        if (c == ']' && depth > 0) --depth;
        if (c == ',' && depth == 0) {
            parts.push_back(std::move(current));
            current.clear();
        } else {
            current += c;
        }
    }
    parts.push_back(std::move(current));
    return parts;
}

std::string trim(std::string s) {
    const auto first = s.find_first_not_of(" \t");
    if (first == std::string::npos) return "";
    return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

}  // namespace

std::vector<std::pair<std::string, std::string>> parse_configs_to_add(const std::string& text) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& part : split_outside_brackets(text)) {
        const auto eq = part.find('=');
        if (eq == std::string::npos || part.find('=', eq + 1) != std::string::npos || trim(part.substr(0, eq)).empty())
            throw ConfigsUsageError(
                "Invalid entity config: all configs to be added must be in the format \"key=val\".");
        std::string value = trim(part.substr(eq + 1));
        std::erase_if(value, [](char c) { return c == '[' || c == ']'; });
        out.emplace_back(trim(part.substr(0, eq)), value);
    }
    return out;
}

ConfigsOptions parse_configs_args(const std::vector<std::string>& args) {
    ConfigsOptions o;
    std::optional<std::string> entity_type;
    std::optional<std::string> entity_name;
    std::optional<std::string> topic;
    bool describe = false;
    bool alter = false;
    std::optional<std::string> add;
    std::optional<std::string> del;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        const auto value = [&]() -> std::string {
            if (i + 1 >= args.size()) throw ConfigsUsageError("Option " + a + " requires an argument");
            return args[++i];
        };
        if (a == "--bootstrap-server")
            o.bootstrap = value();
        else if (a == "--command-config")
            o.command_config = value();
        else if (a == "--entity-type")
            entity_type = value();
        else if (a == "--entity-name")
            entity_name = value();
        else if (a == "--topic")
            topic = value();
        else if (a == "--describe")
            describe = true;
        else if (a == "--alter")
            alter = true;
        else if (a == "--all")
            o.all = true;
        else if (a == "--add-config")
            add = value();
        else if (a == "--delete-config")
            del = value();
        else if (a == "--help" || a == "-h")
            o.help = true;
        else
            throw ConfigsUsageError(a + " is not a recognized option");
    }
    if (o.help) return o;
    if (o.bootstrap.empty())
        throw ConfigsUsageError("Exactly one of --bootstrap-server or --bootstrap-controller must be specified");
    if (describe == alter) throw ConfigsUsageError("Command must include exactly one action: --describe, --alter");
    if (topic && (entity_type || entity_name))
        throw ConfigsUsageError("--topic cannot be used with --entity-type or --entity-name");
    if (topic) {
        o.topic = *topic;
    } else {
        if (!entity_type) throw ConfigsUsageError("At least one entity type must be specified");
        if (*entity_type != "topics")
            throw ConfigsUsageError("weir configs handles --entity-type topics only, not " + *entity_type +
                                    " (broker configs: the Kafka protocol's AlterConfigs, e.g. kafka-configs.sh)");
        if (!entity_name) throw ConfigsUsageError("An entity name must be specified");
        o.topic = *entity_name;
    }
    if (o.topic.empty()) throw ConfigsUsageError("An entity name must be specified");
    if (alter) {
        o.action = ConfigsAction::Alter;
        if (o.all) throw ConfigsUsageError("Option \"[all]\" can't be used with option \"[alter]\"");
        if (!add && !del)
            throw ConfigsUsageError("At least one of --add-config or --delete-config must be specified with --alter");
        if (add) o.to_add = parse_configs_to_add(*add);
        if (del)
            for (auto& k : split_outside_brackets(*del))
                if (auto key = trim(k); !key.empty()) o.to_delete.push_back(key);
    } else if (add || del) {
        throw ConfigsUsageError("Option \"[add-config]\" and \"[delete-config]\" can only be used with \"[alter]\"");
    }
    return o;
}

std::string configs_usage_text() {
    return R"(This tool helps to manipulate and describe entity config for a topic.
Usage: weir configs --bootstrap-server H:P [--command-config FILE]
         (--entity-type topics --entity-name T | --topic T)
         (--describe [--all] | --alter [--add-config k1=v1,k2=[v1,v2]] [--delete-config k1,k2])

Option                     Description
--add-config <k=v,...>     Configs to set on the topic; a value with commas goes in brackets.
--all                      With --describe: every config, not only the topic's overrides.
--alter                    Alter the topic's configs.
--bootstrap-server <H:P>   The Kafka server to connect to (required).
--command-config <FILE>    The Java admin client's property file (as weir topics reads it).
--delete-config <k,...>    Overrides to remove (back to the broker's default).
--describe                 List the topic's config overrides (with --all: every config).
--entity-name <T>          The topic.
--entity-type <topics>     Only topics.
--help                     Print usage information.
--topic <T>                Shorthand for --entity-type topics --entity-name T.
)";
}

}  // namespace weir::cli::configs
