#include "cli/groups/groups_args.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <ctime>

namespace weir::cli {

namespace {

constexpr std::int64_t kMaxTimeoutMs = 86'400'000;  // a day; keeps every derived wait within an int

template <typename Int>
std::optional<Int> to_int(std::string_view text) {
    Int value{};
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc{} || ptr != end) return std::nullopt;
    return value;
}

std::int64_t parse_offset(std::string_view flag, std::string_view text, bool allow_negative) {
    auto value = to_int<std::int64_t>(text);
    if (!value || (!allow_negative && *value < 0))
        throw UsageError(
            fmt::format("{} expects {}, got '{}'", flag, allow_negative ? "an integer" : "an offset >= 0", text));
    return *value;
}

TopicSelection parse_topic(std::string_view text) {
    TopicSelection sel;
    const auto colon = text.find(':');
    sel.topic = std::string(text.substr(0, colon));
    if (sel.topic.empty()) throw UsageError(fmt::format("--topic expects TOPIC or TOPIC:P,P..., got '{}'", text));
    if (colon == std::string_view::npos) return sel;
    std::string_view rest = text.substr(colon + 1);
    while (true) {
        const auto comma = rest.find(',');
        const auto item = rest.substr(0, comma);
        auto p = to_int<std::int32_t>(item);
        if (!p || *p < 0) throw UsageError(fmt::format("--topic: bad partition '{}' in '{}'", item, text));
        sel.partitions.push_back(*p);
        if (comma == std::string_view::npos) break;
        rest = rest.substr(comma + 1);
    }
    std::sort(sel.partitions.begin(), sel.partitions.end());
    sel.partitions.erase(std::unique(sel.partitions.begin(), sel.partitions.end()), sel.partitions.end());
    return sel;
}

std::pair<std::string, std::string> parse_property(std::string_view text) {
    const auto eq = text.find('=');
    if (eq == std::string_view::npos || eq == 0) throw UsageError(fmt::format("-X expects key=value, got '{}'", text));
    return {std::string(text.substr(0, eq)), std::string(text.substr(eq + 1))};
}

GroupsAction parse_action(std::string_view word) {
    if (word == "list") return GroupsAction::List;
    if (word == "describe") return GroupsAction::Describe;
    if (word == "reset-offsets") return GroupsAction::ResetOffsets;
    if (word == "delete") return GroupsAction::Delete;
    throw UsageError(fmt::format("unknown action '{}' (expected list, describe, reset-offsets or delete)", word));
}

void set_reset(GroupsOptions& o, ResetSpec spec) {
    if (o.reset)
        throw UsageError("give only one of --to-earliest, --to-latest, --to-offset, --to-datetime, --shift-by");
    o.reset = spec;
}

void validate(GroupsOptions& o, bool saw_dry_run, bool saw_reset_only_flag) {
    const bool needs_group = o.action != GroupsAction::List;
    if (needs_group && o.group.empty()) throw UsageError("missing GROUP");
    if (!needs_group && !o.group.empty()) throw UsageError("list takes no GROUP");
    if (o.show_state && o.action != GroupsAction::List) throw UsageError("--state only applies to list");
    if (o.action != GroupsAction::ResetOffsets) {
        if (saw_reset_only_flag)
            throw UsageError("--to-*, --shift-by, --all-topics, --execute and --dry-run only apply to reset-offsets");
        if (!o.topics.empty() && o.action != GroupsAction::Describe)
            throw UsageError("--topic only applies to describe and reset-offsets");
        return;
    }
    if (!o.reset)
        throw UsageError(
            "reset-offsets needs one of --to-earliest, --to-latest, --to-offset, --to-datetime, --shift-by");
    if (o.topics.empty() == !o.all_topics)
        throw UsageError("reset-offsets needs either --topic (repeatable) or --all-topics");
    if (o.execute && saw_dry_run) throw UsageError("--execute and --dry-run exclude each other");
}

}  // namespace

