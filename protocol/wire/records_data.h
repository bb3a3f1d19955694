#pragma once
// The value of a `records` field: a byte range that either aliases a received
// frame (kept alive by `owner`), owns its bytes, or stays in a file (a Fetch
// answer's records, sent from the segment without a copy). Decoding a
// Produce request this way costs no copy of the record data.
#include <algorithm>
#include <memory>
#include <optional>

#include "protocol/wire/file_region.h"
#include "protocol/wire/reader.h"

namespace weir::wire {

class RecordsData {
public:
    RecordsData() = default;
    explicit RecordsData(Bytes owned) {
        auto p = std::make_shared<const Bytes>(std::move(owned));
        view_ = ByteSpan(*p);
        owner_ = std::move(p);
    }
    RecordsData(ByteSpan view, std::shared_ptr<const void> owner) : view_(view), owner_(std::move(owner)) {
        if (!owner_) *this = RecordsData(Bytes(view.begin(), view.end()));
    }
    explicit RecordsData(FileRegion region) : region_(std::move(region)) {}

    // The bytes of records held in memory; a file region has none here
    // (file_region(), or read_region() where a copy is wanted).
    [[nodiscard]] ByteSpan bytes() const {
        if (region_) throw std::logic_error("records in a file region have no bytes in memory");
        return view_;
    }
    [[nodiscard]] const FileRegion* file_region() const { return region_ ? &*region_ : nullptr; }
    [[nodiscard]] std::size_t size() const { return region_ ? region_->length : view_.size(); }
    [[nodiscard]] bool empty() const { return size() == 0; }

    // A copy of the bytes, read from the file for a file region.
    [[nodiscard]] Bytes contents() const { return region_ ? read_region(*region_) : Bytes(view_.begin(), view_.end()); }

    // Compares contents, reading file regions (tests).
    friend bool operator==(const RecordsData& a, const RecordsData& b) {
        if (!a.region_ && !b.region_) return std::ranges::equal(a.view_, b.view_);
        return a.contents() == b.contents();
    }

private:
    ByteSpan view_;
    std::shared_ptr<const void> owner_;
    std::optional<FileRegion> region_;
};

}  // namespace weir::wire
