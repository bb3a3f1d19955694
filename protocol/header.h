#pragma once
// Request header v0/v1/v2 and response header v0/v1, and the rule that picks
// them. The client id stays a classic (non-compact) nullable string even in
// header v2; only the tagged-field section is flexible.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "protocol/wire/reader.h"
#include "protocol/wire/tagged_fields.h"
#include "protocol/wire/writer.h"

namespace weir::protocol {

struct RequestHeader {
    std::int16_t api_key = 0;
    std::int16_t api_version = 0;
    std::int32_t correlation_id = 0;
    std::optional<std::string> client_id;
    std::vector<wire::TaggedField> unknown_tagged_fields;
    bool operator==(const RequestHeader&) const = default;
};

// 2 for flexible API versions, 1 otherwise (v0 is only ControlledShutdown v0,
// which Weir does not serve). Unknown APIs get 1: enough to read the key,
// version and correlation id for an error answer.
int request_header_version(std::int16_t api_key, std::int16_t api_version);
// 1 for flexible API versions, except ApiVersions which always answers with
// v0 so a client can read it whatever version it asked for (KIP-511).
int response_header_version(std::int16_t api_key, std::int16_t api_version);

void encode_request_header(wire::Writer& w, const RequestHeader& h, int header_version);
RequestHeader decode_request_header(wire::Reader& r, int header_version);
// Reads the header of a frame (the bytes after the size prefix), choosing the
// header version from the key and version it finds.
RequestHeader decode_request_header(wire::Reader& r);

void encode_response_header(wire::Writer& w, std::int32_t correlation_id, int header_version);
std::size_t response_header_size(int header_version);
struct ResponseHeader {
    std::int32_t correlation_id = 0;
    std::vector<wire::TaggedField> unknown_tagged_fields;
};
ResponseHeader decode_response_header(wire::Reader& r, int header_version);

}  // namespace weir::protocol
