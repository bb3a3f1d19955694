#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace weir::metadata {

inline constexpr std::string_view kConsumerOffsetsTopic = "__consumer_offsets";
inline constexpr std::string_view kTransactionStateTopic = "__transaction_state";
inline constexpr std::size_t kMaxTopicNameLength = 249;

// Kafka's Topic.validate: 1..249 chars of [a-zA-Z0-9._-], not "." or "..".
// Returns Kafka's message for an invalid name.
std::optional<std::string> validate_topic_name(std::string_view name);

// Kafka's Topic.isInternal.
bool is_internal_topic(std::string_view name) noexcept;

// '.' and '_' collide in metric names, so Kafka refuses "a.b" next to "a_b".
bool topic_names_collide(std::string_view a, std::string_view b) noexcept;

}  // namespace weir::metadata
