#pragma once
// Dumps a segment's .index or .timeindex and checks each entry against the
// .log of the same segment (same base name), the way the broker writes them
// (broker/storage/segment.cc). Reads the files itself rather than through
// storage::IndexFile, which opens read-write, creates missing files and maps
// them writable.
#include <filesystem>

#include "cli/dumplog/dump_report.h"

namespace weir::cli::dumplog {

// Throw storage::StorageError if the file cannot be read.
void dump_offset_index(const std::filesystem::path& path, FileReport& report);
void dump_time_index(const std::filesystem::path& path, FileReport& report);

}  // namespace weir::cli::dumplog
