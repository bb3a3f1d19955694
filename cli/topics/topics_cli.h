#pragma once

// `weir topics`: kafka-topics.sh (Kafka 3.7's command line and output) over the Kafka protocol
// (librdkafka), so that `exec weir topics "$@"` can stand in for it against any Kafka cluster and Weir.
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "cli/topics/topic_admin.h"

namespace weir::cli::topics {

// args: what follows `weir topics`. Returns the exit code: 0 ok, 1 anything else, as Kafka.
int topics_main(const std::vector<std::string>& args);

using TopicAdminFactory = std::function<std::unique_ptr<TopicAdmin>(const AdminConfig&)>;

// topics_main writing to the given streams; `admin` builds the cluster client (default: KafkaTopicAdmin).
int run_topics(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
               const TopicAdminFactory& admin = {});

}  // namespace weir::cli::topics
