// CRC32C (record batches) against published vectors and a batch built by an
// independent implementation (kafka-python's pure-Python crc32c).
#include <gtest/gtest.h>

#include <numeric>
#include <string_view>

#include "protocol/records/record_batch.h"

namespace weir::records {
namespace {

ByteSpan as_bytes(std::string_view s) { return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()}; }

TEST(Crc32c, CheckString) { EXPECT_EQ(crc32c(as_bytes("123456789")), 0xE3069283u); }

TEST(Crc32c, Rfc3720Vectors) {
    Bytes zeros(32, 0x00);
    Bytes ones(32, 0xFF);
    Bytes inc(32);
    std::iota(inc.begin(), inc.end(), std::uint8_t{0});
    EXPECT_EQ(crc32c(zeros), 0x8A9136AAu);
    EXPECT_EQ(crc32c(ones), 0x62A8AB43u);
    EXPECT_EQ(crc32c(inc), 0x46DD794Eu);
}

TEST(Crc32c, EmptyIsZero) { EXPECT_EQ(crc32c(ByteSpan{}), 0u); }

TEST(Crc32c, SeedContinuesAcrossChunks) {
    auto all = as_bytes("The quick brown fox jumps over the lazy dog");
    for (std::size_t split = 0; split <= all.size(); ++split) {
        std::uint32_t first = crc32c(all.first(split));
        EXPECT_EQ(crc32c(all.subspan(split), first), crc32c(all)) << split;
    }
}

TEST(Crc32c, OddLengthsAndAlignments) {
    // Exercise the SIMD path's head/tail handling against the byte-by-byte chain.
    Bytes data(1000);
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i * 131 + 7);
    for (std::size_t off = 0; off < 9; ++off) {
        for (std::size_t len : {0u, 1u, 7u, 8u, 15u, 16u, 63u, 64u, 255u, 256u, 991u}) {
            auto s = ByteSpan(data).subspan(off, len);
            std::uint32_t chained = 0;
            for (std::size_t i = 0; i < s.size(); ++i) chained = crc32c(s.subspan(i, 1), chained);
            EXPECT_EQ(crc32c(s), chained) << off << "/" << len;
        }
    }
}

// Made with Debian's python3-kafka 2.0.2 (kafka/record/default_records.py):
//   b = DefaultRecordBatchBuilder(magic=2, compression_type=0, is_transactional=0,
//         producer_id=1000, producer_epoch=3, base_sequence=7, batch_size=1<<20)
//   b.append(0, timestamp=1700000000000, key=b'key-0', value=b'value-0',
//            headers=[('h1', b'v1'), ('h2', None)])
//   b.append(1, timestamp=1700000000005, key=None, value=b'value-1', headers=[])
//   b.append(2, timestamp=1700000000003, key=b'key-2', value=None, headers=[])
//   b.build()
// Its CRC (0x9874b64b) was computed by kafka-python's own crc32c code.
const Bytes kPythonBatch = {
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x68, 0x00, 0x00, 0x00, 0x00, 0x02,
    0x98, 0x74, 0xb6, 0x4b, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68,
    0x00, 0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xe8,
    0x00, 0x03, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x03, 0x38, 0x00, 0x00, 0x00, 0x0a, 0x6b, 0x65,
    0x79, 0x2d, 0x30, 0x0e, 0x76, 0x61, 0x6c, 0x75, 0x65, 0x2d, 0x30, 0x04, 0x04, 0x68, 0x31, 0x04, 0x76,
    0x31, 0x04, 0x68, 0x32, 0x01, 0x1a, 0x00, 0x0a, 0x02, 0x01, 0x0e, 0x76, 0x61, 0x6c, 0x75, 0x65, 0x2d,
    0x31, 0x00, 0x16, 0x00, 0x06, 0x04, 0x0a, 0x6b, 0x65, 0x79, 0x2d, 0x32, 0x01, 0x00,
};

TEST(Crc32c, MatchesClientBuiltBatch) {
    EXPECT_EQ(crc32c(ByteSpan(kPythonBatch).subspan(kAttributesOffset)), 0x9874B64Bu);
    EXPECT_TRUE(crc_valid(kPythonBatch));
}

TEST(Crc32c, EveryFlippedBitIsDetected) {
    for (std::size_t i = kAttributesOffset; i < kPythonBatch.size(); ++i) {
        for (int bit = 0; bit < 8; ++bit) {
            Bytes b = kPythonBatch;
            b[i] ^= static_cast<std::uint8_t>(1 << bit);
            EXPECT_FALSE(crc_valid(b)) << i << ":" << bit;
        }
    }
}

TEST(Crc32c, FieldsOutsideTheCrcDoNotMatter) {
    Bytes b = kPythonBatch;
    set_base_offset(b, 123456789);
    set_partition_leader_epoch(b, 42);
    EXPECT_TRUE(crc_valid(b));
}

}  // namespace
}  // namespace weir::records
