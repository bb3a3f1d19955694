#pragma once

// `weir groups`: kafka-consumer-groups.sh's list / describe / reset-offsets / delete,
// over the Kafka protocol (librdkafka), so it works against any Kafka broker and Weir.
#include <iosfwd>
#include <string>
#include <vector>

namespace weir::tools {

// args: what follows `weir groups`. Returns the exit code: 0 ok, 1 the operation failed, 2 usage error.
int groups_main(const std::vector<std::string>& args);

// groups_main writing to the given streams (tests).
int run_groups(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace weir::tools
