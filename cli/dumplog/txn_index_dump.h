#pragma once
// Dumps a transaction index (`.txnindex`), one line per aborted transaction.
#include <filesystem>

#include "cli/dumplog/dump_report.h"

namespace weir::cli::dumplog {

// Throws storage::StorageError if the file cannot be read; an entry of an
// unknown version, entries out of marker order and a torn tail are problems.
void dump_txn_index(const std::filesystem::path& path, FileReport& report);

}  // namespace weir::cli::dumplog
