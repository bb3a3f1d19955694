#pragma once

// Which topics --topic selects for --list, --describe, --alter and --delete: Kafka's
// TopicFilter.IncludeList, a Java regular expression that must match the whole name.
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace weir::cli::topics {

class TopicFilter {
public:
    // As Kafka cleans it: trimmed, commas become '|', spaces and surrounding quotes dropped.
    // Throws CommandError "<regex> is an invalid regex." when it does not compile.
    explicit TopicFilter(std::string_view raw);

    bool matches(const std::string& topic) const;
    const std::string& regex() const { return regex_; }

private:
    std::string regex_;
    std::regex pattern_;
};

// Kafka's internal topics (Topic.isInternal), which --exclude-internal leaves out.
bool is_internal_topic(std::string_view topic);

// The topics of `all` that `include` selects (every one without it), in `all`'s order.
std::vector<std::string> select_topics(const std::vector<std::string>& all, const std::optional<std::string>& include,
                                       bool exclude_internal);

// A Java regex in std::regex's ECMAScript dialect: \Q...\E quoting and a leading (?i) are
// rewritten; the rest of the common syntax is the same in both. Sets `icase` for (?i).
std::string ecmascript_from_java(std::string_view java, bool& icase);

}  // namespace weir::cli::topics
