#pragma once
// Dumps a producer state snapshot (`<offset>.snapshot`), one line per producer.
#include <filesystem>

#include "cli/dumplog/dump_report.h"

namespace weir::cli::dumplog {

// Throws storage::StorageError if the file cannot be read; a file that does not
// decode (bad CRC, unknown version, short) is reported as a problem.
void dump_producer_snapshot(const std::filesystem::path& path, FileReport& report);

}  // namespace weir::cli::dumplog
