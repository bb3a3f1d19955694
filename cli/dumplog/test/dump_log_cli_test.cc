#include "cli/dumplog/dump_log_cli.h"

#include <gtest/gtest.h>

#include "cli/dumplog/test/dumplog_test_util.h"

namespace weir::cli::dumplog {
namespace {

using namespace test;

TEST(DumpLogCli, VerifyHealthySegmentPrintsOneSummaryPerFile) {
    TempDir dir;
    const auto w = write_segment(dir.path());
    const auto r = run({"--verify", "--deep-iteration", w.log.string(), w.index.string(), w.timeindex.string()});
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    const auto lines = r.lines();
    ASSERT_EQ(lines.size(), 3u) << r.out;
    EXPECT_EQ(lines[0], w.log.string() + ": " + std::to_string(w.headers.size()) + " batches, offsets 0-" +
                            std::to_string(w.headers.back().last_offset()) + ", ok");
    EXPECT_TRUE(lines[1].starts_with(w.index.string() + ": ")) << lines[1];
    EXPECT_TRUE(lines[2].ends_with(", ok")) << lines[2];
}

TEST(DumpLogCli, MissingFileFailsWithoutCreatingIt) {
    TempDir dir;
    const auto missing = dir.path() / "00000000000000000000.index";
    const auto r = run({missing.string()});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("no such file"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(missing));
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "00000000000000000000.log"));
}

TEST(DumpLogCli, UnknownFilesAreIgnoredAsByKafkasTool) {
    TempDir dir;
    const auto w = write_segment(dir.path());
    const auto other = dir.path() / "leader-epoch-checkpoint";
    write_file(other, "0\n0\n");
    const auto r = run({other.string(), w.log.string()});
    EXPECT_EQ(r.code, 0);
    EXPECT_NE(r.err.find("Ignoring unknown file " + other.string()), std::string::npos) << r.err;
    EXPECT_TRUE(r.has("Dumping " + w.log.string())) << r.out;
}

TEST(DumpLogCli, ADirectoryStandsForItsPartitionsFiles) {
    TempDir dir;
    const auto partition = dir.path() / "t-0";
    std::filesystem::create_directories(partition);
    const auto w = write_segment(partition);
    write_file(partition / "leader-epoch-checkpoint", "0\n0\n");
    write_file(dir.path() / "recovery-point-offset-checkpoint", "0\n0\n");
    // A partition directory, or a whole log directory: the same three files.
    for (const auto& name : {partition, dir.path()}) {
        const auto r = run({"--verify", name.string()});
        EXPECT_EQ(r.code, 0) << r.out << r.err;
        const auto lines = r.lines();
        ASSERT_EQ(lines.size(), 3u) << r.out;
        EXPECT_TRUE(lines[0].starts_with(w.index.string() + ": ")) << lines[0];
        EXPECT_TRUE(lines[1].starts_with(w.log.string() + ": ")) << lines[1];
        EXPECT_TRUE(lines[2].starts_with(w.timeindex.string() + ": ")) << lines[2];
    }
    // Damage shows through the directory too.
    std::filesystem::resize_file(w.log, std::filesystem::file_size(w.log) - 3);
    EXPECT_EQ(run({"--verify", dir.path().string()}).code, 1);
}

TEST(DumpLogCli, GarbageInEveryKindOfFileIsReportedNotACrash) {
    TempDir dir;
    std::string garbage;
    for (int i = 0; i < 3001; ++i) garbage += static_cast<char>((i * 31 + 7) % 256);
    std::vector<std::string> files;
    for (const char* suffix : {".log", ".index", ".timeindex", ".snapshot", ".txnindex"}) {
        const auto p = dir.path() / ("00000000000000000000" + std::string(suffix));
        write_file(p, garbage);
        files.push_back(p.string());
    }
    auto args = files;
    args.insert(args.begin(), "--print-data-log");
    EXPECT_EQ(run(args).code, 0);
    args[0] = "--verify";
    const auto v = run(args);
    EXPECT_EQ(v.code, 1);
    for (const auto& f : files) EXPECT_TRUE(v.has(f + ": ")) << f;
    EXPECT_TRUE(v.err.empty()) << v.err;

    // Empty files are fine.
    for (const auto& f : files) write_file(f, "");
    EXPECT_EQ(run({"--verify", files[0], files[1], files[2]}).code, 0);
}

TEST(DumpLogCli, HelpAndUsageErrors) {
    const auto help = run({"--help"});
    EXPECT_EQ(help.code, 0);
    EXPECT_TRUE(help.has("Usage: weir dump-log"));
    const auto bad = run({"--nope", "x.log"});
    EXPECT_EQ(bad.code, 2);
    EXPECT_NE(bad.err.find("unknown option '--nope'"), std::string::npos);
    EXPECT_EQ(run({}).code, 2);
}

}  // namespace
}  // namespace weir::cli::dumplog
