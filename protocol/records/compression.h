#pragma once
// The four Kafka codecs as whole-buffer calls into zlib, snappy, liblz4 and
// libzstd. Decompression is always bounded: a small input that would inflate
// past `max_output` throws instead of exhausting memory.
#include <cstddef>

#include "protocol/records/record_batch.h"

namespace weir::records {

struct CodecOptions {
    // Decompression only: the output may not exceed this many bytes.
    std::size_t max_output = kDefaultMaxDecompressedSize;
    // Magic v0 message sets: Kafka 0.8/0.9 computed the LZ4 frame header
    // checksum over the magic number too. Reading ignores that byte (as Kafka
    // does for magic 0); writing reproduces the broken value old clients expect.
    bool lz4_magic_v0 = false;
    // Compression only: wrap snappy in snappy-java's xerial framing (what the
    // Java producer sends) instead of raw snappy (what librdkafka sends).
    bool snappy_xerial = false;
};

// Throws std::invalid_argument for Compression::none or an unknown codec.
Bytes compress(Compression codec, ByteSpan data, const CodecOptions& options = {});

// Throws wire::DecodeError on corrupt or truncated input, an unknown codec, or
// output larger than options.max_output. Snappy input may be raw or xerial-framed;
// gzip input may also be zlib-framed; concatenated gzip/lz4/zstd frames are read.
Bytes decompress(Compression codec, ByteSpan data, const CodecOptions& options = {});

[[nodiscard]] const char* compression_name(Compression codec);

}  // namespace weir::records
