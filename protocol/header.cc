#include "protocol/header.h"

#include "messages/api_table.h"

namespace weir::protocol {
namespace {

bool is_flexible(std::int16_t api_key, std::int16_t api_version) {
    const auto* api = msg::find_api(api_key);
    return api && api->first_flexible_version >= 0 && api_version >= api->first_flexible_version;
}

void write_tags(wire::Writer& w, const std::vector<wire::TaggedField>& tags) {
    w.unsigned_varint(static_cast<std::uint32_t>(tags.size()));
    for (const auto& t : tags) {
        w.unsigned_varint(t.tag);
        w.unsigned_varint(static_cast<std::uint32_t>(t.data.size()));
        w.raw(t.data);
    }
}

std::vector<wire::TaggedField> read_tags(wire::Reader& r) {
    std::vector<wire::TaggedField> tags;
    auto n = r.unsigned_varint();
    if (n > r.remaining()) throw wire::DecodeError("tagged field count exceeds input");
    for (std::uint32_t i = 0; i < n; ++i) {
        wire::TaggedField t;
        t.tag = r.unsigned_varint();
        auto len = r.unsigned_varint();
        auto data = r.take(len);
        t.data.assign(data.begin(), data.end());
        tags.push_back(std::move(t));
    }
    return tags;
}

}  // namespace

int request_header_version(std::int16_t api_key, std::int16_t api_version) {
    return is_flexible(api_key, api_version) ? 2 : 1;
}

int response_header_version(std::int16_t api_key, std::int16_t api_version) {
    if (api_key == static_cast<std::int16_t>(msg::ApiKey::ApiVersions)) return 0;
    return is_flexible(api_key, api_version) ? 1 : 0;
}

void encode_request_header(wire::Writer& w, const RequestHeader& h, int header_version) {
    w.int16(h.api_key);
    w.int16(h.api_version);
    w.int32(h.correlation_id);
    if (header_version >= 1) w.nullable_string(false, h.client_id);
    if (header_version >= 2) write_tags(w, h.unknown_tagged_fields);
}

RequestHeader decode_request_header(wire::Reader& r, int header_version) {
    RequestHeader h;
    h.api_key = r.int16();
    h.api_version = r.int16();
    h.correlation_id = r.int32();
    if (header_version >= 1) h.client_id = r.nullable_string(false);
    if (header_version >= 2) h.unknown_tagged_fields = read_tags(r);
    return h;
}

RequestHeader decode_request_header(wire::Reader& r) {
    wire::Reader peek(r.rest());
    auto key = peek.int16();
    auto version = peek.int16();
    return decode_request_header(r, request_header_version(key, version));
}

void encode_response_header(wire::Writer& w, std::int32_t correlation_id, int header_version) {
    w.int32(correlation_id);
    if (header_version >= 1) w.unsigned_varint(0);
}

std::size_t response_header_size(int header_version) { return header_version >= 1 ? 5 : 4; }

ResponseHeader decode_response_header(wire::Reader& r, int header_version) {
    ResponseHeader h;
    h.correlation_id = r.int32();
    if (header_version >= 1) h.unknown_tagged_fields = read_tags(r);
    return h;
}

}  // namespace weir::protocol
