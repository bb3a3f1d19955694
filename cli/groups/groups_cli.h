#pragma once

// `weir groups`: kafka-consumer-groups.sh's list / describe / reset-offsets / delete,
// over the Kafka protocol (librdkafka), so it works against any Kafka broker and Weir.
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "cli/groups/kafka_admin.h"

namespace weir::cli {

// args: what follows `weir groups`. Returns the exit code: 0 ok, 1 the operation failed, 2 usage error.
int groups_main(const std::vector<std::string>& args);

using AdminFactory = std::function<std::unique_ptr<GroupAdmin>(const AdminConfig&)>;

// groups_main writing to the given streams; `admin` builds the cluster client (default: KafkaAdmin).
int run_groups(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
               const AdminFactory& admin = {});

}  // namespace weir::cli
