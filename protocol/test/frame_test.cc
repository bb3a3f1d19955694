// Records left in a file: a writer that collects splices leaves large regions
// out of its buffer and copies small ones; a Fetch response so encoded and
// flattened decodes to the same records as one encoded wholly in memory.
#include "protocol/wire/frame.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "messages/fetch.h"

namespace weir::wire {
namespace {

struct OpenFile {
    explicit OpenFile(const std::filesystem::path& path) : fd(::open(path.c_str(), O_RDONLY)) {}
    OpenFile(const OpenFile&) = delete;
    OpenFile& operator=(const OpenFile&) = delete;
    ~OpenFile() { ::close(fd); }
    int fd;
};

struct FileRegionTest : ::testing::Test {
    std::filesystem::path path =
        std::filesystem::temp_directory_path() / ("weir-frame-test-" + std::to_string(::getpid()) + ".bin");
    Bytes contents;
    std::shared_ptr<OpenFile> file;

    void SetUp() override {
        contents.resize(100'000);
        for (std::size_t i = 0; i < contents.size(); ++i) contents[i] = static_cast<std::uint8_t>(i * 13 + i / 7);
        std::ofstream(path, std::ios::binary)
            .write(reinterpret_cast<const char*>(contents.data()), static_cast<std::streamsize>(contents.size()));
        file = std::make_shared<OpenFile>(path);
    }
    void TearDown() override { std::filesystem::remove(path); }

    FileRegion region(std::uint64_t position, std::size_t length) const { return {file->fd, position, length, file}; }
    Bytes slice(std::size_t position, std::size_t length) const {
        return {contents.begin() + static_cast<std::ptrdiff_t>(position),
                contents.begin() + static_cast<std::ptrdiff_t>(position + length)};
    }
};

TEST_F(FileRegionTest, AWriterSplicesLargeRegionsAndCopiesSmallOnes) {
    Frame frame;
    Writer w(frame.bytes, &frame.splices);
    w.int32(7);
    w.region(region(10, kMinSplicedBytes));  // spliced
    w.int8(1);
    w.region(region(50'000, 100));  // copied
    w.region(region(60'000, kMinSplicedBytes + 1));
    ASSERT_EQ(frame.splices.size(), 2u);
    EXPECT_EQ(frame.splices[0].at, 4u);
    EXPECT_EQ(frame.splices[1].at, 4u + 1 + 100);
    EXPECT_EQ(frame.bytes.size(), 4u + 1 + 100);
    EXPECT_EQ(frame.size(), 4u + 1 + 100 + 2 * kMinSplicedBytes + 1);

    Bytes want{0, 0, 0, 7};
    const auto append = [&want](const Bytes& b) { want.insert(want.end(), b.begin(), b.end()); };
    append(slice(10, kMinSplicedBytes));
    want.push_back(1);
    append(slice(50'000, 100));
    append(slice(60'000, kMinSplicedBytes + 1));
    EXPECT_EQ(frame.flatten(), want);

    // Without a splice list everything is copied.
    Bytes plain;
    Writer p(plain);
    p.int32(7);
    p.region(region(10, kMinSplicedBytes));
    EXPECT_EQ(plain.size(), 4u + kMinSplicedBytes);
}

TEST_F(FileRegionTest, AFetchResponseWithFileRecordsEncodesAsWithCopiedOnes) {
    for (std::int16_t version : {4, 11, 12, 16}) {
        msg::FetchResponse in_file;
        msg::FetchResponse in_memory;
        for (auto* response : {&in_file, &in_memory}) {
            auto& topic = response->responses.emplace_back();
            topic.topic = "orders";
            for (int p = 0; p < 3; ++p) topic.partitions.emplace_back().partition_index = p;
        }
        const std::pair<std::uint64_t, std::size_t> parts[] = {{0, 40'000}, {40'000, 0}, {40'000, 500}};
        for (int p = 0; p < 3; ++p) {
            in_file.responses[0].partitions[p].records = RecordsData(region(parts[p].first, parts[p].second));
            in_memory.responses[0].partitions[p].records = RecordsData(slice(parts[p].first, parts[p].second));
        }
        Frame spliced;
        Writer w(spliced.bytes, &spliced.splices);
        in_file.encode(w, version);
        EXPECT_EQ(spliced.splices.size(), 1u);
        EXPECT_EQ(spliced.size(), in_file.size(version));
        Bytes copied;
        Writer c(copied);
        in_memory.encode(c, version);
        ASSERT_EQ(spliced.flatten(), copied) << "version " << version;
        Reader r(copied);
        auto decoded = msg::FetchResponse::decode(r, version);
        EXPECT_EQ(decoded.responses[0].partitions[0].records->bytes().size(), 40'000u);
        EXPECT_EQ(decoded.responses[0].partitions[0].records, in_file.responses[0].partitions[0].records);
    }
}

TEST_F(FileRegionTest, ReadingARegionPastTheEndOfItsFileThrows) {
    EXPECT_THROW((void)read_region(region(contents.size() - 10, 20)), std::runtime_error);
    Bytes out{1, 2};
    EXPECT_THROW(append_region(out, region(contents.size() - 10, 20)), std::runtime_error);
    EXPECT_EQ(out, (Bytes{1, 2}));  // nothing half-appended
}

TEST_F(FileRegionTest, RecordsInAFileHaveNoBytesInMemory) {
    RecordsData records(region(0, 10));
    EXPECT_EQ(records.size(), 10u);
    EXPECT_FALSE(records.empty());
    EXPECT_THROW((void)records.bytes(), std::logic_error);
    EXPECT_EQ(records, RecordsData(slice(0, 10)));
    EXPECT_FALSE(records == RecordsData(slice(1, 10)));
}

}  // namespace
}  // namespace weir::wire
