#pragma once
// Dumps a segment's .log: its batches (and records), their CRCs, and where and
// why the valid part of the file ends.
#include <filesystem>

#include "cli/dumplog/dump_report.h"

namespace weir::cli::dumplog {

// Throws storage::StorageError if the file cannot be read.
void dump_log_file(const std::filesystem::path& path, FileReport& report);

}  // namespace weir::cli::dumplog
