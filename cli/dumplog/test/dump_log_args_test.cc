#include "cli/dumplog/dump_log_args.h"

#include <gtest/gtest.h>

namespace weir::cli::dumplog {
namespace {

TEST(DumpLogArgs, FilesAndFlags) {
    auto o = parse_dump_log_args({"--verify", "a.log", "--deep-iteration", "b.index"});
    EXPECT_TRUE(o.verify);
    EXPECT_TRUE(o.deep_iteration);
    EXPECT_FALSE(o.print_data_log);
    EXPECT_EQ(o.files, (std::vector<std::string>{"a.log", "b.index"}));
}

TEST(DumpLogArgs, PrintDataLogImpliesDeepIteration) {
    auto o = parse_dump_log_args({"--print-data-log", "a.log"});
    EXPECT_TRUE(o.print_data_log);
    EXPECT_TRUE(o.deep_iteration);
    EXPECT_FALSE(o.verify);
}

TEST(DumpLogArgs, KafkaFilesOptionTakesACommaList) {
    EXPECT_EQ(parse_dump_log_args({"--files", "a.log,b.index"}).files, (std::vector<std::string>{"a.log", "b.index"}));
    EXPECT_EQ(parse_dump_log_args({"--files=a.log", "c.log"}).files, (std::vector<std::string>{"a.log", "c.log"}));
    EXPECT_THROW(parse_dump_log_args({"--files", "a.log,,b.log"}), UsageError);
    EXPECT_THROW(parse_dump_log_args({"--files"}), UsageError);
}

TEST(DumpLogArgs, DoubleDashEndsOptions) {
    EXPECT_EQ(parse_dump_log_args({"--", "--verify"}).files, (std::vector<std::string>{"--verify"}));
}

TEST(DumpLogArgs, Errors) {
    EXPECT_THROW(parse_dump_log_args({}), UsageError);
    EXPECT_THROW(parse_dump_log_args({"--verify"}), UsageError);
    EXPECT_THROW(parse_dump_log_args({"--bogus", "a.log"}), UsageError);
    EXPECT_THROW(parse_dump_log_args({""}), UsageError);
}

TEST(DumpLogArgs, Help) {
    EXPECT_TRUE(parse_dump_log_args({"--help"}).help);
    EXPECT_TRUE(parse_dump_log_args({"a.log", "-h"}).help);
    const auto text = dump_log_usage_text();
    for (const char* option : {"--verify", "--deep-iteration", "--print-data-log", "--files"})
        EXPECT_NE(text.find(option), std::string::npos) << option;
}

}  // namespace
}  // namespace weir::cli::dumplog
