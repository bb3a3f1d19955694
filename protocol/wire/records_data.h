#pragma once
// The value of a `records` field: a byte range that either aliases a received
// frame (kept alive by `owner`) or owns its bytes. Decoding a Produce request
// this way costs no copy of the record data.
#include <algorithm>
#include <memory>

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

    [[nodiscard]] ByteSpan bytes() const { return view_; }
    [[nodiscard]] std::size_t size() const { return view_.size(); }
    [[nodiscard]] bool empty() const { return view_.empty(); }

    friend bool operator==(const RecordsData& a, const RecordsData& b) { return std::ranges::equal(a.view_, b.view_); }

private:
    ByteSpan view_;
    std::shared_ptr<const void> owner_;
};

}  // namespace weir::wire
