#pragma once

// What Kafka's Java client says for an error code when the broker sent no message of its own
// (the default messages of org.apache.kafka.common.protocol.Errors), so that kafka-topics.sh's
// errors read the same whichever client produced them.
#include <optional>
#include <string_view>

namespace weir::cli::topics {

// nullopt for the codes kafka-topics.sh is not expected to meet.
std::optional<std::string_view> java_error_message(int code);

}  // namespace weir::cli::topics
