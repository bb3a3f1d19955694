#include "cli/topics/topic_filter.h"

#include <fmt/format.h>

#include <algorithm>

#include "cli/topics/topics_errors.h"

namespace weir::cli::topics {

namespace {

std::string clean(std::string_view raw) {
    while (!raw.empty() && static_cast<unsigned char>(raw.front()) <= ' ') raw.remove_prefix(1);
    while (!raw.empty() && static_cast<unsigned char>(raw.back()) <= ' ') raw.remove_suffix(1);
    std::string out;
    for (char c : raw) {
        if (c == ' ') continue;
        out += c == ',' ? '|' : c;
    }
    // Property files may bring quotes (Kafka's own reason for dropping them).
    const auto is_quote = [](char c) { return c == '"' || c == '\''; };
    const auto first = std::find_if_not(out.begin(), out.end(), is_quote);
    out.erase(out.begin(), first);
    while (!out.empty() && is_quote(out.back())) out.pop_back();
    return out;
}

std::regex compile(const std::string& java_regex) {
    try {
        bool icase = false;
        const std::string ecma = ecmascript_from_java(java_regex, icase);
        auto flags = std::regex::ECMAScript;
        if (icase) flags |= std::regex::icase;
        return std::regex(ecma, flags);
    } catch (const std::regex_error&) {
        throw CommandError(fmt::format("{} is an invalid regex.", java_regex));
    }
}

}  // namespace

TopicFilter::TopicFilter(std::string_view raw) : regex_(clean(raw)), pattern_(compile(regex_)) {}

bool TopicFilter::matches(const std::string& topic) const { return std::regex_match(topic, pattern_); }

bool is_internal_topic(std::string_view topic) {
    return topic == "__consumer_offsets" || topic == "__transaction_state";
}

std::vector<std::string> select_topics(const std::vector<std::string>& all, const std::optional<std::string>& include,
                                       bool exclude_internal) {
    std::optional<TopicFilter> filter;
    if (include) filter.emplace(*include);
    std::vector<std::string> out;
    for (const auto& topic : all) {
        if (exclude_internal && is_internal_topic(topic)) continue;
        if (filter && !filter->matches(topic)) continue;
        out.push_back(topic);
    }
    return out;
}

std::string ecmascript_from_java(std::string_view java, bool& icase) {
    icase = false;
    if (java.starts_with("(?i)")) {
        icase = true;
        java.remove_prefix(4);
    }
    constexpr std::string_view kSpecial = R"(\^$.|?*+()[]{}/)";
    std::string out;
    for (std::size_t i = 0; i < java.size(); ++i) {
        if (java[i] != '\\' || i + 1 == java.size()) {
            out += java[i];
            continue;
        }
        if (java[i + 1] != 'Q') {
            out += java.substr(i, 2);
            ++i;
            continue;
        }
        const auto end = java.find("\\E", i + 2);
        const auto quoted = java.substr(i + 2, end == std::string_view::npos ? std::string_view::npos : end - i - 2);
        for (char c : quoted) {
            if (kSpecial.find(c) != std::string_view::npos) out += '\\';
            out += c;
        }
        if (end == std::string_view::npos) break;
        i = end + 1;
    }
    return out;
}

}  // namespace weir::cli::topics
