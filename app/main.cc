// The `weir` binary: `weir serve [server.properties] [--override k=v]...` runs a broker;
// `weir groups ...` administers consumer groups and `weir topics ...` (kafka-topics.sh's command
// line) topics and `weir configs` (kafka-configs.sh's) topic configs on any Kafka cluster;
// `weir transactions` (kafka-transactions.sh's) lists, describes and aborts transactions;
// `weir dump-log FILE...` prints and checks log segments, indexes and producer snapshots on disk.
#include <malloc.h>

#include <csignal>
#include <cstdio>
#include <iostream>

#include "broker/common/logging.h"
#include "broker/config/command_line.h"
#include "broker/config/config_error.h"
#include "broker/controller/zk_controller.h"
#include "broker/server/broker.h"
#include "cli/configs/configs_cli.h"
#include "cli/dumplog/dump_log_cli.h"
#include "cli/groups/groups_cli.h"
#include "cli/logdirs/log_dirs_cli.h"
#include "cli/topics/topics_cli.h"
#include "cli/transactions/transactions_cli.h"
#include "coordinator/group/group_coordinator.h"
#include "coordinator/txn/transaction_coordinator.h"

int main(int argc, char** argv) {
    using namespace weir;
    // Fetch responses are megabyte buffers. glibc would mmap and unmap each
    // one, so every fetch paid a page fault per 4 KiB (a third of the broker's
    // CPU when consuming); keep such buffers on the heap and reuse them.
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    // Fetch answers go out with sendfile(2), which has no MSG_NOSIGNAL: a
    // client that disconnects must fail that write, not stop the broker.
    std::signal(SIGPIPE, SIG_IGN);
    config::CommandLine cl;
    try {
        cl = config::parse_command_line(argc, argv);
    } catch (const config::ConfigError& e) {
        std::cerr << "weir: " << e.what() << "\n\n" << config::usage_text();
        return 2;
    }
    switch (cl.command) {
        case config::CommandLine::Command::help:
            std::cout << config::help_text(cl);
            return 0;
        case config::CommandLine::Command::version:
            std::cout << config::version_text();
            return 0;
        case config::CommandLine::Command::other:
            if (cl.subcommand == "groups") return cli::groups_main(cl.args);
            if (cl.subcommand == "topics") return cli::topics::topics_main(cl.args);
            if (cl.subcommand == "dump-log") return cli::dumplog::dump_log_main(cl.args);
            if (cl.subcommand == "configs") return cli::configs::configs_main(cl.args);
            if (cl.subcommand == "transactions") return cli::transactions::transactions_main(cl.args);
            if (cl.subcommand == "log-dirs") return cli::logdirs::log_dirs_main(cl.args);
            std::cerr << "weir: unknown command '" << cl.subcommand << "'\n\n" << config::usage_text();
            return 2;
        case config::CommandLine::Command::serve:
            break;
    }

    config::BrokerConfig cfg;
    try {
        std::vector<std::string> warnings;
        cfg = config::load_config(cl, warnings);
        for (const auto& w : warnings) logging::warn("{}", w);
    } catch (const config::ConfigError& e) {
        logging::error("invalid configuration: {}", e.what());
        return 2;
    }
    try {
        server::Broker broker(
            std::move(cfg),
            [](handlers::BrokerContext& context) { return coordinator::make_group_coordinator(context); },
            &controller::make_cluster_controller,
            [](handlers::BrokerContext& context) { return coordinator::make_transaction_coordinator(context); });
        return broker.run();
    } catch (const std::exception& e) {
        logging::error("fatal: {}", e.what());
        return 1;
    }
}
