#pragma once
// The command line of `weir dump-log`, Kafka's kafka-dump-log.sh (DumpLogSegments).
#include <stdexcept>
#include <string>
#include <vector>

namespace weir::cli::dumplog {

// A bad `weir dump-log` command line (exit code 2).
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct DumpLogOptions {
    bool help = false;
    // Print only problems and one summary line per file; the exit code says whether all were consistent.
    bool verify = false;
    // Decode the records of each batch (decompressing) and print their metadata.
    bool deep_iteration = false;
    // deep_iteration plus each record's key and payload.
    bool print_data_log = false;
    std::vector<std::string> files;
};

// Parses the arguments after `weir dump-log`; throws UsageError.
DumpLogOptions parse_dump_log_args(const std::vector<std::string>& args);

std::string dump_log_usage_text();

}  // namespace weir::cli::dumplog
