#include "cli/groups/groups_args.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>

#include "cli/groups/groups_cli.h"

namespace weir::cli {
namespace {

using Args = std::vector<std::string>;

TEST(GroupsArgs, ListWithDefaults) {
    const auto o = parse_groups_args({"list"});
    EXPECT_EQ(o.action, GroupsAction::List);
    EXPECT_EQ(o.bootstrap, "127.0.0.1:9092");
    EXPECT_EQ(o.timeout, std::chrono::milliseconds(10'000));
    EXPECT_TRUE(o.group.empty());
    EXPECT_FALSE(o.show_state);
}

TEST(GroupsArgs, GlobalOptionsAnywhereAndInlineValues) {
    const auto o = parse_groups_args({"--bootstrap-server", "h1:9093,h2:9093", "describe", "--timeout-ms=2500", "g1",
                                      "-X", "security.protocol=SSL", "-Xa=b=c"});
    EXPECT_EQ(o.action, GroupsAction::Describe);
    EXPECT_EQ(o.group, "g1");
    EXPECT_EQ(o.bootstrap, "h1:9093,h2:9093");
    EXPECT_EQ(o.timeout, std::chrono::milliseconds(2'500));
    ASSERT_EQ(o.client_properties.size(), 2U);
    EXPECT_EQ(o.client_properties[0], (std::pair<std::string, std::string>{"security.protocol", "SSL"}));
    EXPECT_EQ(o.client_properties[1], (std::pair<std::string, std::string>{"a", "b=c"}));
}

TEST(GroupsArgs, GroupFlagIsTheKafkaSpelling) {
    EXPECT_EQ(parse_groups_args({"--group", "g2", "delete"}).group, "g2");
    EXPECT_EQ(parse_groups_args({"delete", "--group=g3"}).group, "g3");
    EXPECT_THROW(parse_groups_args({"delete", "g", "--group", "h"}), UsageError);
}

TEST(GroupsArgs, ResetOffsetsVariants) {
    auto o = parse_groups_args({"reset-offsets", "g", "--topic", "t", "--to-earliest"});
    EXPECT_EQ(o.action, GroupsAction::ResetOffsets);
    ASSERT_TRUE(o.reset.has_value());
    EXPECT_EQ(o.reset->kind, ResetSpec::Kind::Earliest);
    EXPECT_FALSE(o.execute);
    ASSERT_EQ(o.topics.size(), 1U);
    EXPECT_EQ(o.topics[0].topic, "t");
    EXPECT_TRUE(o.topics[0].partitions.empty());

    o = parse_groups_args(
        {"reset-offsets", "g", "--topic", "t:2,0,2", "--topic", "u", "--to-offset", "42", "--execute"});
    EXPECT_EQ(o.reset->kind, ResetSpec::Kind::Offset);
    EXPECT_EQ(o.reset->value, 42);
    EXPECT_TRUE(o.execute);
    ASSERT_EQ(o.topics.size(), 2U);
    EXPECT_EQ(o.topics[0].partitions, (std::vector<std::int32_t>{0, 2}));
    EXPECT_EQ(o.topics[1].topic, "u");

    o = parse_groups_args({"reset-offsets", "g", "--all-topics", "--to-latest", "--dry-run"});
    EXPECT_TRUE(o.all_topics);
    EXPECT_EQ(o.reset->kind, ResetSpec::Kind::Latest);

    o = parse_groups_args({"reset-offsets", "g", "--topic", "t", "--shift-by", "-3"});
    EXPECT_EQ(o.reset->kind, ResetSpec::Kind::ShiftBy);
    EXPECT_EQ(o.reset->value, -3);

    o = parse_groups_args({"reset-offsets", "g", "--topic", "t", "--to-datetime", "2026-12-01T10:00:00Z"});
    EXPECT_EQ(o.reset->kind, ResetSpec::Kind::Datetime);
    EXPECT_EQ(o.reset->value, 1'796'119'200'000);
}

TEST(GroupsArgs, DescribeAcceptsTopicFilter) {
    const auto o = parse_groups_args({"describe", "g", "--topic", "t"});
    ASSERT_EQ(o.topics.size(), 1U);
    EXPECT_EQ(o.topics[0].topic, "t");
}

TEST(GroupsArgs, HelpWinsOverEverythingElse) {
    EXPECT_EQ(parse_groups_args({"--help"}).action, GroupsAction::Help);
    EXPECT_EQ(parse_groups_args({"reset-offsets", "-h"}).action, GroupsAction::Help);
}

TEST(GroupsArgs, UsageErrors) {
    const std::vector<Args> bad = {
        {},
        {"frobnicate"},
        {"describe"},
        {"delete"},
        {"list", "g"},
        {"describe", "g", "h"},
        {"describe", ""},
        {"describe", "g", "--to-earliest"},
        {"describe", "g", "--execute"},
        {"delete", "g", "--topic", "t"},
        {"list", "--topic", "t"},
        {"describe", "g", "--state"},
        {"reset-offsets", "g", "--topic", "t"},                                   // no target
        {"reset-offsets", "g", "--to-earliest"},                                  // no scope
        {"reset-offsets", "g", "--topic", "t", "--all-topics", "--to-earliest"},  // two scopes
        {"reset-offsets", "g", "--topic", "t", "--to-earliest", "--to-latest"},   // two targets
        {"reset-offsets", "g", "--topic", "t", "--to-earliest", "--execute", "--dry-run"},
        {"reset-offsets", "g", "--topic", "t", "--to-offset", "-1"},
        {"reset-offsets", "g", "--topic", "t", "--to-offset", "12x"},
        {"reset-offsets", "g", "--topic", "t", "--to-offset"},
        {"reset-offsets", "g", "--topic", "t:", "--to-earliest"},
        {"reset-offsets", "g", "--topic", "t:a", "--to-earliest"},
        {"reset-offsets", "g", "--topic", ":1", "--to-earliest"},
        {"reset-offsets", "g", "--topic", "t", "--to-datetime", "yesterday"},
        {"reset-offsets", "g", "--topic", "t", "--to-earliest=1"},
        {"list", "--timeout-ms", "0"},
        {"list", "--timeout-ms", "soon"},
        {"list", "--bootstrap-server", ""},
        {"list", "-X", "novalue"},
        {"list", "--bogus"},
    };
    for (const auto& args : bad) {
        std::string joined;
        for (const auto& a : args) joined += "'" + a + "' ";
        EXPECT_THROW(parse_groups_args(args), UsageError) << joined;
    }
}

TEST(GroupsArgs, TimestampsInUtcAndWithOffsets) {
    EXPECT_EQ(parse_timestamp_ms("1970-01-01T00:00:00Z"), 0);
    EXPECT_EQ(parse_timestamp_ms("2026-12-01T10:00:00Z"), 1'796'119'200'000);
    EXPECT_EQ(parse_timestamp_ms("2026-12-01T10:00:00.5Z"), 1'796'119'200'500);
    EXPECT_EQ(parse_timestamp_ms("2026-12-01T10:00:00.123456Z"), 1'796'119'200'123);
    EXPECT_EQ(parse_timestamp_ms("2026-12-01T12:00:00+02:00"), 1'796'119'200'000);
    EXPECT_EQ(parse_timestamp_ms("2026-12-01T05:30:00-0430"), 1'796'119'200'000);
    EXPECT_EQ(parse_timestamp_ms("2024-02-29T00:00:00Z"), 1'709'164'800'000);
    EXPECT_EQ(parse_timestamp_ms("1796119200000"), 1'796'119'200'000);
}

TEST(GroupsArgs, TimestampWithoutZoneIsLocalTime) {
    const char* old = std::getenv("TZ");
    const std::string saved = old != nullptr ? old : "";
    ::setenv("TZ", "UTC-3", 1);  // POSIX sign: three hours east of UTC
    ::tzset();
    const auto ms = parse_timestamp_ms("2026-12-01T13:00:00");
    if (old != nullptr) {
        ::setenv("TZ", saved.c_str(), 1);
    } else {
        ::unsetenv("TZ");
    }
    ::tzset();
    EXPECT_EQ(ms, 1'796'119'200'000);
}

TEST(GroupsArgs, BadTimestamps) {
    for (const char* text :
         {"", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-12-01", "2026-12-01T24:00:00Z", "2026-12-01T10:00Z",
          "2026-12-01T10:00:00X", "2026-12-01T10:00:00.Z", "2026-12-01 10:00:00Z", "1969-12-31T23:59:59Z",
          "2026-12-01T10:00:00+25:00", "99999999999999999999999"}) {
        EXPECT_THROW(parse_timestamp_ms(text), UsageError) << text;
    }
}

TEST(GroupsCli, UsageErrorExitsTwoAndHelpExitsZero) {
    std::ostringstream out;
    std::ostringstream err;
    EXPECT_EQ(run_groups({"describe"}, out, err), 2);
    EXPECT_NE(err.str().find("missing GROUP"), std::string::npos) << err.str();
    EXPECT_TRUE(out.str().empty());

    std::ostringstream out2;
    std::ostringstream err2;
    EXPECT_EQ(run_groups({"--help"}, out2, err2), 0);
    EXPECT_NE(out2.str().find("reset-offsets GROUP"), std::string::npos);
    EXPECT_TRUE(err2.str().empty());
}

TEST(GroupsCli, BadClientPropertyFailsWithoutContactingABroker) {
    std::ostringstream out;
    std::ostringstream err;
    EXPECT_EQ(run_groups({"-X", "no.such.property=1", "list"}, out, err), 1);
    EXPECT_NE(err.str().find("no.such.property"), std::string::npos) << err.str();
}

}  // namespace
}  // namespace weir::cli
