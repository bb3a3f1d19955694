// Kafka's producer snapshot format: layout, CRC, files named by offset.
#include "broker/storage/producer_snapshot_file.h"

#include <gtest/gtest.h>

#include <fstream>

#include "broker/storage/log_error.h"
#include "broker/storage/test/storage_test_util.h"

namespace weir::storage {
namespace {

ProducerSnapshotEntry entry(std::int64_t pid) { return {pid, 3, 41, 1234, 9, 1700000000000, -1, -1}; }

TEST(ProducerSnapshotFile, LayoutIsKafkasVersionOne) {
    auto bytes = encode_producer_snapshot({entry(7), entry(8)});
    ASSERT_EQ(bytes.size(), 2u + 4 + 4 + 2 * 46);
    EXPECT_EQ(bytes[0], 0);
    EXPECT_EQ(bytes[1], 1);   // version
    EXPECT_EQ(bytes[9], 2);   // entry count, after the CRC
    EXPECT_EQ(bytes[17], 7);  // the first producer id's low byte
    auto crc = records::crc32c(wire::ByteSpan(bytes).subspan(6));
    EXPECT_EQ(bytes[2], static_cast<std::uint8_t>(crc >> 24));
    EXPECT_EQ(bytes[5], static_cast<std::uint8_t>(crc));
    auto decoded = decode_producer_snapshot(bytes);
    ASSERT_EQ(decoded.size(), 2u);
    EXPECT_EQ(decoded[0], entry(7));
    EXPECT_EQ(decoded[1], entry(8));
}

TEST(ProducerSnapshotFile, CorruptOrShortSnapshotsAreRefused) {
    auto bytes = encode_producer_snapshot({entry(7)});
    auto flipped = bytes;
    flipped[20] ^= 1;
    EXPECT_THROW(decode_producer_snapshot(flipped), wire::DecodeError);
    auto shorter = bytes;
    shorter.pop_back();
    EXPECT_THROW(decode_producer_snapshot(shorter), wire::DecodeError);
    auto versioned = bytes;
    versioned[1] = 2;
    EXPECT_THROW(decode_producer_snapshot(versioned), wire::DecodeError);
    EXPECT_THROW(decode_producer_snapshot(wire::Bytes{0, 1, 0}), wire::DecodeError);
}

TEST(ProducerSnapshotFile, FilesAreNamedByOffsetAndListedInOrder) {
    test::TempDir dir;
    write_producer_snapshot(dir.path(), 200, {entry(1)});
    write_producer_snapshot(dir.path(), 30, {});
    EXPECT_TRUE(std::filesystem::exists(dir.path() / "00000000000000000200.snapshot"));
    EXPECT_EQ(list_producer_snapshots(dir.path()), (std::vector<std::int64_t>{30, 200}));
    EXPECT_EQ(read_producer_snapshot(dir.path(), 200), std::vector{entry(1)});
    EXPECT_TRUE(read_producer_snapshot(dir.path(), 30).empty());
    delete_producer_snapshot(dir.path(), 30);
    EXPECT_EQ(list_producer_snapshots(dir.path()), (std::vector<std::int64_t>{200}));
    EXPECT_THROW(read_producer_snapshot(dir.path(), 30), StorageError);
}

}  // namespace
}  // namespace weir::storage
