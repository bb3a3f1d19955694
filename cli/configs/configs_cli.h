#pragma once

// `weir configs`: Kafka 3.7's kafka-configs.sh for topic configs (describe, and alter with
// --add-config/--delete-config) over the Kafka protocol, so that it works against any Kafka
// cluster and Weir. Alters with AlterConfigs (librdkafka 2.0.2 has no IncrementalAlterConfigs):
// the topic's current overrides are read, changed and written back whole, as kafka-configs.sh
// did before Kafka 2.3.
#include <iosfwd>
#include <string>
#include <vector>

#include "cli/topics/topics_cli.h"

namespace weir::cli::configs {

// args: what follows `weir configs`. Returns the exit code: 0 ok, 1 anything else, as Kafka.
int configs_main(const std::vector<std::string>& args);

int run_configs(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
                const topics::TopicAdminFactory& admin = {});

}  // namespace weir::cli::configs
