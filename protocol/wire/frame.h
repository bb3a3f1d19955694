#pragma once
// An encoded frame ready to send: its bytes, with file regions to be sent
// from their files at the places `splices` names (zero-copy records).
#include <utility>
#include <vector>

#include "protocol/wire/writer.h"

namespace weir::wire {

struct Frame {
    Frame() = default;
    // A frame held wholly in memory.
    Frame(Bytes b) : bytes(std::move(b)) {}  // NOLINT(google-explicit-constructor)

    Bytes bytes;
    std::vector<Splice> splices;  // ascending `at`

    // Bytes on the wire.
    [[nodiscard]] std::size_t size() const {
        auto n = bytes.size();
        for (const auto& s : splices) n += s.region.length;
        return n;
    }
    // The whole frame in memory, regions read from their files.
    [[nodiscard]] Bytes flatten() const {
        if (splices.empty()) return bytes;
        Bytes out;
        out.reserve(size());
        std::size_t from = 0;
        for (const auto& s : splices) {
            out.insert(out.end(), bytes.begin() + static_cast<std::ptrdiff_t>(from),
                       bytes.begin() + static_cast<std::ptrdiff_t>(s.at));
            append_region(out, s.region);
            from = s.at;
        }
        out.insert(out.end(), bytes.begin() + static_cast<std::ptrdiff_t>(from), bytes.end());
        return out;
    }
};

}  // namespace weir::wire
