#include "cli/topics/topics_args.h"

#include <gtest/gtest.h>

#include "cli/topics/topics_errors.h"

namespace weir::cli::topics {
namespace {

using Args = std::vector<std::string>;

std::string joined(const Args& args) {
    std::string out;
    for (const auto& a : args) out += "'" + a + "' ";
    return out;
}

// The UsageError `args` raise (message and whether the usage follows), or a failure.
std::pair<std::string, bool> usage_error(const Args& args) {
    try {
        parse_topics_args(args);
    } catch (const UsageError& e) {
        return {e.what(), e.with_usage()};
    } catch (const std::exception& e) {
        ADD_FAILURE() << joined(args) << "threw something else: " << e.what();
        return {};
    }
    ADD_FAILURE() << joined(args) << "was accepted";
    return {};
}

std::string command_error(const Args& args) {
    try {
        parse_topics_args(args);
    } catch (const CommandError& e) {
        return e.what();
    } catch (const std::exception& e) {
        ADD_FAILURE() << joined(args) << "threw something else: " << e.what();
        return {};
    }
    ADD_FAILURE() << joined(args) << "was accepted";
    return {};
}

TEST(TopicsArgs, CreateAsLibrdkafkasSuiteWritesIt) {
    // test_kafka_topics() in librdkafka's tests; the shell has removed the quotes around the name.
    const auto o = parse_topics_args({"--bootstrap-server", "127.0.0.1:9092", "--create", "--topic", "rdkafkatest_1",
                                      "--replication-factor", "1", "--partitions", "1", "--config",
                                      "message.timestamp.type=LogAppendTime"});
    EXPECT_EQ(o.action, TopicsAction::Create);
    EXPECT_EQ(o.bootstrap, "127.0.0.1:9092");
    EXPECT_EQ(o.topic, "rdkafkatest_1");
    EXPECT_EQ(o.partitions, 1);
    EXPECT_EQ(o.replication_factor, 1);
    EXPECT_EQ(o.configs, Args{"message.timestamp.type=LogAppendTime"});
    EXPECT_FALSE(o.if_not_exists);
}

TEST(TopicsArgs, EveryAction) {
    const Args base = {"--bootstrap-server", "b:9092"};
    auto with = [&](Args more) {
        Args a = base;
        a.insert(a.end(), more.begin(), more.end());
        return parse_topics_args(a);
    };
    EXPECT_EQ(with({"--list"}).action, TopicsAction::List);
    EXPECT_EQ(with({"--describe"}).action, TopicsAction::Describe);
    EXPECT_EQ(with({"--delete", "--topic", "t"}).action, TopicsAction::Delete);
    const auto alter = with({"--alter", "--topic", "t", "--partitions", "4"});
    EXPECT_EQ(alter.action, TopicsAction::Alter);
    EXPECT_EQ(alter.partitions, 4);
    const auto create = with({"--create", "--topic", "t"});
    EXPECT_FALSE(create.partitions.has_value());  // the cluster's default
    EXPECT_FALSE(create.replication_factor.has_value());
}

TEST(TopicsArgs, JoptSimpleSpellings) {
    // --name=value, single-dash long names, a value that looks like an option, flags anywhere,
    // ignored words, and "--" ending the options.
    const auto o = parse_topics_args({"extra", "-bootstrap-server=h:1", "--describe", "--topic", "--weird",
                                      "--exclude-internal=yes", "--", "--create"});
    EXPECT_EQ(o.action, TopicsAction::Describe);
    EXPECT_EQ(o.bootstrap, "h:1");
    EXPECT_EQ(o.topic, "--weird");
    EXPECT_TRUE(o.exclude_internal);
}

TEST(TopicsArgs, DescribeReportOptions) {
    const auto o = parse_topics_args({"--bootstrap-server", "b", "--describe", "--under-replicated-partitions",
                                      "--unavailable-partitions", "--under-min-isr-partitions",
                                      "--at-min-isr-partitions", "--if-exists", "--topic", "t"});
    EXPECT_TRUE(o.under_replicated);
    EXPECT_TRUE(o.unavailable);
    EXPECT_TRUE(o.under_min_isr);
    EXPECT_TRUE(o.at_min_isr);
    EXPECT_TRUE(o.if_exists);
    EXPECT_TRUE(parse_topics_args({"--bootstrap-server", "b", "--describe", "--topics-with-overrides"}).with_overrides);
}

TEST(TopicsArgs, ConfigsAreRepeatable) {
    const auto o = parse_topics_args({"--bootstrap-server", "b", "--create", "--topic", "t", "--config", "a=1",
                                      "--config=b = 2", "--if-not-exists"});
    EXPECT_EQ(o.configs, (Args{"a=1", "b = 2"}));
    EXPECT_TRUE(o.if_not_exists);
}

TEST(TopicsArgs, NoArgumentsAndHelpPrintTheUsage) {
    EXPECT_EQ(usage_error({}), std::make_pair(std::string("Create, delete, describe, or change a topic."), true));
    EXPECT_EQ(usage_error({"--list", "--help"}),
              std::make_pair(std::string("This tool helps to create, delete, describe, or change a topic."), true));
}

TEST(TopicsArgs, ZookeeperIsNotAnOptionAnyMore) {
    const auto [message, with_usage] = usage_error({"--zookeeper", "localhost:2181", "--list"});
    EXPECT_EQ(message.substr(0, message.find('\n')), "zookeeper is not a recognized option");
    EXPECT_NE(message.find("use --bootstrap-server"), std::string::npos) << message;
    EXPECT_FALSE(with_usage);
}

TEST(TopicsArgs, ParserErrorsAsJoptSimpleWordsThem) {
    EXPECT_EQ(usage_error({"--bootstrap-server", "b", "--list", "--bogus"}),
              std::make_pair(std::string("bogus is not a recognized option"), false));
    EXPECT_EQ(usage_error({"--bootstrap-server", "b", "--list", "-xyz"}),
              std::make_pair(std::string("x is not a recognized option"), false));
    EXPECT_EQ(usage_error({"--list", "--bootstrap-server"}),
              std::make_pair(std::string("Option bootstrap-server requires an argument"), false));
    EXPECT_EQ(
        usage_error({"--bootstrap-server", "a", "--bootstrap-server", "b", "--list"}),
        std::make_pair(std::string("Found multiple arguments for option bootstrap-server, but you asked for only one"),
                       false));
}

TEST(TopicsArgs, TopicCommandChecksInKafkasOrder) {
    const std::string one_action =
        "Command must include exactly one action: --list, --describe, --create, --alter or --delete";
    const std::vector<std::pair<Args, std::pair<std::string, bool>>> cases = {
        {{"--bootstrap-server", "b"}, {one_action, true}},
        {{"--bootstrap-server", "b", "--list", "--describe"}, {one_action, true}},
        {{"--list"}, {"--bootstrap-server must be specified", false}},
        {{"--bootstrap-server", "b", "--describe", "--if-exists"},
         {"--topic or --topic-id is required to describe a topic", true}},
        {{"--bootstrap-server", "b", "--create"}, {"Missing required argument \"[topic]\"", true}},
        {{"--bootstrap-server", "b", "--delete"}, {"Missing required argument \"[topic]\"", true}},
        {{"--bootstrap-server", "b", "--alter", "--topic", "t"}, {"Missing required argument \"[partitions]\"", true}},
        {{"--bootstrap-server", "b", "--alter", "--topic", "t", "--partitions", "2", "--config", "a=b"},
         {"Option combination \"[[bootstrap-server], [config]]\" can't be used with option \"[alter]\" (the "
          "kafka-configs CLI supports altering topic configs with a --bootstrap-server option)",
          true}},
        {{"--bootstrap-server", "b", "--list", "--config", "a=b"},
         {"Option \"[config]\" can't be used with option \"[list]\"", true}},
        {{"--bootstrap-server", "b", "--describe", "--partitions", "2"},
         {"Option \"[partitions]\" can't be used with option \"[describe]\"", true}},
        {{"--bootstrap-server", "b", "--alter", "--topic", "t", "--partitions", "2", "--replication-factor", "1"},
         {"Option \"[replication-factor]\" can't be used with option \"[alter]\"", true}},
        {{"--bootstrap-server", "b", "--create", "--topic", "t", "--replica-assignment", "1", "--partitions", "1"},
         {"Option \"[replica-assignment]\" can't be used with option \"[partitions]\"", true}},
        {{"--bootstrap-server", "b", "--create", "--topic", "t", "--replica-assignment", "1", "--replication-factor",
          "1"},
         {"Option \"[replica-assignment]\" can't be used with option \"[replication-factor]\"", true}},
        {{"--bootstrap-server", "b", "--list", "--under-replicated-partitions"},
         {"Option \"[under-replicated-partitions]\" can't be used with option \"[list]\"", true}},
        {{"--bootstrap-server", "b", "--describe", "--unavailable-partitions", "--topics-with-overrides"},
         {"Option \"[unavailable-partitions]\" can't be used with option \"[topics-with-overrides]\"", true}},
        {{"--bootstrap-server", "b", "--create", "--topic", "t", "--if-exists"},
         {"Option \"[if-exists]\" can't be used with option \"[create]\"", true}},
        {{"--bootstrap-server", "b", "--delete", "--topic", "t", "--if-not-exists"},
         {"Option \"[if-not-exists]\" can't be used with option \"[delete]\"", true}},
        {{"--bootstrap-server", "b", "--delete", "--topic", "t", "--exclude-internal"},
         {"Option \"[exclude-internal]\" can't be used with option \"[delete]\"", true}},
        {{"--bootstrap-server", "b", "--alter", "--topic", "t", "--partitions", "2", "--delete-config", "x"},
         {"Option \"[delete-config]\" can't be used with option \"[bootstrap-server]\"", true}},
    };
    for (const auto& [args, expected] : cases) EXPECT_EQ(usage_error(args), expected) << joined(args);
}

TEST(TopicsArgs, ValuesAreConvertedWhenTheCommandRuns) {
    EXPECT_EQ(command_error({"--bootstrap-server", "b", "--create", "--topic", "t", "--partitions", "two"}),
              "Cannot parse argument 'two' of option partitions");
    EXPECT_EQ(
        command_error({"--bootstrap-server", "b", "--create", "--topic", "t", "--replication-factor", "99999999999"}),
        "Cannot parse argument '99999999999' of option replication-factor");
    EXPECT_EQ(command_error({"--bootstrap-server", "b", "--delete", "--topic", "a", "--topic", "b"}),
              "Found multiple arguments for option topic, but you asked for only one");
    // Integer.valueOf's syntax: a sign is fine, checking the range is TopicCommand's job.
    EXPECT_EQ(
        parse_topics_args({"--bootstrap-server", "b", "--create", "--topic", "t", "--partitions", "-3"}).partitions,
        -3);
    EXPECT_EQ(
        parse_topics_args({"--bootstrap-server", "b", "--create", "--topic", "t", "--partitions", "+3"}).partitions, 3);
}

TEST(TopicsArgs, ReplicaAssignment) {
    EXPECT_EQ(parse_replica_assignment("0:1,1:2, 2 : 0"),
              (std::vector<std::vector<std::int32_t>>{{0, 1}, {1, 2}, {2, 0}}));
    EXPECT_EQ(parse_replica_assignment("3"), (std::vector<std::vector<std::int32_t>>{{3}}));
    EXPECT_EQ(parse_replica_assignment("1,2,"), (std::vector<std::vector<std::int32_t>>{{1}, {2}}));  // String.split
    EXPECT_TRUE(parse_replica_assignment(",").empty());

    auto error = [](std::string_view text) {
        try {
            parse_replica_assignment(text);
        } catch (const CommandError& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    EXPECT_EQ(error("1:x"), "For input string: \"x\"");
    EXPECT_EQ(error("1,,2"), "For input string: \"\"");
    EXPECT_EQ(error("1:2:1:2"), "Partition replica lists may not contain duplicate entries: 1,2");
    EXPECT_EQ(error("1:2,3"), "Partition 1 has different replication factor: [3]");
    EXPECT_EQ(error("1:2,3:4:5"), "Partition 1 has different replication factor: [3, 4, 5]");
}

TEST(TopicsArgs, TopicConfigs) {
    EXPECT_EQ(
        parse_topic_configs({"cleanup.policy=compact", " retention.ms = 1000 ", "cleanup.policy=delete"}),
        (std::vector<std::pair<std::string, std::string>>{{"cleanup.policy", "delete"}, {"retention.ms", "1000"}}));
    EXPECT_EQ(parse_topic_configs({"a=b="}), (std::vector<std::pair<std::string, std::string>>{{"a", "b"}}));
    const std::string bad =
        "requirement failed: Invalid topic config: all configs to be added must be in the format \"key=val\".";
    for (const char* text : {"novalue", "a=", "a = ", "a=b=c"}) {
        try {
            parse_topic_configs({text});
            ADD_FAILURE() << text << " was accepted";
        } catch (const CommandError& e) {
            EXPECT_EQ(e.what(), bad) << text;
        }
    }
}

TEST(TopicsArgs, UsageListsTheOptions) {
    const std::string usage = topics_usage_text();
    for (const char* option : {"--alter", "--bootstrap-server", "--command-config", "--config", "--create", "--delete",
                               "--describe", "--exclude-internal", "--if-exists", "--if-not-exists", "--list",
                               "--partitions", "--replica-assignment", "--replication-factor", "--topic",
                               "--topics-with-overrides", "--unavailable-partitions", "--under-replicated-partitions"})
        EXPECT_NE(usage.find(std::string("\n") + option + " "), std::string::npos) << option;
}

}  // namespace
}  // namespace weir::cli::topics
