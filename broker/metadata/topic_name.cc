#include "broker/metadata/topic_name.h"

namespace weir::metadata {

std::optional<std::string> validate_topic_name(std::string_view name) {
    if (name.empty()) return std::string("Topic name is illegal, it can't be empty");
    if (name == "." || name == "..") return std::string("Topic name cannot be \".\" or \"..\"");
    if (name.size() > kMaxTopicNameLength) {
        return "Topic name is illegal, it can't be longer than " + std::to_string(kMaxTopicNameLength) +
               " characters, topic name: " + std::string(name);
    }
    for (char c : name) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                        c == '_' || c == '-';
        if (!ok) {
            return "Topic name \"" + std::string(name) +
                   "\" is illegal, it contains a character other than ASCII alphanumerics, '.', '_' and '-'";
        }
    }
    return std::nullopt;
}

bool is_internal_topic(std::string_view name) noexcept {
    return name == kConsumerOffsetsTopic || name == kTransactionStateTopic;
}

bool topic_names_collide(std::string_view a, std::string_view b) noexcept {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        char x = a[i] == '.' ? '_' : a[i];
        char y = b[i] == '.' ? '_' : b[i];
        if (x != y) return false;
    }
    return true;
}

}  // namespace weir::metadata
