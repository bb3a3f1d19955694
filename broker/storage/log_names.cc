#include "broker/storage/log_names.h"

#include <charconv>
#include <cstdio>

namespace weir::storage {
namespace {

template <typename T>
std::optional<T> parse_digits(std::string_view s) {
    if (s.empty()) return std::nullopt;
    for (char c : s)
        if (c < '0' || c > '9') return std::nullopt;
    T value{};
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec != std::errc{} || ptr != s.data() + s.size()) return std::nullopt;
    return value;
}

}  // namespace

std::string partition_dir_name(const TopicPartition& tp) { return tp.to_string(); }

std::optional<TopicPartition> parse_partition_dir_name(std::string_view name) {
    auto dash = name.rfind('-');
    if (dash == std::string_view::npos || dash == 0) return std::nullopt;
    auto partition = parse_digits<std::int32_t>(name.substr(dash + 1));
    if (!partition) return std::nullopt;
    return TopicPartition{std::string(name.substr(0, dash)), *partition};
}

std::string segment_file_name(std::int64_t base_offset, std::string_view suffix) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%020lld", static_cast<long long>(base_offset));
    return std::string(buf) + std::string(suffix);
}

std::optional<std::int64_t> parse_segment_file_name(std::string_view name, std::string_view suffix) {
    if (name.size() != 20 + suffix.size() || !name.ends_with(suffix)) return std::nullopt;
    return parse_digits<std::int64_t>(name.substr(0, 20));
}

}  // namespace weir::storage
