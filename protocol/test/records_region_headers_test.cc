// Batch headers read from a file region: the same headers split_batches finds
// in the region's bytes, whatever the batch sizes against the read window,
// where the region starts and ends, and how its tail is cut.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>

#include "protocol/records/record_batch.h"

namespace weir::records {
namespace {

std::vector<Record> records_of(std::size_t n, std::size_t value_size) {
    std::vector<Record> out(n);
    for (std::size_t i = 0; i < n; ++i) {
        out[i].offset_delta = static_cast<std::int32_t>(i);
        out[i].value = Bytes(value_size, static_cast<std::uint8_t>('a' + i % 26));
    }
    return out;
}

struct RegionHeadersTest : ::testing::Test {
    std::filesystem::path path =
        std::filesystem::temp_directory_path() / ("weir-region-headers-" + std::to_string(::getpid()) + ".log");
    Bytes contents;
    std::vector<std::size_t> starts;  // where each batch begins
    int fd = -1;

    void add(const BatchBuilderOptions& options, std::span<const Record> records) {
        starts.push_back(contents.size());
        auto batch = build_batch(options, records);
        contents.insert(contents.end(), batch.begin(), batch.end());
    }
    void write() {
        std::ofstream(path, std::ios::binary)
            .write(reinterpret_cast<const char*>(contents.data()), static_cast<std::streamsize>(contents.size()));
        fd = ::open(path.c_str(), O_RDONLY);
        ASSERT_GE(fd, 0);
    }
    void TearDown() override {
        if (fd >= 0) ::close(fd);
        std::filesystem::remove(path);
    }
    wire::FileRegion region(std::size_t position, std::size_t length) const { return {fd, position, length, nullptr}; }
    std::vector<BatchHeader> expected(std::size_t position, std::size_t length) const {
        std::vector<BatchHeader> out;
        for (auto batch : split_batches(ByteSpan(contents).subspan(position, length), true))
            out.push_back(parse_batch_header(batch));
        return out;
    }
};

TEST_F(RegionHeadersTest, SmallAndLargeBatchesAsSplitBatchesFindsThem) {
    std::int64_t offset = 0;
    // Many small batches (several per read window), then batches larger than
    // the window, one zstd, then small ones again.
    for (int i = 0; i < 300; ++i, ++offset) add({.base_offset = offset}, records_of(1, 200 + i % 7));
    add({.base_offset = offset++, .compression = Compression::none}, records_of(1, 200'000));
    add({.base_offset = offset++, .compression = Compression::zstd}, records_of(3, 1'000));
    add({.base_offset = offset++, .compression = Compression::none}, records_of(2, 70'000));
    for (int i = 0; i < 50; ++i, ++offset)
        add({.base_offset = offset, .compression = Compression::lz4}, records_of(1, 90));
    write();

    const auto all = read_batch_headers(region(0, contents.size()));
    ASSERT_EQ(all.size(), starts.size());
    EXPECT_EQ(all, expected(0, contents.size()));
    EXPECT_EQ(all[301].compression(), Compression::zstd);

    // Regions starting at any batch and ending at a batch boundary, inside a
    // header or inside a body.
    for (std::size_t first = 0; first < starts.size(); first += 23) {
        const auto from = starts[first];
        for (std::size_t end : {contents.size(), contents.size() - 1, starts[300] + 30, starts[300] + 100'000,
                                starts[302] + kBatchHeaderSize, from + 1, from}) {
            if (end < from) continue;
            EXPECT_EQ(read_batch_headers(region(from, end - from)), expected(from, end - from))
                << "from " << from << " to " << end;
        }
    }
}

TEST_F(RegionHeadersTest, ATailOfAnotherMagicOrAFileShorterThanTheRegionThrows) {
    add({}, records_of(2, 100));
    const auto tail = contents.size();
    contents.insert(contents.end(), 20, 0);
    contents[tail + kMagicOffset] = 1;  // a v1 message's magic
    write();
    EXPECT_THROW(read_batch_headers(region(0, contents.size())), wire::DecodeError);
    EXPECT_THROW(split_batches(contents, true), wire::DecodeError);
    // Records cut from the file after the region was taken.
    EXPECT_THROW(read_batch_headers(region(0, contents.size() + 500)), std::runtime_error);
    // Nothing to read.
    EXPECT_TRUE(read_batch_headers(region(contents.size(), 0)).empty());
}

}  // namespace
}  // namespace weir::records
