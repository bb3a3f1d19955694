#include "cli/topics/topics_cli.h"

#include <fmt/format.h>

#include <charconv>
#include <iostream>

#include "cli/topics/admin_config.h"
#include "cli/topics/kafka_topic_admin.h"
#include "cli/topics/topic_commands.h"
#include "cli/topics/topics_args.h"
#include "cli/topics/topics_errors.h"

namespace weir::cli::topics {

namespace {

constexpr int kOk = 0;
constexpr int kFailed = 1;

// Kafka prints this line on stdout and logs the exception on stderr; scripts read either.
void report_failure(const std::string& message, const std::string& hint, std::ostream& out, std::ostream& err) {
    out << "Error while executing topic command : " << message << '\n';
    err << "ERROR " << message << hint << '\n';
}

}  // namespace

int run_topics(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
               const TopicAdminFactory& admin_factory) {
    TopicsOptions o;
    try {
        o = parse_topics_args(args);
    } catch (const UsageError& e) {
        err << e.what() << '\n';
        if (e.with_usage()) err << topics_usage_text();
        return kFailed;
    } catch (const CommandError& e) {
        report_failure(e.what(), "", out, err);
        return kFailed;
    }

    // Kafka builds its admin client before executing, so these failures are plain messages on stderr.
    AdminConfig config;
    std::unique_ptr<TopicAdmin> admin;
    try {
        config = admin_config(o.bootstrap, o.command_config, err);
        admin = admin_factory ? admin_factory(config) : std::make_unique<KafkaTopicAdmin>(config);
    } catch (const std::exception& e) {
        err << e.what() << '\n';
        return kFailed;
    }

    try {
        run_topic_command(*admin, o, out);
        return kOk;
    } catch (const AdminError& e) {
        // librdkafka's own errors ("Local: Timed out", "Local: Broker transport failure") usually
        // mean the cluster was not reached: say where we looked and for how long.
        std::string hint;
        if (e.code() < 0)
            hint = fmt::format(" (bootstrap {}, timeout {} ms)", config.bootstrap, config.timeout.count());
        report_failure(e.what(), hint, out, err);
    } catch (const std::exception& e) {
        report_failure(e.what(), "", out, err);
    }
    return kFailed;
}

int topics_main(const std::vector<std::string>& args) { return run_topics(args, std::cout, std::cerr); }

}  // namespace weir::cli::topics
