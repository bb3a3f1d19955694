#include "broker/storage/txn_index.h"

#include <algorithm>

#include "broker/common/logging.h"
#include "broker/storage/file.h"
#include "broker/storage/index_file.h"
#include "broker/storage/log_error.h"

namespace weir::storage {

namespace {

constexpr std::int16_t kAbortedTxnVersion = 0;

}  // namespace

void TxnIndex::encode(const AbortedTxn& txn, std::uint8_t* out) {
    out[0] = static_cast<std::uint8_t>(static_cast<std::uint16_t>(kAbortedTxnVersion) >> 8);
    out[1] = static_cast<std::uint8_t>(kAbortedTxnVersion);
    be::put64(out + 2, static_cast<std::uint64_t>(txn.producer_id));
    be::put64(out + 10, static_cast<std::uint64_t>(txn.first_offset));
    be::put64(out + 18, static_cast<std::uint64_t>(txn.last_offset));
    be::put64(out + 26, static_cast<std::uint64_t>(txn.last_stable_offset));
}

AbortedTxn TxnIndex::decode(const std::uint8_t* in) {
    return {static_cast<std::int64_t>(be::get64(in + 2)), static_cast<std::int64_t>(be::get64(in + 10)),
            static_cast<std::int64_t>(be::get64(in + 18)), static_cast<std::int64_t>(be::get64(in + 26))};
}

TxnIndex::TxnIndex(std::filesystem::path path, std::size_t max_bytes)
    : path_(std::move(path)), max_entries_(std::max<std::size_t>(max_bytes / kEntrySize, 1)) {
    std::error_code ec;
    if (!std::filesystem::exists(path_, ec)) return;
    auto file = File::open(path_, false);
    const auto size = file.size();
    std::vector<std::uint8_t> data(static_cast<std::size_t>(size));
    data.resize(file.pread_upto(data, 0));
    const auto whole = data.size() / kEntrySize;
    for (std::size_t i = 0; i < whole; ++i) {
        const auto* p = data.data() + i * kEntrySize;
        const auto version = static_cast<std::int16_t>((std::uint16_t{p[0]} << 8) | p[1]);
        if (version != kAbortedTxnVersion) {
            logging::warn("{}: entry {} has unknown version {}; dropping it and what follows", path_.string(), i,
                          version);
            break;
        }
        entries_.push_back(decode(p));
    }
    if (entries_.size() * kEntrySize != data.size()) {
        logging::warn("{}: cutting {} bytes of a torn or unknown entry", path_.string(),
                      data.size() - entries_.size() * kEntrySize);
        file.truncate(entries_.size() * kEntrySize);
    }
}

void TxnIndex::append(const AbortedTxn& txn) {
    if (!entries_.empty() && txn.last_offset <= entries_.back().last_offset)
        throw StorageError("aborted transaction ending at " + std::to_string(txn.last_offset) + " does not follow " +
                           std::to_string(entries_.back().last_offset) + " in " + path_.string());
    std::uint8_t entry[kEntrySize];
    encode(txn, entry);
    auto file = File::open(path_, true);
    file.pwrite_all(entry, entries_.size() * kEntrySize);
    entries_.push_back(txn);
    dirty_ = true;
}

void TxnIndex::truncate_to(std::int64_t offset) {
    auto keep = static_cast<std::size_t>(
        std::find_if(entries_.begin(), entries_.end(), [&](const AbortedTxn& t) { return t.last_offset >= offset; }) -
        entries_.begin());
    if (keep == entries_.size()) return;
    entries_.resize(keep);
    rewrite();
}

void TxnIndex::rewrite() const {
    std::error_code ec;
    if (!std::filesystem::exists(path_, ec)) return;
    auto file = File::open(path_, false);
    file.truncate(entries_.size() * kEntrySize);
    dirty_ = true;
}

bool TxnIndex::collect(std::int64_t fetch_offset, std::int64_t upper_bound, std::vector<AbortedTxn>& out) const {
    for (const auto& txn : entries_) {
        if (txn.last_offset >= fetch_offset && txn.first_offset < upper_bound) out.push_back(txn);
        if (txn.last_stable_offset >= upper_bound) return true;
    }
    return false;
}

void TxnIndex::flush() const {
    if (!dirty_) return;
    std::error_code ec;
    if (!std::filesystem::exists(path_, ec)) return;
    File::open(path_, false).sync();
    dirty_ = false;
}

void TxnIndex::remove() {
    entries_.clear();
    dirty_ = false;
    std::error_code ec;
    std::filesystem::remove(path_, ec);
}

}  // namespace weir::storage
