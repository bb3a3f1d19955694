#pragma once

// The admin client settings of the Kafka tools (`weir topics`, `weir configs`): the bootstrap
// servers and the Java client's --command-config property file.
#include <iosfwd>
#include <optional>
#include <string>

#include "cli/topics/topic_admin.h"

namespace weir::cli::topics {

// The Java client's own timeout key (default.api.timeout.ms) sets our bound; the rest go to
// librdkafka, except the keys it does not know, which are dropped with the Java client's warning
// for an unknown key (on `err`). Throws std::runtime_error on an unreadable file or a bad timeout.
AdminConfig admin_config(const std::string& bootstrap, const std::optional<std::string>& command_config,
                         std::ostream& err);

}  // namespace weir::cli::topics
