#include "cli/dumplog/dump_log_cli.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <string_view>

#include "broker/storage/log_names.h"
#include "broker/storage/producer_snapshot_file.h"
#include "cli/dumplog/dump_log_args.h"
#include "cli/dumplog/dump_report.h"
#include "cli/dumplog/index_file_dump.h"
#include "cli/dumplog/log_file_dump.h"
#include "cli/dumplog/snapshot_dump.h"
#include "cli/dumplog/txn_index_dump.h"

namespace weir::cli::dumplog {

namespace {

constexpr int kOk = 0;
constexpr int kFailed = 1;
constexpr int kUsage = 2;

using DumpFn = void (*)(const std::filesystem::path&, FileReport&);

struct FileKind {
    std::string_view suffix;
    std::string_view unit;
    DumpFn dump;
};

constexpr FileKind kKinds[] = {
    {storage::kLogSuffix, "batches", dump_log_file},
    {storage::kIndexSuffix, "entries", dump_offset_index},
    {storage::kTimeIndexSuffix, "entries", dump_time_index},
    {storage::kTxnIndexSuffix, "aborted transactions", dump_txn_index},
    {storage::kProducerSnapshotSuffix, "producers", dump_producer_snapshot},
};

const FileKind* kind_of(const std::filesystem::path& path) {
    const auto ext = path.extension().string();
    for (const auto& kind : kKinds)
        if (ext == kind.suffix) return &kind;
    return nullptr;
}

// False if the file could not be dumped at all or, under --verify, has problems.
bool dump_file(const std::string& name, const DumpSettings& settings, std::ostream& out, std::ostream& err) {
    const std::filesystem::path path(name);
    const FileKind* kind = kind_of(path);
    std::error_code ec;
    if (kind == nullptr && std::filesystem::exists(path, ec)) {
        // As Kafka's DumpLogSegments: named by a glob, checkpoints and
        // partition.metadata come along; they are not an error.
        err << "Ignoring unknown file " << name
            << " (dump-log reads .log, .index, .timeindex, .txnindex and .snapshot)\n";
        return true;
    }
    if (kind == nullptr) {
        err << "Error: " << name << ": no such file\n";
        return false;
    }
    if (!std::filesystem::is_regular_file(path, ec)) {
        err << "Error: " << name << ": " << (std::filesystem::exists(path, ec) ? "not a regular file" : "no such file")
            << '\n';
        return false;
    }
    if (!settings.verify) out << "Dumping " << name << '\n';
    FileReport report(out, name, settings, std::string(kind->unit));
    try {
        kind->dump(path, report);
    } catch (const std::exception& e) {
        err << "Error: " << name << ": " << e.what() << '\n';
        return false;
    }
    if (!settings.verify) return true;
    out << report.summary() << '\n';
    return report.problems() == 0;
}

// A directory stands for the files in it that dump-log reads, and for those
// of its subdirectories: a partition directory, or a whole log.dirs entry.
std::vector<std::string> expand(const std::string& name) {
    std::error_code ec;
    if (!std::filesystem::is_directory(name, ec)) return {name};
    std::vector<std::string> files;
    for (auto it = std::filesystem::recursive_directory_iterator(name, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
        if (it.depth() >= 1) it.disable_recursion_pending();
        if (it->is_regular_file(ec) && kind_of(it->path())) files.push_back(it->path().string());
    }
    if (ec) return {name};  // reported as unreadable by dump_file
    std::sort(files.begin(), files.end());
    return files;
}

}  // namespace

int run_dump_log(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    DumpLogOptions o;
    try {
        o = parse_dump_log_args(args);
    } catch (const UsageError& e) {
        err << "weir dump-log: " << e.what() << "\nRun 'weir dump-log --help' for usage.\n";
        return kUsage;
    }
    if (o.help) {
        out << dump_log_usage_text();
        return kOk;
    }
    const DumpSettings settings{o.verify, o.deep_iteration, o.print_data_log};
    bool ok = true;
    for (const auto& name : o.files)
        for (const auto& file : expand(name)) ok = dump_file(file, settings, out, err) && ok;
    return ok ? kOk : kFailed;
}

int dump_log_main(const std::vector<std::string>& args) { return run_dump_log(args, std::cout, std::cerr); }

}  // namespace weir::cli::dumplog
