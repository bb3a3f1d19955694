#pragma once
// `weir dump-log FILE...`: Kafka's kafka-dump-log.sh for a partition's .log,
// .index, .timeindex and .snapshot files, with --verify as an operator's check
// for damaged logs. Reads files read-only.
#include <iosfwd>
#include <string>
#include <vector>

namespace weir::cli::dumplog {

// args: what follows `weir dump-log`. Returns the exit code: 0 ok, 1 a file could not be
// dumped or (--verify) is inconsistent, 2 usage error.
int dump_log_main(const std::vector<std::string>& args);

// dump_log_main writing to the given streams.
int run_dump_log(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace weir::cli::dumplog
