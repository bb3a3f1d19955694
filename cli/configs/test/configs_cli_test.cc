#include "cli/configs/configs_cli.h"

#include <gtest/gtest.h>

#include <sstream>

#include "cli/configs/configs_args.h"
#include "cli/topics/test/fake_topic_admin.h"

namespace weir::cli::configs {
namespace {

using topics::test::CliResult;
using topics::test::FakeCluster;

class ConfigsCliTest : public ::testing::Test {
protected:
    CliResult configs(std::vector<std::string> args) {
        args.insert(args.begin(), {"--bootstrap-server", "kafka:9092"});
        std::ostringstream out;
        std::ostringstream err;
        CliResult r;
        r.code = run_configs(args, out, err, topics::test::fake_admin(cluster_));
        r.out = out.str();
        r.err = err.str();
        return r;
    }
    FakeCluster cluster_;
};

TEST_F(ConfigsCliTest, DescribeShowsTheOverridesAsKafkaConfigsDoes) {
    cluster_.add_topic("orders", 1, 1, {{"retention.ms", "1000"}, {"segment.bytes", "1048576"}});
    auto r = configs({"--entity-type", "topics", "--entity-name", "orders", "--describe"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out,
              "Dynamic configs for topic orders are:\n"
              "  retention.ms=1000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=1000, "
              "DEFAULT_CONFIG:log.retention.ms=604800000}\n"
              "  segment.bytes=1048576 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:segment.bytes=1048576}\n");
    auto all = configs({"--topic", "orders", "--describe", "--all"});
    ASSERT_EQ(all.code, 0) << all.err;
    EXPECT_NE(all.out.find("All configs for topic orders are:\n  cleanup.policy=delete sensitive=false "
                           "synonyms={DEFAULT_CONFIG:cleanup.policy=delete}\n"),
              std::string::npos)
        << all.out;
}

TEST_F(ConfigsCliTest, AlterAddsAndDeletesKeepingTheOtherOverrides) {
    cluster_.add_topic("orders", 1, 1, {{"retention.ms", "1000"}, {"segment.bytes", "1048576"}});
    auto r = configs({"--topic", "orders", "--alter", "--add-config",
                      "cleanup.policy=[compact,delete],max.message.bytes=2000", "--delete-config", "retention.ms"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "Completed updating config for topic orders.\n");
    EXPECT_EQ(cluster_.topics["orders"].overrides,
              (std::map<std::string, std::string>{
                  {"cleanup.policy", "compact,delete"}, {"max.message.bytes", "2000"}, {"segment.bytes", "1048576"}}));
}

TEST_F(ConfigsCliTest, DeletingAKeyThatIsNotSetIsRefusedAndNothingChanges) {
    cluster_.add_topic("orders", 1, 1, {{"retention.ms", "1000"}});
    auto r = configs({"--topic", "orders", "--alter", "--delete-config", "retention.ms,nope,also.nope"});
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(r.err, "Invalid config(s): nope,also.nope\n");
    EXPECT_EQ(cluster_.topics["orders"].overrides, (std::map<std::string, std::string>{{"retention.ms", "1000"}}));
}

TEST_F(ConfigsCliTest, ClusterErrorsAreReportedWithTheArguments) {
    cluster_.add_topic("orders", 1);
    cluster_.fail_next = topics::AdminError(3, "This server does not host this topic-partition.");
    auto r = configs({"--topic", "orders", "--describe"});
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(r.err,
              "Error while executing config command with args '--bootstrap-server kafka:9092 --topic orders "
              "--describe'\nThis server does not host this topic-partition.\n");
}

TEST(ConfigsArgs, AddConfigFormatAndUsageErrors) {
    EXPECT_EQ(parse_configs_to_add("a=1, b = [x,y] ,c="),
              (std::vector<std::pair<std::string, std::string>>{{"a", "1"}, {"b", "x,y"}, {"c", ""}}));
    EXPECT_THROW(parse_configs_to_add("a"), ConfigsUsageError);
    EXPECT_THROW(parse_configs_to_add("a=1=2"), ConfigsUsageError);
    const auto refused = [](std::vector<std::string> args) {
        try {
            parse_configs_args(args);
        } catch (const ConfigsUsageError& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    EXPECT_EQ(refused({"--topic", "t", "--describe"}),
              "Exactly one of --bootstrap-server or --bootstrap-controller must be specified");
    EXPECT_EQ(refused({"--bootstrap-server", "b", "--topic", "t"}),
              "Command must include exactly one action: --describe, --alter");
    EXPECT_EQ(refused({"--bootstrap-server", "b", "--topic", "t", "--alter"}),
              "At least one of --add-config or --delete-config must be specified with --alter");
    EXPECT_NE(refused({"--bootstrap-server", "b", "--entity-type", "brokers", "--entity-name", "0", "--describe"})
                  .find("topics only"),
              std::string::npos);
    EXPECT_EQ(refused({"--bootstrap-server", "b", "--topic", "t", "--describe", "--add-config", "a=1"}),
              "Option \"[add-config]\" and \"[delete-config]\" can only be used with \"[alter]\"");
    EXPECT_EQ(refused({"--bootstrap-server", "b", "--topic", "t", "--describe", "--bogus"}),
              "--bogus is not a recognized option");
}

}  // namespace
}  // namespace weir::cli::configs
