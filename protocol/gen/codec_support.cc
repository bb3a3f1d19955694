#include "protocol/gen/codec_support.h"

#include <algorithm>
#include <numeric>

namespace weir::msg::detail {
namespace {

[[noreturn]] void throw_null_read(const char* field) {
    throw wire::DecodeError(std::string("null value in non-nullable field ") + field);
}

// Returns the payload of a string, or std::nullopt for null.
std::optional<std::string_view> read_string_view(wire::Reader& in, bool compact) {
    const std::int32_t n = in.string_length(compact);
    if (n < 0) return std::nullopt;
    if (static_cast<std::size_t>(n) > kMaxStringLength) throw wire::DecodeError("string longer than 32767 bytes");
    auto b = in.take(static_cast<std::size_t>(n));
    return std::string_view(reinterpret_cast<const char*>(b.data()), b.size());
}

void write_tag(wire::Writer& out, const wire::TaggedField& f) {
    out.unsigned_varint(f.tag);
    out.unsigned_varint(static_cast<std::uint32_t>(f.data.size()));
    out.raw(f.data);
}

}  // namespace

void throw_null(const char* field) {
    throw wire::EncodeError(std::string("null value in non-nullable field ") + field);
}

void throw_bad_version(const char* message, std::int16_t version, bool decoding) {
    std::string what = std::string(message) + ": unsupported version " + std::to_string(version);
    if (decoding) throw wire::DecodeError(what);
    throw wire::EncodeError(what);
}

bool get_bool(wire::Reader& in) { return in.boolean(); }
std::int8_t get_int8(wire::Reader& in) { return in.int8(); }
std::int16_t get_int16(wire::Reader& in) { return in.int16(); }
std::int32_t get_int32(wire::Reader& in) { return in.int32(); }
std::int64_t get_int64(wire::Reader& in) { return in.int64(); }
std::uint16_t get_uint16(wire::Reader& in) { return in.uint16(); }
std::uint32_t get_uint32(wire::Reader& in) { return in.uint32(); }
double get_float64(wire::Reader& in) { return in.float64(); }
Uuid get_uuid(wire::Reader& in) { return in.uuid(); }
std::uint32_t get_uvarint(wire::Reader& in) { return in.unsigned_varint(); }

void read_string_into(wire::Reader& in, bool compact, std::string& out, const char* field) {
    auto s = read_string_view(in, compact);
    if (!s) throw_null_read(field);
    out.assign(*s);
}

void read_nullable_string_into(wire::Reader& in, bool compact, bool nullable, std::optional<std::string>& out,
                               const char* field) {
    auto s = read_string_view(in, compact);
    if (!s) {
        if (!nullable) throw_null_read(field);
        out.reset();
        return;
    }
    if (out)
        out->assign(*s);
    else
        out.emplace(*s);
}

void read_bytes_into(wire::Reader& in, bool compact, wire::Bytes& out, const char* field) {
    auto b = in.nullable_bytes_view(compact);
    if (!b) throw_null_read(field);
    out.assign(b->begin(), b->end());
}

void read_nullable_bytes_into(wire::Reader& in, bool compact, bool nullable, std::optional<wire::Bytes>& out,
                              const char* field) {
    auto b = in.nullable_bytes_view(compact);
    if (!b) {
        if (!nullable) throw_null_read(field);
        out.reset();
        return;
    }
    if (out)
        out->assign(b->begin(), b->end());
    else
        out.emplace(b->begin(), b->end());
}

std::optional<wire::RecordsData> read_records(wire::Reader& in, bool compact, bool nullable, const char* field) {
    auto b = in.nullable_bytes_view(compact);
    if (!b) {
        if (!nullable) throw_null_read(field);
        return std::nullopt;
    }
    return wire::RecordsData(*b, in.owner());
}

std::int32_t read_array_length(wire::Reader& in, bool compact, bool nullable, const char* field) {
    const std::int32_t n = in.array_length(compact);
    if (n < 0 && !nullable) throw_null_read(field);
    return n;
}

wire::ByteSpan read_tag_payload(wire::Reader& in) { return in.take(in.unsigned_varint()); }

void expect_end(const wire::Reader& in, const char* field) {
    if (!in.at_end()) throw wire::DecodeError(std::string("tagged field not fully consumed: ") + field);
}

void read_unknown_tag(std::vector<wire::TaggedField>& fields, std::uint32_t tag, wire::ByteSpan payload) {
    fields.push_back(wire::TaggedField{tag, wire::Bytes(payload.begin(), payload.end())});
}

void read_unknown_tags(wire::Reader& in, std::vector<wire::TaggedField>& fields) {
    const std::uint32_t count = in.unsigned_varint();
    for (std::uint32_t i = 0; i < count; ++i) {
        const std::uint32_t tag = in.unsigned_varint();
        read_unknown_tag(fields, tag, read_tag_payload(in));
    }
}

void put_bool(wire::Writer& out, bool v) { out.boolean(v); }
void put_int8(wire::Writer& out, std::int8_t v) { out.int8(v); }
void put_int16(wire::Writer& out, std::int16_t v) { out.int16(v); }
void put_int32(wire::Writer& out, std::int32_t v) { out.int32(v); }
void put_int64(wire::Writer& out, std::int64_t v) { out.int64(v); }
void put_uint16(wire::Writer& out, std::uint16_t v) { out.uint16(v); }
void put_uint32(wire::Writer& out, std::uint32_t v) { out.uint32(v); }
void put_float64(wire::Writer& out, double v) { out.float64(v); }
void put_uuid(wire::Writer& out, const Uuid& v) { out.uuid(v); }
void put_uvarint(wire::Writer& out, std::uint32_t v) { out.unsigned_varint(v); }

void put_string(wire::Writer& out, bool compact, std::string_view s) {
    if (s.size() > kMaxStringLength) throw wire::EncodeError("string longer than 32767 bytes");
    out.string(compact, s);
}

void put_null_string(wire::Writer& out, bool compact) { out.string_length(compact, -1); }

void put_bytes(wire::Writer& out, bool compact, wire::ByteSpan b) {
    if (b.size() > 0x7fffffffU) throw wire::EncodeError("bytes value longer than 2^31-1");
    out.bytes(compact, b);
}

void put_records(wire::Writer& out, bool compact, const wire::RecordsData& v) {
    const auto* region = v.file_region();
    if (!region) return put_bytes(out, compact, v.bytes());
    if (region->length > 0x7fffffffU) throw wire::EncodeError("records value longer than 2^31-1");
    out.length(compact, static_cast<std::int64_t>(region->length));
    out.region(*region);
}

void put_length(wire::Writer& out, bool compact, std::int64_t n) {
    if (n > 0x7fffffff) throw wire::EncodeError("array longer than 2^31-1");
    out.length(compact, n);
}

std::size_t unknown_tags_size(const std::vector<wire::TaggedField>& fields) {
    std::size_t n = 0;
    for (const auto& f : fields) {
        n += wire::size_of::unsigned_varint(f.tag) +
             wire::size_of::unsigned_varint(static_cast<std::uint32_t>(f.data.size())) + f.data.size();
    }
    return n;
}

UnknownTagWriter::UnknownTagWriter(const std::vector<wire::TaggedField>& fields) : fields_(fields) {
    auto by_tag = [](const wire::TaggedField& a, const wire::TaggedField& b) { return a.tag < b.tag; };
    if (!std::is_sorted(fields.begin(), fields.end(), by_tag)) {
        order_.resize(fields.size());
        std::iota(order_.begin(), order_.end(), std::size_t{0});
        std::stable_sort(order_.begin(), order_.end(),
                         [&](std::size_t a, std::size_t b) { return fields[a].tag < fields[b].tag; });
    }
}

void UnknownTagWriter::write_before(wire::Writer& out, std::uint32_t known_tag) {
    while (next_ < fields_.size() && at(next_).tag <= known_tag) {
        if (at(next_).tag == known_tag) {
            throw wire::EncodeError("unknown tagged field reuses known tag " + std::to_string(known_tag));
        }
        write_tag(out, at(next_++));
    }
}

void UnknownTagWriter::write_rest(wire::Writer& out) {
    while (next_ < fields_.size()) write_tag(out, at(next_++));
}

}  // namespace weir::msg::detail