GroupsOptions parse_groups_args(const std::vector<std::string>& args) {
    GroupsOptions o;
    std::vector<std::string> positional;
    bool saw_dry_run = false;
    bool saw_reset_only_flag = false;
    bool options_done = false;
    std::optional<std::string> group_flag;  // --group G, the kafka-consumer-groups.sh spelling

    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string_view arg = args[i];
        if (options_done || arg.empty() || arg.front() != '-' || arg == "-") {
            positional.emplace_back(arg);
            continue;
        }
        if (arg == "--") {
            options_done = true;
            continue;
        }
        std::string_view flag = arg;
        std::optional<std::string_view> inline_value;
        if (arg.starts_with("--")) {
            if (const auto eq = arg.find('='); eq != std::string_view::npos) {
                flag = arg.substr(0, eq);
                inline_value = arg.substr(eq + 1);
            }
        } else if (arg.starts_with("-X") && arg.size() > 2) {
            flag = "-X";
            inline_value = arg.substr(2);
        }
        auto value = [&]() -> std::string_view {
            if (inline_value) return *inline_value;
            if (i + 1 >= args.size()) throw UsageError(fmt::format("{} needs a value", flag));
            return args[++i];
        };
        auto no_value = [&] {
            if (inline_value) throw UsageError(fmt::format("{} takes no value", flag));
        };

        if (flag == "-h" || flag == "--help") {
            o.action = GroupsAction::Help;
            return o;
        } else if (flag == "--bootstrap-server" || flag == "--bootstrap-servers") {
            o.bootstrap = std::string(value());
            if (o.bootstrap.empty()) throw UsageError("--bootstrap-server needs HOST:PORT");
        } else if (flag == "--timeout-ms" || flag == "--timeout") {
            const auto text = value();
            auto ms = to_int<std::int64_t>(text);
            if (!ms || *ms <= 0 || *ms > kMaxTimeoutMs)
                throw UsageError(fmt::format("{} expects milliseconds in 1..{}, got '{}'", flag, kMaxTimeoutMs, text));
            o.timeout = std::chrono::milliseconds(*ms);
        } else if (flag == "-X" || flag == "--property") {
            o.client_properties.push_back(parse_property(value()));
        } else if (flag == "-v" || flag == "--verbose") {
            no_value();
            o.verbose = true;
        } else if (flag == "--state") {
            no_value();
            o.show_state = true;
        } else if (flag == "--group") {
            if (group_flag) throw UsageError("--group given twice");
            group_flag = std::string(value());
        } else if (flag == "--topic") {
            o.topics.push_back(parse_topic(value()));
        } else if (flag == "--all-topics") {
            no_value();
            o.all_topics = saw_reset_only_flag = true;
        } else if (flag == "--to-earliest") {
            no_value();
            set_reset(o, {ResetSpec::Kind::Earliest, 0});
            saw_reset_only_flag = true;
        } else if (flag == "--to-latest") {
            no_value();
            set_reset(o, {ResetSpec::Kind::Latest, 0});
            saw_reset_only_flag = true;
        } else if (flag == "--to-offset") {
            set_reset(o, {ResetSpec::Kind::Offset, parse_offset(flag, value(), false)});
            saw_reset_only_flag = true;
        } else if (flag == "--to-datetime") {
            set_reset(o, {ResetSpec::Kind::Datetime, parse_timestamp_ms(value())});
            saw_reset_only_flag = true;
        } else if (flag == "--shift-by") {
            set_reset(o, {ResetSpec::Kind::ShiftBy, parse_offset(flag, value(), true)});
            saw_reset_only_flag = true;
        } else if (flag == "--execute") {
            no_value();
            o.execute = saw_reset_only_flag = true;
        } else if (flag == "--dry-run") {
            no_value();
            saw_dry_run = saw_reset_only_flag = true;
        } else {
            throw UsageError(fmt::format("unknown option '{}'", arg));
        }
    }

    if (positional.empty()) throw UsageError("missing action (list, describe, reset-offsets or delete)");
    o.action = parse_action(positional[0]);
    if (group_flag) {
        if (positional.size() > 1) throw UsageError("GROUP given both as an argument and with --group");
        positional.push_back(*group_flag);
    }
    if (positional.size() > 2) throw UsageError(fmt::format("unexpected argument '{}'", positional[2]));
    if (positional.size() == 2) {
        if (positional[1].empty()) throw UsageError("GROUP must not be empty");
        o.group = positional[1];
    }
    validate(o, saw_dry_run, saw_reset_only_flag);
    return o;
}

namespace {

// Reads exactly `n` digits at `pos`.
std::optional<int> digits(std::string_view text, std::size_t& pos, std::size_t n) {
    if (pos + n > text.size()) return std::nullopt;
    auto v = to_int<int>(text.substr(pos, n));
    if (!v || !std::all_of(text.begin() + pos, text.begin() + pos + n, [](char c) { return c >= '0' && c <= '9'; }))
        return std::nullopt;
    pos += n;
    return v;
}

bool expect(std::string_view text, std::size_t& pos, char c) {
    if (pos >= text.size() || text[pos] != c) return false;
    ++pos;
    return true;
}

}  // namespace

