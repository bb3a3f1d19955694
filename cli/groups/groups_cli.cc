#include "cli/groups/groups_cli.h"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <set>

#include "cli/groups/groups_args.h"
#include "cli/groups/groups_report.h"
#include "cli/groups/kafka_admin.h"

namespace weir::cli {

namespace {

constexpr int kOk = 0;
constexpr int kFailed = 1;
constexpr int kUsage = 2;

// A failure that is about the request, not about reaching the broker.
class CommandError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

constexpr std::string_view kNoDescribeGroups =
    "the broker does not support DescribeGroups, so the group's state and members are unknown";

std::vector<TopicPartition> resolve_topics(GroupAdmin& admin, const std::vector<TopicSelection>& topics) {
    const auto all = admin.topic_partitions();
    std::set<TopicPartition> out;
    for (const auto& sel : topics) {
        auto it = all.find(sel.topic);
        if (it == all.end()) throw CommandError(fmt::format("topic '{}' does not exist", sel.topic));
        const auto& existing = it->second;
        if (sel.partitions.empty()) {
            for (auto p : existing) out.insert({sel.topic, p});
            continue;
        }
        for (auto p : sel.partitions) {
            if (!std::binary_search(existing.begin(), existing.end(), p))
                throw CommandError(fmt::format("topic '{}' has no partition {}", sel.topic, p));
            out.insert({sel.topic, p});
        }
    }
    return {out.begin(), out.end()};
}

int do_list(GroupAdmin& admin, const GroupsOptions& o, std::ostream& out, std::ostream& err) {
    const auto result = admin.list_groups();
    // Some brokers answering still gives a (partial) list; none answering is a failure.
    const char* level = result.groups.empty() ? "Error" : "Warning";
    for (const auto& e : result.errors) err << level << ": could not list groups: " << e << '\n';
    if (o.show_state) {
        std::vector<std::vector<std::string>> rows;
        for (const auto& g : result.groups) rows.push_back({g.group_id, g.state});
        out << format_table({"GROUP", "STATE"}, rows);
    } else {
        for (const auto& g : result.groups) out << g.group_id << '\n';
    }
    return result.errors.empty() ? kOk : kFailed;
}

int do_describe(GroupAdmin& admin, const GroupsOptions& o, std::ostream& out, std::ostream& err) {
    const auto group = admin.describe_group(o.group);
    if (!group) err << "Warning: " << kNoDescribeGroups << ".\n";

    std::vector<std::string> topic_filter;
    for (const auto& sel : o.topics) topic_filter.push_back(sel.topic);
    const auto committed = admin.committed_offsets(
        o.group, o.topics.empty() ? std::vector<TopicPartition>{} : resolve_topics(admin, o.topics));
    const bool any_committed =
        std::any_of(committed.begin(), committed.end(), [](const auto& kv) { return kv.second >= 0; });
    if ((!group || group->state == "Dead") && !any_committed) {
        err << "Error: Consumer group '" << o.group << "' does not exist.\n";
        return kFailed;
    }

    std::map<TopicPartition, std::int64_t> log_end;
    for (const auto& tp : partitions_of(describe_rows(group, committed, {}, topic_filter))) {
        try {
            log_end[tp] = admin.watermarks(tp).high;
        } catch (const AdminError& e) {
            err << "Warning: " << e.what() << '\n';
        }
    }
    const auto rows = describe_rows(group, committed, log_end, topic_filter);

    if (group) {
        out << format_state_table(*group) << '\n';
        if (group->state == "Empty" || group->state == "Dead") {
            out << "Consumer group '" << o.group << "' has no active members.\n\n";
        } else if (group->state == "PreparingRebalance" || group->state == "CompletingRebalance") {
            out << "Warning: Consumer group '" << o.group << "' is rebalancing.\n\n";
        }
    }
    if (!rows.empty()) out << format_describe_table(o.group, rows);
    return kOk;
}

int do_reset(GroupAdmin& admin, const GroupsOptions& o, std::ostream& out, std::ostream& err) {
    const auto group = admin.describe_group(o.group);
    if (!group) {
        err << "Warning: " << kNoDescribeGroups << "; the broker itself rejects the commit if the group is active.\n";
    } else if (auto refusal = reset_refusal(*group)) {
        err << "Error: " << *refusal << '\n';
        return kFailed;
    }

    std::vector<TopicPartition> tps;
    std::map<TopicPartition, std::int64_t> committed;
    if (o.all_topics) {
        committed = admin.committed_offsets(o.group, {});
        for (const auto& [tp, offset] : committed)
            if (offset >= 0) tps.push_back(tp);
        if (tps.empty()) {
            err << "Error: consumer group '" << o.group
                << "' has no committed offsets, so --all-topics selects nothing.\n";
            return kFailed;
        }
    } else {
        tps = resolve_topics(admin, o.topics);
        if (o.reset->kind == ResetSpec::Kind::ShiftBy) committed = admin.committed_offsets(o.group, tps);
    }
    std::map<TopicPartition, std::int64_t> time_offsets;
    if (o.reset->kind == ResetSpec::Kind::Datetime) time_offsets = admin.offsets_for_time(tps, o.reset->value);

    std::map<TopicPartition, std::int64_t> plan;
    bool failed = false;
    for (const auto& tp : tps) {
        const Watermarks log = admin.watermarks(tp);
        std::optional<std::int64_t> current;
        if (auto it = committed.find(tp); it != committed.end() && it->second >= 0) current = it->second;
        std::optional<std::int64_t> at_time;
        if (auto it = time_offsets.find(tp); it != time_offsets.end()) at_time = it->second;
        const ResetTarget target = reset_target(*o.reset, tp, log, current, at_time);
        if (target.warning) err << "Warning: " << *target.warning << '\n';
        if (target.error) {
            err << "Error: " << *target.error << '\n';
            failed = true;
            continue;
        }
        plan[tp] = target.offset;
    }
    if (failed) return kFailed;

    out << format_reset_table(o.group, plan);
    if (!o.execute) {
        err << "Dry run: no offsets were changed (add --execute to apply).\n";
        return kOk;
    }
    const auto failures = admin.alter_offsets(o.group, plan);
    for (const auto& f : failures)
        err << "Error: could not commit " << f.tp.topic << '-' << f.tp.partition << ": " << f.error << '\n';
    return failures.empty() ? kOk : kFailed;
}

int do_delete(GroupAdmin& admin, const GroupsOptions& o, std::ostream& out) {
    admin.delete_group(o.group);
    out << "Deletion of requested consumer groups ('" << o.group << "') was successful.\n";
    return kOk;
}

}  // namespace

int run_groups(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
               const AdminFactory& admin_factory) {
    GroupsOptions o;
    try {
        o = parse_groups_args(args);
    } catch (const UsageError& e) {
        err << "weir groups: " << e.what() << "\nRun 'weir groups --help' for usage.\n";
        return kUsage;
    }
    if (o.action == GroupsAction::Help) {
        out << groups_usage_text();
        return kOk;
    }
    try {
        const AdminConfig config{o.bootstrap, o.timeout, o.client_properties, o.verbose};
        std::unique_ptr<GroupAdmin> client =
            admin_factory ? admin_factory(config) : std::make_unique<KafkaAdmin>(config);
        GroupAdmin& admin = *client;
        switch (o.action) {
            case GroupsAction::List:
                return do_list(admin, o, out, err);
            case GroupsAction::Describe:
                return do_describe(admin, o, out, err);
            case GroupsAction::ResetOffsets:
                return do_reset(admin, o, out, err);
            case GroupsAction::Delete:
                return do_delete(admin, o, out);
            case GroupsAction::Help:
                break;
        }
    } catch (const CommandError& e) {
        err << "Error: " << e.what() << '\n';
        return kFailed;
    } catch (const AdminError& e) {
        // librdkafka's own errors ("Local: Timed out", "Local: Broker transport failure") usually
        // mean the broker was not reached: say where we looked and for how long.
        err << "Error: " << e.what();
        if (std::string_view(e.what()).find("Local: ") != std::string_view::npos)
            err << " (bootstrap " << o.bootstrap << ", timeout " << o.timeout.count() << " ms)";
        err << '\n';
        return kFailed;
    } catch (const std::exception& e) {
        err << "Error: " << e.what() << '\n';
        return kFailed;
    }
    return kOk;
}

int groups_main(const std::vector<std::string>& args) { return run_groups(args, std::cout, std::cerr); }

}  // namespace weir::cli
