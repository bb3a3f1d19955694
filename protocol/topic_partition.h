#pragma once
// A partition of a topic, as every layer names it: the wire, storage (its
// directory name), the partition layer, the group coordinator and the tools.
// Header-only so that libraries not linking weir_protocol (cli/) can use it.
#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

namespace weir {

struct TopicPartition {
    std::string topic;
    std::int32_t partition = 0;

    // Kafka's TopicPartition.toString(): `<topic>-<partition>`.
    [[nodiscard]] std::string to_string() const { return topic + "-" + std::to_string(partition); }

    auto operator<=>(const TopicPartition&) const = default;
    bool operator==(const TopicPartition&) const = default;
};

// gtest and logs print it as Kafka does.
inline std::ostream& operator<<(std::ostream& out, const TopicPartition& tp) { return out << tp.to_string(); }

}  // namespace weir

template <>
struct std::hash<weir::TopicPartition> {
    std::size_t operator()(const weir::TopicPartition& tp) const noexcept {
        // Kafka's TopicPartition.hashCode: 31 * (31 + partition) + topic.hashCode().
        return 31 * (31 + static_cast<std::size_t>(tp.partition)) + std::hash<std::string>{}(tp.topic);
    }
};
