#include "cli/groups/groups_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace weir::cli {

namespace {

std::string or_dash(const std::string& s) { return s.empty() ? "-" : s; }

std::string or_dash(const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : "-"; }

bool selected(const std::vector<std::string>& topics, const std::string& topic) {
    return topics.empty() || std::find(topics.begin(), topics.end(), topic) != topics.end();
}

std::optional<std::int64_t> known(const std::map<TopicPartition, std::int64_t>& m, const TopicPartition& tp) {
    auto it = m.find(tp);
    if (it == m.end() || it->second < 0) return std::nullopt;
    return it->second;
}

}  // namespace

std::optional<std::int64_t> DescribeRow::lag() const {
    if (!current_offset || !log_end_offset) return std::nullopt;
    return *log_end_offset - *current_offset;  // may be negative after truncation; shown as is, like Kafka
}

std::vector<DescribeRow> describe_rows(const std::optional<GroupDescription>& group,
                                       const std::map<TopicPartition, std::int64_t>& committed,
                                       const std::map<TopicPartition, std::int64_t>& log_end,
                                       const std::vector<std::string>& topics) {
    std::vector<DescribeRow> rows;
    std::set<TopicPartition> assigned;
    if (group) {
        for (const auto& m : group->members) {
            bool any = false;
            for (const auto& tp : m.assignment) {
                if (!selected(topics, tp.topic)) continue;
                any = true;
                assigned.insert(tp);
                rows.push_back({tp, known(committed, tp), known(log_end, tp), m.consumer_id, m.host, m.client_id});
            }
            if (!any && m.assignment.empty())
                rows.push_back({std::nullopt, {}, {}, m.consumer_id, m.host, m.client_id});
        }
    }
    for (const auto& [tp, offset] : committed) {
        if (offset < 0 || assigned.contains(tp) || !selected(topics, tp.topic)) continue;
        rows.push_back({tp, offset, known(log_end, tp), {}, {}, {}});
    }
    // Members without partitions last, as kafka-consumer-groups.sh lists them.
    std::stable_sort(rows.begin(), rows.end(), [](const DescribeRow& a, const DescribeRow& b) {
        if (a.tp.has_value() != b.tp.has_value()) return a.tp.has_value();
        if (!a.tp) return false;
        return *a.tp < *b.tp;
    });
    return rows;
}

std::vector<TopicPartition> partitions_of(const std::vector<DescribeRow>& rows) {
    std::vector<TopicPartition> out;
    for (const auto& r : rows)
        if (r.tp) out.push_back(*r.tp);
    return out;
}

std::string format_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
    std::vector<std::size_t> width(header.size(), 0);
    for (std::size_t c = 0; c < header.size(); ++c) width[c] = header[c].size();
    for (const auto& row : rows)
        for (std::size_t c = 0; c < row.size() && c < width.size(); ++c) width[c] = std::max(width[c], row[c].size());
    std::string out;
    auto line = [&](const std::vector<std::string>& cells) {
        std::string text;
        for (std::size_t c = 0; c < cells.size(); ++c) {
            if (c + 1 == cells.size()) {
                text += cells[c];
            } else {
                text += fmt::format("{:<{}} ", cells[c], width[c]);
            }
        }
        while (!text.empty() && text.back() == ' ') text.pop_back();
        out += text;
        out += '\n';
    };
    line(header);
    for (const auto& row : rows) line(row);
    return out;
}

std::string format_describe_table(const std::string& group, const std::vector<DescribeRow>& rows) {
    std::vector<std::vector<std::string>> cells;
    for (const auto& r : rows) {
        cells.push_back({group, r.tp ? r.tp->topic : "-", r.tp ? std::to_string(r.tp->partition) : "-",
                         or_dash(r.current_offset), or_dash(r.log_end_offset), or_dash(r.lag()), or_dash(r.consumer_id),
                         or_dash(r.host), or_dash(r.client_id)});
    }
    return format_table(
        {"GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST", "CLIENT-ID"},
        cells);
}

std::string format_state_table(const GroupDescription& group) {
    return format_table({"GROUP", "COORDINATOR (ID)", "ASSIGNMENT-STRATEGY", "STATE", "#MEMBERS"},
                        {{group.group_id, or_dash(group.coordinator), or_dash(group.assignor), group.state,
                          std::to_string(group.members.size())}});
}

std::string format_reset_table(const std::string& group, const std::map<TopicPartition, std::int64_t>& plan) {
    std::vector<std::vector<std::string>> cells;
    for (const auto& [tp, offset] : plan)
        cells.push_back({group, tp.topic, std::to_string(tp.partition), std::to_string(offset)});
    return format_table({"GROUP", "TOPIC", "PARTITION", "NEW-OFFSET"}, cells);
}

std::optional<std::string> reset_refusal(const GroupDescription& group) {
    if ((group.state == "Empty" || group.state == "Dead") && group.members.empty()) return std::nullopt;
    return fmt::format("Assignments can only be reset if the group '{}' is inactive, but the current state is {}.",
                       group.group_id, group.state);
}

ResetTarget reset_target(const ResetSpec& spec, const TopicPartition& tp, const Watermarks& log,
                         std::optional<std::int64_t> current, std::optional<std::int64_t> time_offset) {
    auto clamp = [&](std::int64_t wanted) {
        ResetTarget t{wanted, std::nullopt, std::nullopt};
        if (wanted < log.low) {
            t.offset = log.low;
            t.warning = fmt::format(
                "New offset ({}) is lower than earliest offset for topic partition {}-{}. Value will be set to {}",
                wanted, tp.topic, tp.partition, log.low);
        } else if (wanted > log.high) {
            t.offset = log.high;
            t.warning = fmt::format(
                "New offset ({}) is higher than latest offset for topic partition {}-{}. Value will be set to {}",
                wanted, tp.topic, tp.partition, log.high);
        }
        return t;
    };
    switch (spec.kind) {
        case ResetSpec::Kind::Earliest:
            return {log.low, std::nullopt, std::nullopt};
        case ResetSpec::Kind::Latest:
            return {log.high, std::nullopt, std::nullopt};
        case ResetSpec::Kind::Offset:
            return clamp(spec.value);
        case ResetSpec::Kind::ShiftBy:
            if (!current || *current < 0)
                return {-1, std::nullopt,
                        fmt::format("{}-{} has no committed offset to shift from", tp.topic, tp.partition)};
            return clamp(*current + spec.value);
        case ResetSpec::Kind::Datetime:
            // No record at or after the time: the end of the log, as Kafka does.
            if (!time_offset || *time_offset < 0) return {log.high, std::nullopt, std::nullopt};
            return clamp(*time_offset);
    }
    return {-1, std::nullopt, "unknown reset kind"};
}

}  // namespace weir::cli
