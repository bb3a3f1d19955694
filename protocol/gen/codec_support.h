#pragma once
// Runtime helpers called by the generated message codecs (codegen.py).
// They are out of line on purpose: inlining the Reader/Writer bodies (and
// their throw paths) into every field of every message made the generated
// code slow to compile for a call that costs a few nanoseconds.
#include <cstdint>
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

[[noreturn]] void throw_null(const char* field);
[[noreturn]] void throw_bad_version(const char* message, std::int16_t version, bool decoding);

bool get_bool(wire::Reader& in);
std::int8_t get_int8(wire::Reader& in);
std::int16_t get_int16(wire::Reader& in);
std::int32_t get_int32(wire::Reader& in);
std::int64_t get_int64(wire::Reader& in);
std::uint16_t get_uint16(wire::Reader& in);
std::uint32_t get_uint32(wire::Reader& in);
double get_float64(wire::Reader& in);
Uuid get_uuid(wire::Reader& in);
std::uint32_t get_uvarint(wire::Reader& in);

// The *_into readers assign into existing storage (no temporaries).
void read_string_into(wire::Reader& in, bool compact, std::string& out, const char* field);
void read_nullable_string_into(wire::Reader& in, bool compact, bool nullable, std::optional<std::string>& out,
                               const char* field);
void read_bytes_into(wire::Reader& in, bool compact, wire::Bytes& out, const char* field);
void read_nullable_bytes_into(wire::Reader& in, bool compact, bool nullable, std::optional<wire::Bytes>& out,
                              const char* field);
// Aliases the input when the reader has an owner (zero copy).
std::optional<wire::RecordsData> read_records(wire::Reader& in, bool compact, bool nullable, const char* field);
// Array element count; -1 (null) is only accepted when nullable.
std::int32_t read_array_length(wire::Reader& in, bool compact, bool nullable, const char* field);

// How many elements to reserve for an array of `count` variable-size
// elements. The count is only known to be at most the remaining input bytes,
// and a decoded element can be far larger than its encoding, so a hostile
// count must not turn into a huge allocation up front.
inline std::size_t reserve_hint(std::int32_t count) {
    constexpr std::int32_t kMaxReserve = 1024;
    return static_cast<std::size_t>(count < kMaxReserve ? count : kMaxReserve);
}
// Payload of one tagged field; the caller decodes it with a bounded Reader.
wire::ByteSpan read_tag_payload(wire::Reader& in);
void expect_end(const wire::Reader& in, const char* field);
void read_unknown_tag(std::vector<wire::TaggedField>& fields, std::uint32_t tag, wire::ByteSpan payload);
// Tagged-field section of a struct without known tags: keep them all.
void read_unknown_tags(wire::Reader& in, std::vector<wire::TaggedField>& fields);

void put_bool(wire::Writer& out, bool v);
void put_int8(wire::Writer& out, std::int8_t v);
void put_int16(wire::Writer& out, std::int16_t v);
void put_int32(wire::Writer& out, std::int32_t v);
void put_int64(wire::Writer& out, std::int64_t v);
void put_uint16(wire::Writer& out, std::uint16_t v);
void put_uint32(wire::Writer& out, std::uint32_t v);
void put_float64(wire::Writer& out, double v);
void put_uuid(wire::Writer& out, const Uuid& v);
void put_uvarint(wire::Writer& out, std::uint32_t v);
void put_string(wire::Writer& out, bool compact, std::string_view s);
void put_null_string(wire::Writer& out, bool compact);
void put_bytes(wire::Writer& out, bool compact, wire::ByteSpan b);
// Records in a file region are spliced or copied as the writer decides.
void put_records(wire::Writer& out, bool compact, const wire::RecordsData& v);
// Length prefix of an array, bytes or records value; -1 = null.
void put_length(wire::Writer& out, bool compact, std::int64_t n);

std::size_t unknown_tags_size(const std::vector<wire::TaggedField>& fields);

// Writes unknown tagged fields in ascending tag order, interleaved with the
// known ones the generated code writes between calls.
class UnknownTagWriter {
public:
    explicit UnknownTagWriter(const std::vector<wire::TaggedField>& fields);

    // Writes the unknown fields whose tag is below `known_tag`; an unknown
    // field reusing a known tag would decode as the known field, so refuse it.
    void write_before(wire::Writer& out, std::uint32_t known_tag);
    void write_rest(wire::Writer& out);

private:
    [[nodiscard]] const wire::TaggedField& at(std::size_t i) const {
        return order_.empty() ? fields_[i] : fields_[order_[i]];
    }

    const std::vector<wire::TaggedField>& fields_;
    std::vector<std::size_t> order_;  // empty when fields_ is already sorted
    std::size_t next_ = 0;
};

}  // namespace weir::msg::detail
