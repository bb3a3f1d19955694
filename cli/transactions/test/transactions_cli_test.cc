// `weir transactions`: its command line and output format (the requests
// themselves run against brokers in compat-tests).
#include "cli/transactions/transactions_cli.h"

#include <gtest/gtest.h>

#include <sstream>

#include "cli/transactions/transactions_args.h"
#include "cli/wireclient/wire_client.h"

namespace weir::cli::transactions {

using wireclient::Endpoint;
using wireclient::parse_bootstrap;
using wireclient::WireClient;
namespace {

TEST(TransactionsArgs, Commands) {
    auto list = parse_transactions_args({"--bootstrap-server", "h:1", "list"});
    EXPECT_EQ(list.command, Command::list);
    EXPECT_EQ(list.bootstrap_server, "h:1");
    auto describe = parse_transactions_args({"describe", "--transactional-id", "t", "--bootstrap-server", "h:1"});
    EXPECT_EQ(describe.command, Command::describe);
    EXPECT_EQ(describe.transactional_id, "t");
    auto producers = parse_transactions_args(
        {"--bootstrap-server", "h:1", "describe-producers", "--topic", "x", "--partition", "3"});
    EXPECT_EQ(producers.command, Command::describe_producers);
    EXPECT_EQ(producers.partition, 3);
    auto abort = parse_transactions_args(
        {"--bootstrap-server", "h:1", "abort", "--topic", "x", "--partition", "0", "--start-offset", "42"});
    EXPECT_EQ(abort.command, Command::abort);
    EXPECT_EQ(abort.start_offset, 42);
    auto by_producer =
        parse_transactions_args({"--bootstrap-server", "h:1", "abort", "--topic", "x", "--partition", "0",
                                 "--producer-id", "7", "--producer-epoch", "2", "--coordinator-epoch", "5"});
    EXPECT_EQ(by_producer.producer_id, 7);
    EXPECT_EQ(by_producer.producer_epoch, 2);
    EXPECT_EQ(by_producer.coordinator_epoch, 5);
    EXPECT_TRUE(parse_transactions_args({"--help"}).help);
}

TEST(TransactionsArgs, Mistakes) {
    auto bad = [](std::vector<std::string> args) {
        EXPECT_THROW(parse_transactions_args(args), UsageError) << args.size();
    };
    bad({"list"});                                                             // no bootstrap
    bad({"--bootstrap-server", "h:1"});                                        // no command
    bad({"--bootstrap-server", "h:1", "frobnicate"});                          // unknown command
    bad({"--bootstrap-server", "h:1", "describe"});                            // no id
    bad({"--bootstrap-server", "h:1", "describe-producers", "--topic", "x"});  // no partition
    bad({"--bootstrap-server", "h:1", "abort", "--topic", "x", "--partition", "0"});
    bad({"--bootstrap-server", "h:1", "abort", "--topic", "x", "--partition", "0", "--producer-id", "1"});
    bad({"--bootstrap-server", "h:1", "abort", "--topic", "x", "--partition", "0", "--start-offset", "1",
         "--producer-id", "1", "--producer-epoch", "0", "--coordinator-epoch", "0"});
    bad({"--bootstrap-server", "h:1", "abort", "--topic", "x", "--partition", "zero", "--start-offset", "1"});
    bad({"--bootstrap-server", "h:1", "abort", "--topic", "x", "--partition", "0", "--producer-epoch", "40000"});
    bad({"--bootstrap-server"});
    bad({"--bootstrap-server", "h:1", "list", "--frob"});
}

TEST(TransactionsCli, UsageErrorsExitWithTwoAndHelpWithZero) {
    std::ostringstream out, err;
    EXPECT_EQ(run_transactions({"list"}, out, err), 2);
    EXPECT_NE(err.str().find("--bootstrap-server is required"), std::string::npos);
    EXPECT_EQ(run_transactions({"--bootstrap-server", "nohostport", "list"}, out, err), 2);
    std::ostringstream help;
    EXPECT_EQ(run_transactions({"--help"}, help, err), 0);
    EXPECT_NE(help.str().find("describe-producers"), std::string::npos);
}

TEST(TransactionsCli, NoBrokerIsAnErrorNotAHang) {
    std::ostringstream out, err;
    // Port 1 on loopback refuses at once.
    EXPECT_EQ(run_transactions({"--bootstrap-server", "127.0.0.1:1", "list"}, out, err), 1);
    EXPECT_NE(err.str().find("no broker answered"), std::string::npos) << err.str();
}

TEST(TransactionsCli, TablesPadEveryColumnToItsWidestCell) {
    EXPECT_EQ(format_table({"A", "Bee", "C"}, {{"long-value", "1", "x"}, {"s", "22222", "y"}}),
              "A          Bee   C\n"
              "long-value 1     x\n"
              "s          22222 y\n");
    EXPECT_EQ(format_table({"Only"}, {}), "Only\n");
}

TEST(WireClient, BootstrapLists) {
    auto e = parse_bootstrap("a:1,[::1]:9092,b.example:65535");
    ASSERT_EQ(e.size(), 3u);
    EXPECT_EQ(e[0].host, "a");
    EXPECT_EQ(e[1].host, "::1");
    EXPECT_EQ(e[1].port, 9092);
    EXPECT_EQ(e[2].port, 65535);
    EXPECT_THROW(parse_bootstrap("a"), std::invalid_argument);
    EXPECT_THROW(parse_bootstrap("a:0"), std::invalid_argument);
    EXPECT_THROW(parse_bootstrap("a:70000"), std::invalid_argument);
    EXPECT_THROW(parse_bootstrap("a:1,"), std::invalid_argument);
}

}  // namespace
}  // namespace weir::cli::transactions
