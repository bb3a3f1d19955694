#pragma once

// The actions of kafka-topics.sh, as Kafka 3.7's TopicCommand.TopicService runs them: each writes
// what Kafka writes to stdout and throws CommandError or AdminError where Kafka fails.
#include <iosfwd>

#include "cli/topics/topic_admin.h"
#include "cli/topics/topics_args.h"

namespace weir::cli::topics {

void run_topic_command(TopicAdmin& admin, const TopicsOptions& options, std::ostream& out);

}  // namespace weir::cli::topics
