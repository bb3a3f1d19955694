#include "broker/config/command_line.h"

#include <boost/program_options.hpp>
#include <sstream>

#include "broker/config/config_error.h"
#include "broker/config/config_keys.h"
#include "broker/config/properties.h"
#include "broker/config/version.h"

namespace weir::config {
namespace po = boost::program_options;

namespace {

po::options_description global_options() {
    po::options_description desc("Options");
    desc.add_options()("help,h", "Show this help and exit")("version,V", "Show the version and exit");
    return desc;
}

po::options_description serve_options() {
    po::options_description desc("Options");
    desc.add_options()("help,h", "Show this help and exit")(
        "override", po::value<std::vector<std::string>>()->composing(),
        "key=value; set a server.properties key, winning over the file (repeatable)");
    return desc;
}

std::pair<std::string, std::string> split_override(const std::string& text) {
    std::size_t eq = text.find('=');
    if (eq == std::string::npos || eq == 0) {
        throw ConfigError("weir serve: --override expects key=value, got '" + text + "'");
    }
    return {text.substr(0, eq), text.substr(eq + 1)};
}

void parse_serve(const std::vector<std::string>& args, CommandLine& cl) {
    po::options_description visible = serve_options();
    po::options_description all = visible;
    all.add_options()("config-file", po::value<std::string>(), "server.properties");
    po::positional_options_description positional;
    positional.add("config-file", 1);

    po::variables_map vm;
    try {
        po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        throw ConfigError(std::string("weir serve: ") + e.what() + " (see weir serve --help)");
    }
    if (vm.count("help") != 0U) {
        cl.command = CommandLine::Command::help;
        return;
    }
    if (vm.count("config-file") != 0U) cl.properties_file = vm["config-file"].as<std::string>();
    if (vm.count("override") != 0U) {
        for (const std::string& o : vm["override"].as<std::vector<std::string>>())
            cl.overrides.push_back(split_override(o));
    }
}

}  // namespace

CommandLine parse_command_line(int argc, char** argv) {
    // Options before the first non-option word are global; the rest belong to
    // the subcommand (so `weir serve --help` is serve's help).
    std::vector<std::string> global_args;
    std::vector<std::string> sub_args;
    std::string subcommand;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (subcommand.empty() && !a.empty() && a.front() != '-') {
            subcommand = std::move(a);
            continue;
        }
        (subcommand.empty() ? global_args : sub_args).push_back(std::move(a));
    }

    CommandLine cl;
    po::variables_map vm;
    try {
        po::store(po::command_line_parser(global_args).options(global_options()).run(), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        throw ConfigError(std::string("weir: ") + e.what() + " (see weir --help)");
    }
    if (vm.count("help") != 0U) {
        cl.command = CommandLine::Command::help;
        return cl;
    }
    if (vm.count("version") != 0U) {
        cl.command = CommandLine::Command::version;
        return cl;
    }
    if (subcommand.empty()) throw ConfigError("weir: missing command (see weir --help)");

    cl.subcommand = subcommand;
    if (subcommand == "serve") {
        cl.command = CommandLine::Command::serve;
        parse_serve(sub_args, cl);
        return cl;
    }
    cl.command = CommandLine::Command::other;
    cl.args = std::move(sub_args);
    return cl;
}

std::string usage_text() {
    std::ostringstream out;
    out << "Usage: weir <command> [options]\n\n"
           "Commands:\n"
           "  serve [server.properties] [--override key=value]...   Run the broker\n"
           "  groups <list|describe|reset-offsets|delete> ...        Administer consumer groups\n"
           "  topics --bootstrap-server H:P --list|--describe|...    Administer topics (kafka-topics.sh)\n"
           "  configs --bootstrap-server H:P --topic T --alter|...   Topic configs (kafka-configs.sh)\n"
           "  transactions --bootstrap-server H:P list|describe|...  Transactions (kafka-transactions.sh)\n"
           "  log-dirs --describe --bootstrap-server H:P [...]      Log dirs and partition sizes (kafka-log-dirs.sh)\n"
           "  dump-log [--verify] [--print-data-log] FILE...         Print and check segments, indexes, snapshots\n\n"
        << global_options()
        << "\nRun 'weir serve --help' for the broker's settings, 'weir groups --help', 'weir topics --help', "
           "'weir configs --help', 'weir transactions --help', 'weir log-dirs --help' or 'weir dump-log --help' for "
           "the tools.\n";
    return out.str();
}

std::string serve_usage_text() {
    std::ostringstream out;
    out << "Usage: weir serve [server.properties] [--override key=value]...\n\n"
           "Runs the broker. server.properties uses Kafka's key names; --override wins over the file.\n\n"
        << serve_options() << "\nMain settings (default in brackets):\n";
    for (const ConfigKey& key : broker_config_keys()) {
        if (key.importance != Importance::high || !key.used) continue;
        out << "  " << key.name << " [" << (key.default_value ? std::string(*key.default_value) : std::string("unset"))
            << "]\n      " << key.doc << '\n';
    }
    return out.str();
}

std::string help_text(const CommandLine& cl) {
    if (cl.subcommand == "serve") return serve_usage_text();
    return usage_text();
}

std::string version_text() { return "weir " + std::string(kWeirVersion) + '\n'; }

BrokerConfig load_config(const CommandLine& cl, std::vector<std::string>& warnings) {
    ConfigMap props;
    if (cl.properties_file) props = load_properties_file(*cl.properties_file);
    for (const auto& [key, value] : cl.overrides) props.insert_or_assign(key, value);
    return build_broker_config(props, warnings);
}

}  // namespace weir::config
