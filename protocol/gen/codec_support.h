#pragma once
// Runtime helpers called by the generated message codecs (codegen.py). Kept
// out of the generated files so each helper is compiled and reviewed once.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/wire/reader.h"
#include "protocol/wire/records_data.h"
#include "protocol/wire/tagged_fields.h"
#include "protocol/wire/writer.h"

namespace weir::msg::detail {

// Kafka caps every string at an int16 length, compact ones included.
inline constexpr std::size_t kMaxStringLength = 0x7fff;

[[noreturn]] inline void throw_null(const char* field) {
    throw wire::EncodeError(std::string("null value in non-nullable field ") + field);
}

[[noreturn]] inline void throw_bad_version(const char* message, std::int16_t version, bool decoding) {
    std::string what = std::string(message) + ": unsupported version " + std::to_string(version);
    if (decoding) throw wire::DecodeError(what);
    throw wire::EncodeError(what);
}

[[noreturn]] inline void throw_null_read(const char* field) {
    throw wire::DecodeError(std::string("null value in non-nullable field ") + field);
}

inline std::string_view as_chars(wire::ByteSpan b) {
    return {reinterpret_cast<const char*>(b.data()), b.size()};
}

// Returns the payload of a string, or std::nullopt for null.
inline std::optional<std::string_view> read_string_view(wire::Reader& in, bool compact) {
    const std::int32_t n = in.string_length(compact);
    if (n < 0) return std::nullopt;
    if (static_cast<std::size_t>(n) > kMaxStringLength) throw wire::DecodeError("string longer than 32767 bytes");
    return as_chars(in.take(static_cast<std::size_t>(n)));
}

inline std::string read_string(wire::Reader& in, bool compact, const char* field) {
    auto s = read_string_view(in, compact);
    if (!s) throw_null_read(field);
    return std::string(*s);
}

inline std::optional<std::string> read_nullable_string(wire::Reader& in, bool compact, bool nullable,
                                                       const char* field) {
    auto s = read_string_view(in, compact);
    if (!s) {
        if (!nullable) throw_null_read(field);
        return std::nullopt;
    }
    return std::string(*s);
}

inline wire::Bytes read_bytes(wire::Reader& in, bool compact, const char* field) {
    auto b = in.nullable_bytes_view(compact);
    if (!b) throw_null_read(field);
    return wire::Bytes(b->begin(), b->end());
}

inline std::optional<wire::Bytes> read_nullable_bytes(wire::Reader& in, bool compact, bool nullable,
                                                      const char* field) {
    auto b = in.nullable_bytes_view(compact);
    if (!b) {
        if (!nullable) throw_null_read(field);
        return std::nullopt;
    }
    return wire::Bytes(b->begin(), b->end());
}

// Aliases the input when the reader has an owner (zero copy).
inline std::optional<wire::RecordsData> read_records(wire::Reader& in, bool compact, bool nullable,
                                                     const char* field) {
    auto b = in.nullable_bytes_view(compact);
    if (!b) {
        if (!nullable) throw_null_read(field);
        return std::nullopt;
    }
    return wire::RecordsData(*b, in.owner());
}

// Array element count; -1 (null) is only accepted when nullable.
inline std::int32_t read_array_length(wire::Reader& in, bool compact, bool nullable, const char* field) {
    const std::int32_t n = in.array_length(compact);
    if (n < 0 && !nullable) throw_null_read(field);
    return n;
}

inline void write_string(wire::Writer& out, bool compact, std::string_view s) {
    if (s.size() > kMaxStringLength) throw wire::EncodeError("string longer than 32767 bytes");
    out.string(compact, s);
}

inline void expect_end(const wire::Reader& in, const char* field) {
    if (!in.at_end()) throw wire::DecodeError(std::string("tagged field not fully consumed: ") + field);
}

inline std::size_t unknown_tags_size(const std::vector<wire::TaggedField>& fields) {
    std::size_t n = 0;
    for (const auto& f : fields) {
        n += wire::size_of::unsigned_varint(f.tag) +
             wire::size_of::unsigned_varint(static_cast<std::uint32_t>(f.data.size())) + f.data.size();
    }
    return n;
}

inline void read_unknown_tag(std::vector<wire::TaggedField>& fields, std::uint32_t tag, wire::ByteSpan payload) {
    fields.push_back(wire::TaggedField{tag, wire::Bytes(payload.begin(), payload.end())});
}

// Tagged-field section without known tags: keep them all.
inline void read_unknown_tags(wire::Reader& in, std::vector<wire::TaggedField>& fields) {
    const std::uint32_t count = in.unsigned_varint();
    for (std::uint32_t i = 0; i < count; ++i) {
        const std::uint32_t tag = in.unsigned_varint();
        read_unknown_tag(fields, tag, in.take(in.unsigned_varint()));
    }
}

// Writes unknown tagged fields in ascending tag order, interleaved with the
// known ones the generated code writes between calls.
class UnknownTagWriter {
public:
    explicit UnknownTagWriter(const std::vector<wire::TaggedField>& fields) : fields_(fields) {
        auto by_tag = [](const wire::TaggedField& a, const wire::TaggedField& b) { return a.tag < b.tag; };
        if (!std::is_sorted(fields.begin(), fields.end(), by_tag)) {
            order_.resize(fields.size());
            std::iota(order_.begin(), order_.end(), std::size_t{0});
            std::stable_sort(order_.begin(), order_.end(),
                             [&](std::size_t a, std::size_t b) { return fields[a].tag < fields[b].tag; });
        }
    }

    // Writes the unknown fields whose tag is below `known_tag`; an unknown
    // field reusing a known tag would decode as the known field, so refuse it.
    void write_before(wire::Writer& out, std::uint32_t known_tag) {
        while (next_ < fields_.size() && at(next_).tag <= known_tag) {
            if (at(next_).tag == known_tag) {
                throw wire::EncodeError("unknown tagged field reuses known tag " + std::to_string(known_tag));
            }
            write(out, at(next_++));
        }
    }
    void write_rest(wire::Writer& out) {
        while (next_ < fields_.size()) write(out, at(next_++));
    }

private:
    const wire::TaggedField& at(std::size_t i) const { return order_.empty() ? fields_[i] : fields_[order_[i]]; }
    static void write(wire::Writer& out, const wire::TaggedField& f) {
        out.unsigned_varint(f.tag);
        out.unsigned_varint(static_cast<std::uint32_t>(f.data.size()));
        out.raw(f.data);
    }

    const std::vector<wire::TaggedField>& fields_;
    std::vector<std::size_t> order_;
    std::size_t next_ = 0;
};

}  // namespace weir::msg::detail
