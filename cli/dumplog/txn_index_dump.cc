#include "cli/dumplog/txn_index_dump.h"

#include <fmt/format.h>

#include <vector>

#include "broker/storage/file.h"
#include "broker/storage/txn_index.h"

namespace weir::cli::dumplog {

namespace {

// An index of a billion aborted transactions is not one.
constexpr std::uint64_t kMaxTxnIndexBytes = std::uint64_t{1} << 30;

}  // namespace

void dump_txn_index(const std::filesystem::path& path, FileReport& report) {
    using storage::TxnIndex;
    const auto file = storage::File::open_read_only(path);
    const auto size = file.size();
    if (size > kMaxTxnIndexBytes) {
        report.problem(fmt::format("The file is {} bytes, too large for a transaction index; not read", size));
        return;
    }
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(size));
    bytes.resize(file.pread_upto(bytes, 0));
    std::int64_t previous_marker = -1;
    std::size_t pos = 0;
    for (; pos + TxnIndex::kEntrySize <= bytes.size(); pos += TxnIndex::kEntrySize) {
        const auto version = static_cast<std::int16_t>((bytes[pos] << 8) | bytes[pos + 1]);
        const auto txn = TxnIndex::decode(bytes.data() + pos);
        report.count_one(txn.first_offset, txn.last_offset);
        // Kafka's DumpLogSegments.dumpTxnIndex line.
        report.line(fmt::format("version: {} producerId: {} firstOffset: {} lastOffset: {} lastStableOffset: {}",
                                version, txn.producer_id, txn.first_offset, txn.last_offset, txn.last_stable_offset));
        if (version != 0) report.problem(fmt::format("Entry at position {} has unknown version {}", pos, version));
        if (txn.last_offset <= previous_marker)
            report.problem(fmt::format("Entry at position {} ends at offset {}, not after the previous entry's {}", pos,
                                       txn.last_offset, previous_marker));
        previous_marker = txn.last_offset;
    }
    if (pos != bytes.size())
        report.problem(fmt::format("Found {} bytes at the end that are not a whole entry of {} bytes",
                                   bytes.size() - pos, TxnIndex::kEntrySize));
}

}  // namespace weir::cli::dumplog
