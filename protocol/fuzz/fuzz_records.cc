// Record data as it arrives in Produce requests: v2 batches (validated deep,
// also as the produce path does with its in-place maxTimestamp fix-up,
// records decoded, down-converted) and legacy message sets (parsed,
// up-converted). Only DecodeError and UnsupportedCompressionError may escape.
#include <cstddef>
#include <cstdint>

#include "protocol/records/conversion.h"
#include "protocol/records/legacy_message_set.h"
#include "protocol/records/record_batch.h"

using namespace weir;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    wire::ByteSpan input{data, size};
    constexpr std::size_t kMaxInflate = 4u << 20;
    try {
        records::ValidateOptions options;
        options.deep = true;
        options.max_decompressed_size = kMaxInflate;
        for (auto batch : records::split_batches(input, true)) {
            if (records::crc_valid(batch)) (void)records::decode_records(batch, kMaxInflate);
        }
        (void)records::validate_batches(input, options);
        // The produce path's variant rewrites headers in place, so it gets a copy.
        wire::Bytes produced(input.begin(), input.end());
        (void)records::validate_produced_batches(produced, records::TimestampType::create_time, kMaxInflate);
        records::DownConvertOptions down;
        down.max_decompressed_size = kMaxInflate;
        (void)records::down_convert(input, down);
    } catch (const wire::DecodeError&) {
    } catch (const records::UnsupportedCompressionError&) {
    }
    try {
        records::UpConvertOptions up;
        up.max_decompressed_size = kMaxInflate;
        (void)records::up_convert(input, up);
    } catch (const wire::DecodeError&) {
    }
    return 0;
}
