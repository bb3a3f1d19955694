#include "broker/config/command_line.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "broker/common/temp_dir.h"
#include "broker/config/config_error.h"

namespace weir::config {
namespace {

using ::testing::HasSubstr;

CommandLine parse(std::vector<std::string> args) {
    args.insert(args.begin(), "weir");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    return parse_command_line(static_cast<int>(args.size()), argv.data());
}

std::string command_error(std::vector<std::string> args) {
    try {
        parse(std::move(args));
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "";
}

TEST(CommandLineTest, ServeWithFileAndOverrides) {
    CommandLine cl = parse({"serve", "server.properties", "--override", "num.partitions=3", "--override=a=b=c"});
    EXPECT_EQ(cl.command, CommandLine::Command::serve);
    EXPECT_EQ(cl.subcommand, "serve");
    ASSERT_TRUE(cl.properties_file.has_value());
    EXPECT_EQ(*cl.properties_file, "server.properties");
    ASSERT_EQ(cl.overrides.size(), 2U);
    EXPECT_EQ(cl.overrides[0], (std::pair<std::string, std::string>{"num.partitions", "3"}));
    EXPECT_EQ(cl.overrides[1], (std::pair<std::string, std::string>{"a", "b=c"}));
}

TEST(CommandLineTest, ServeWithoutFile) {
    CommandLine cl = parse({"serve", "--override", "broker.id=2"});
    EXPECT_EQ(cl.command, CommandLine::Command::serve);
    EXPECT_FALSE(cl.properties_file.has_value());
    ASSERT_EQ(cl.overrides.size(), 1U);
}

TEST(CommandLineTest, HelpAndVersion) {
    EXPECT_EQ(parse({"--help"}).command, CommandLine::Command::help);
    EXPECT_EQ(parse({"-h"}).command, CommandLine::Command::help);
    EXPECT_EQ(parse({"--version"}).command, CommandLine::Command::version);
    CommandLine serve_help = parse({"serve", "--help"});
    EXPECT_EQ(serve_help.command, CommandLine::Command::help);
    EXPECT_EQ(serve_help.subcommand, "serve");
    EXPECT_THAT(help_text(serve_help), HasSubstr("log.dirs"));
    EXPECT_THAT(help_text(serve_help), HasSubstr("--override"));
    EXPECT_THAT(help_text(parse({"--help"})), HasSubstr("serve"));
    EXPECT_THAT(version_text(), HasSubstr("weir "));
}

TEST(CommandLineTest, UsageErrors) {
    EXPECT_THAT(command_error({}), HasSubstr("missing command"));
    EXPECT_THAT(command_error({"--bogus"}), HasSubstr("bogus"));
    EXPECT_THAT(command_error({"serve", "a.properties", "b.properties"}), HasSubstr("weir serve"));
    EXPECT_THAT(command_error({"serve", "--override", "novalue"}), HasSubstr("key=value"));
    EXPECT_THAT(command_error({"serve", "--override", "=v"}), HasSubstr("key=value"));
    EXPECT_THAT(command_error({"serve", "--override"}), HasSubstr("weir serve"));
    EXPECT_THAT(command_error({"serve", "--frobnicate"}), HasSubstr("frobnicate"));
}

TEST(CommandLineTest, OtherSubcommandsKeepTheirArguments) {
    CommandLine cl = parse({"groups", "--describe", "--group", "g1"});
    EXPECT_EQ(cl.command, CommandLine::Command::other);
    EXPECT_EQ(cl.subcommand, "groups");
    EXPECT_EQ(cl.args, (std::vector<std::string>{"--describe", "--group", "g1"}));
}

TEST(CommandLineTest, LoadConfigOverridesBeatTheFile) {
    TempDir dir;
    auto file = dir.path() / "server.properties";
    {
        std::ofstream out(file);
        out << "num.partitions=2\nlog.dirs=" << (dir.path() / "data").string() << "\nmystery.key=1\n";
    }
    CommandLine cl = parse({"serve", file.string(), "--override", "num.partitions=5", "--override", "broker.id=9"});
    std::vector<std::string> warnings;
    BrokerConfig c = load_config(cl, warnings);
    EXPECT_EQ(c.num_partitions, 5);
    EXPECT_EQ(c.broker_id, 9);
    EXPECT_EQ(c.log_dirs, std::vector<std::filesystem::path>{dir.path() / "data"});
    ASSERT_EQ(warnings.size(), 1U);
    EXPECT_THAT(warnings[0], HasSubstr("mystery.key"));
}

TEST(CommandLineTest, LoadConfigErrors) {
    TempDir dir;
    std::vector<std::string> warnings;
    CommandLine missing = parse({"serve", (dir.path() / "nope.properties").string()});
    EXPECT_THROW(load_config(missing, warnings), ConfigError);
    CommandLine bad = parse({"serve", "--override", "num.partitions=-1"});
    try {
        load_config(bad, warnings);
        FAIL() << "expected ConfigError";
    } catch (const ConfigError& e) {
        EXPECT_THAT(e.what(), HasSubstr("Invalid value -1 for configuration num.partitions"));
    }
}

}  // namespace
}  // namespace weir::config