std::int64_t parse_timestamp_ms(std::string_view text) {
    const auto bad = [&] {
        return UsageError(fmt::format(
            "bad timestamp '{}' (expected YYYY-MM-DDTHH:MM:SS[.sss][Z|+HH:MM] or milliseconds since the epoch)", text));
    };
    if (!text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        auto ms = to_int<std::int64_t>(text);
        if (!ms) throw bad();
        return *ms;
    }

    std::size_t pos = 0;
    auto y = digits(text, pos, 4);
    if (!y || !expect(text, pos, '-')) throw bad();
    auto mo = digits(text, pos, 2);
    if (!mo || !expect(text, pos, '-')) throw bad();
    auto d = digits(text, pos, 2);
    if (!d || !expect(text, pos, 'T')) throw bad();
    auto h = digits(text, pos, 2);
    if (!h || !expect(text, pos, ':')) throw bad();
    auto mi = digits(text, pos, 2);
    if (!mi || !expect(text, pos, ':')) throw bad();
    auto s = digits(text, pos, 2);
    if (!s) throw bad();
    int millis = 0;
    if (expect(text, pos, '.')) {
        const std::size_t start = pos;
        while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') ++pos;
        if (pos == start) throw bad();
        std::string frac(text.substr(start, std::min<std::size_t>(pos - start, 3)));
        frac.resize(3, '0');
        millis = *to_int<int>(frac);
    }
    const std::chrono::year_month_day ymd{std::chrono::year{*y}, std::chrono::month{static_cast<unsigned>(*mo)},
                                          std::chrono::day{static_cast<unsigned>(*d)}};
    if (!ymd.ok() || *h > 23 || *mi > 59 || *s > 59) throw bad();

    std::optional<int> zone_offset_min;  // east of UTC
    if (expect(text, pos, 'Z')) {
        zone_offset_min = 0;
    } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
        const int sign = text[pos++] == '+' ? 1 : -1;
        auto zh = digits(text, pos, 2);
        expect(text, pos, ':');
        auto zm = digits(text, pos, 2);
        if (!zh || !zm || *zh > 18 || *zm > 59) throw bad();
        zone_offset_min = sign * (*zh * 60 + *zm);
    }
    if (pos != text.size()) throw bad();

    std::int64_t seconds = 0;
    if (zone_offset_min) {
        const auto days = std::chrono::sys_days{ymd}.time_since_epoch().count();
        seconds = days * 86'400 + *h * 3'600 + *mi * 60 + *s - *zone_offset_min * 60;
    } else {
        std::tm tm{};
        tm.tm_year = *y - 1900;
        tm.tm_mon = *mo - 1;
        tm.tm_mday = *d;
        tm.tm_hour = *h;
        tm.tm_min = *mi;
        tm.tm_sec = *s;
        tm.tm_isdst = -1;
        const std::time_t t = std::mktime(&tm);
        if (t == static_cast<std::time_t>(-1)) throw bad();
        seconds = static_cast<std::int64_t>(t);
    }
    if (seconds < 0) throw bad();
    return seconds * 1000 + millis;
}

std::string groups_usage_text() {
    return R"(Usage: weir groups [options] <action> [GROUP]

Consumer-group tooling over the Kafka protocol: works against any Kafka broker and Weir.

Actions:
  list                      List the groups (--state adds each group's state)
  describe GROUP            Offsets, log-end offsets and lag per partition, with members and state
                            (--topic T limits it to the topic T)
  reset-offsets GROUP       Plan, or with --execute apply, new committed offsets; the group must be inactive.
      scope:    --topic T | --topic T:0,1,... (repeatable) | --all-topics (topics with committed offsets)
      target:   --to-earliest | --to-latest | --to-offset N | --shift-by N
                | --to-datetime TS   (TS: 2026-12-01T10:00:00Z, with optional .sss and +HH:MM; no zone
                                      means local time; or milliseconds since the epoch)
      --execute                 apply the plan (without it: dry run, nothing changes)
      --dry-run                 print the plan only (the default)
  delete GROUP              Delete an inactive group and its committed offsets

Options:
  --bootstrap-server HOST:PORT[,HOST:PORT...]   Broker(s) to contact [127.0.0.1:9092]
  --timeout-ms MS           Bound on every request [10000]
  -X key=value              librdkafka client property (e.g. security.protocol=SASL_SSL), repeatable
  -v, --verbose             Show librdkafka's log
  -h, --help                Show this help

Exit codes: 0 ok, 1 the operation failed, 2 usage error.
)";
}

}  // namespace weir::cli
