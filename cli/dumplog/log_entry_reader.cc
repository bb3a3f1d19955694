#include "cli/dumplog/log_entry_reader.h"

#include <fmt/format.h>

#include <array>

#include "broker/storage/index_file.h"
#include "protocol/records/legacy_message_set.h"

namespace weir::cli::dumplog {

namespace {

constexpr std::size_t kLegacyAttributesOffset = records::kMagicOffset + 1;
constexpr std::size_t kLegacyTimestampOffset = records::kMagicOffset + 2;

}  // namespace

LogEntryReader::LogEntryReader(const std::filesystem::path& path)
    : file_(storage::File::open_read_only(path)), size_(file_.size()) {}

std::optional<LogEntry> LogEntryReader::stop_at(Stop stop, std::string reason) {
    stop_ = stop;
    reason_ = std::move(reason);
    scanner_.reset();
    return std::nullopt;
}

std::optional<LogEntry> LogEntryReader::next() {
    if (pos_ >= size_) return stop_at(Stop::end, {});
    if (!scanner_) scanner_.emplace(file_, pos_, size_);
    if (auto batch = scanner_->next()) {
        last_was_legacy_ = false;
        pos_ = scanner_->position();
        LogEntry e;
        e.position = batch->position;
        e.size = batch->size();
        e.magic = batch->header.magic;
        e.header = batch->header;
        e.first_offset = batch->header.base_offset;
        e.last_offset = batch->header.last_offset();
        e.max_timestamp = batch->header.max_timestamp;
        return e;
    }
    // Not a v2 batch: maybe an old message, else find out what is wrong.
    return explain_stop(scanner_->stop());
}

std::optional<LogEntry> LogEntryReader::explain_stop(Stop stop) {
    scanner_.reset();
    const std::uint64_t remaining = size_ - pos_;
    std::array<std::uint8_t, records::kBatchHeaderSize> head{};
    const std::size_t n = file_.pread_upto(head, pos_);
    if (n < records::kLogOverhead)
        return stop_at(Stop::torn, fmt::format("only {} bytes at position {}, less than an entry's offset and length",
                                               remaining, pos_));
    const auto length = static_cast<std::int32_t>(storage::be::get32(head.data() + 8));
    const std::uint64_t declared = records::kLogOverhead + static_cast<std::uint64_t>(std::max(length, 0));

    if (n > records::kMagicOffset && (head[records::kMagicOffset] == 0 || head[records::kMagicOffset] == 1)) {
        const int magic = head[records::kMagicOffset];
        if (length >= (magic == 0 ? records::kLegacyMinMessageSizeV0 : records::kLegacyMinMessageSizeV1)) {
            if (declared > remaining)
                return stop_at(Stop::torn,
                               fmt::format("the magic {} message at position {} declares {} bytes but only {} remain",
                                           magic, pos_, declared, remaining));
            return read_legacy();
        }
    }
    if (length < static_cast<std::int32_t>(records::kBatchHeaderSize - records::kLogOverhead))
        return stop_at(Stop::corrupt, fmt::format("invalid batch length {} at position {}", length, pos_));
    if (declared > remaining)
        return stop_at(Stop::torn, fmt::format("the batch at position {} declares {} bytes but only {} remain", pos_,
                                               declared, remaining));
    try {
        records::parse_batch_header(head);
    } catch (const wire::DecodeError& e) {
        return stop_at(Stop::corrupt, fmt::format("invalid batch header at position {}: {}", pos_, e.what()));
    }
    // The scanner's reasons are covered above; this is only reached if the file changed under us.
    return stop_at(stop, fmt::format("unreadable batch at position {}", pos_));
}

std::optional<LogEntry> LogEntryReader::read_legacy() {
    std::array<std::uint8_t, records::kLogOverhead> head{};
    file_.pread_upto(head, pos_);
    const auto size = records::kLogOverhead + storage::be::get32(head.data() + 8);
    legacy_.resize(size);
    if (file_.pread_upto(legacy_, pos_) != size)
        return stop_at(Stop::torn, fmt::format("short read of the message at position {}", pos_));
    LogEntry e;
    e.position = pos_;
    e.size = size;
    e.magic = static_cast<std::int8_t>(legacy_[records::kMagicOffset]);
    e.header.magic = e.magic;
    e.header.attributes = legacy_[kLegacyAttributesOffset];
    e.first_offset = e.last_offset = static_cast<std::int64_t>(storage::be::get64(legacy_.data()));
    if (e.magic == 1)
        e.max_timestamp = static_cast<std::int64_t>(storage::be::get64(legacy_.data() + kLegacyTimestampOffset));
    last_was_legacy_ = true;
    pos_ += size;
    return e;
}

std::span<const std::uint8_t> LogEntryReader::entry_bytes() {
    if (last_was_legacy_) return legacy_;
    if (!scanner_) return {};
    return scanner_->batch_bytes();
}

}  // namespace weir::cli::dumplog
