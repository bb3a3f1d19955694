#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "broker/config/broker_config.h"

namespace weir::config {

// What `weir ...` asked for. Usage errors throw ConfigError (exit code 2).
struct CommandLine {
    enum class Command {
        help,     // weir --help, or `weir <sub> --help` (subcommand says which text)
        version,  // weir --version
        serve,    // weir serve [server.properties] [--override key=value]...
        other,    // a subcommand this parser does not know yet (e.g. `weir groups`);
                  // its arguments are in `args`, unparsed
    };
    Command command = Command::help;
    std::string subcommand;  // "serve", "groups", ...; empty for top-level --help/--version
    std::optional<std::filesystem::path> properties_file;
    std::vector<std::pair<std::string, std::string>> overrides;  // in command-line order
    std::vector<std::string> args;                               // arguments after an unknown subcommand
};

CommandLine parse_command_line(int argc, char** argv);

// Text for `weir --help`, and for `weir serve --help` (lists the main keys).
std::string usage_text();
std::string serve_usage_text();
// Text for Command::help: the subcommand's help if it has one, else usage_text().
std::string help_text(const CommandLine& cl);
std::string version_text();

// Reads the properties file (if any), applies overrides (they beat the file),
// validates. Appends warnings (unknown keys); throws ConfigError.
BrokerConfig load_config(const CommandLine& cl, std::vector<std::string>& warnings);

}  // namespace weir::config
