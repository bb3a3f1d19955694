// Request frames as the broker sees them: header, then the body decoded with
// the generated codec of whatever API and version the header names. Anything
// that decodes must re-encode (size() exact) to bytes that are a fixed point:
// decoding and encoding them again gives the same bytes. (Not the same value:
// input may hold unknown tags out of order, which encoding sorts.)
#include <cstddef>
#include <cstdint>

#include "messages/api_table.h"
#include "protocol/header.h"

using namespace weir;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    wire::Reader reader({data, size});
    protocol::RequestHeader header;
    try {
        header = protocol::decode_request_header(reader);
    } catch (const wire::DecodeError&) {
        return 0;
    }
    const auto* api = msg::find_api(header.api_key);
    if (!api || header.api_version < api->min_version || header.api_version > api->max_version) return 0;
    msg::visit_api(api->key, [&](auto request_type, auto) {
        using Request = typename decltype(request_type)::type;
        try {
            auto request = Request::decode(reader, header.api_version);
            wire::Bytes out;
            wire::Writer w(out);
            request.encode(w, header.api_version);
            if (out.size() != request.size(header.api_version)) __builtin_trap();
            wire::Reader again(out);
            auto reparsed = Request::decode(again, header.api_version);
            if (!again.at_end()) __builtin_trap();
            wire::Bytes out2;
            wire::Writer w2(out2);
            reparsed.encode(w2, header.api_version);
            if (out2 != out) __builtin_trap();
        } catch (const wire::DecodeError&) {
        } catch (const wire::EncodeError&) {
        }
    });
    return 0;
}
