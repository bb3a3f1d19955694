#pragma once
// Values shared by every generated message codec: tagged fields the codec
// does not know (kept so they survive a decode/encode round trip) and the
// error thrown when a value cannot be encoded at the requested version.
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "protocol/wire/reader.h"

namespace weir::wire {

struct TaggedField {
    std::uint32_t tag = 0;
    Bytes data;

    bool operator==(const TaggedField&) const = default;
};

class EncodeError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace weir::wire
