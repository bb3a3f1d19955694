#pragma once
// `weir log-dirs --describe`: Kafka's kafka-log-dirs.sh (LogDirsCommand). Asks
// each broker (all of them, or --broker-list) for its log dirs with
// DescribeLogDirs and prints Kafka's JSON: per broker, per dir, the error (a
// Kafka exception class name, or null) and each partition's size, offset lag
// and whether it is a future log. --topic-list keeps those topics' partitions.
#include <iosfwd>
#include <string>
#include <vector>

#include "messages/describe_log_dirs.h"

namespace weir::cli::logdirs {

// Exit codes: 0 done, 1 the cluster failed, 2 a bad command line.
int log_dirs_main(const std::vector<std::string>& args);
int run_log_dirs(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

struct BrokerLogDirs {
    std::int32_t broker = 0;
    msg::DescribeLogDirsResponse response;
};
// Kafka's JSON document for these answers; `topics` empty keeps every topic.
std::string log_dirs_json(const std::vector<BrokerLogDirs>& brokers, const std::vector<std::string>& topics);

}  // namespace weir::cli::logdirs
