#include "cli/dumplog/log_file_dump.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "cli/dumplog/test/dumplog_test_util.h"
#include "protocol/records/legacy_message_set.h"

namespace weir::cli::dumplog {
namespace {

using namespace test;

std::string expected_batch_line(const records::BatchHeader& h, std::uint64_t position, const char* codec,
                                std::int32_t last_sequence) {
    return fmt::format(
        "baseOffset: {} lastOffset: {} count: {} baseSequence: {} lastSequence: {} producerId: {} producerEpoch: {} "
        "partitionLeaderEpoch: {} isTransactional: {} isControl: {} deleteHorizonMs: OptionalLong.empty "
        "position: {} CreateTime: {} size: {} magic: 2 compresscodec: {} crc: {} isvalid: true",
        h.base_offset, h.last_offset(), h.record_count, h.base_sequence, last_sequence, h.producer_id, h.producer_epoch,
        h.partition_leader_epoch, h.is_transactional(), h.is_control(), position, h.max_timestamp, h.total_size(),
        codec, h.crc);
}

TEST(LogFileDump, PrintsEveryBatchAsKafkaDoes) {
    TempDir dir;
    const auto w = write_segment(dir.path());
    const auto r = run({w.log.string()});
    EXPECT_EQ(r.code, 0) << r.err;
    const auto lines = r.lines();
    ASSERT_EQ(lines.size(), 2 + w.headers.size()) << r.out;
    EXPECT_EQ(lines[0], "Dumping " + w.log.string());
    EXPECT_EQ(lines[1], "Log starting offset: 0");
    EXPECT_EQ(lines[2], expected_batch_line(w.headers[0], 0, "none", -1));
    EXPECT_EQ(lines[3], expected_batch_line(w.headers[1], w.positions[1], "gzip", -1));
    EXPECT_EQ(lines[4], expected_batch_line(w.headers[2], w.positions[2], "none", 2));
    EXPECT_NE(lines[4].find("baseSequence: 0 lastSequence: 2 producerId: 1000 producerEpoch: 0"), std::string::npos);
    EXPECT_NE(lines[5].find("isTransactional: true isControl: false"), std::string::npos);
    EXPECT_NE(lines[6].find("isTransactional: true isControl: true"), std::string::npos);
    EXPECT_EQ(r.out.find("invalid bytes"), std::string::npos);
}

TEST(LogFileDump, PrintDataLogShowsRecordsOfCompressedAndControlBatches) {
    TempDir dir;
    const auto w = write_segment(dir.path());
    const auto r = run({"--print-data-log", w.log.string()});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(
        r.has(fmt::format("| offset: 0 CreateTime: {} keySize: 2 valueSize: 7 sequence: -1 headerKeys: [h1,h2] key: k0 "
                          "payload: value-0\n",
                          kTs)))
        << r.out;
    // gzip batch, decompressed: offsets 3..6.
    EXPECT_TRUE(
        r.has(fmt::format("| offset: 6 CreateTime: {} keySize: 2 valueSize: 7 sequence: -1 headerKeys: [] "
                          "key: k3 payload: value-3\n",
                          kTs + 5003)))
        << r.out;
    // Idempotent batch: per-record sequences.
    EXPECT_TRUE(r.has("| offset: 9 CreateTime: " + std::to_string(kTs + 2002) +
                      " keySize: 2 valueSize: 7 sequence: 2 headerKeys: [] key: k2 payload: value-2\n"))
        << r.out;
    EXPECT_TRUE(r.has("sequence: -1 headerKeys: [] endTxnMarker: COMMIT coordinatorEpoch: 5\n")) << r.out;

    // --deep-iteration: records without their data.
    const auto deep = run({"--deep-iteration", w.log.string()});
    EXPECT_TRUE(deep.has("| offset: 0 CreateTime: ")) << deep.out;
    EXPECT_FALSE(deep.has("payload:"));
}

TEST(LogFileDump, ControlBytesAreEscapedAndNullsLeftOut) {
    TempDir dir;
    storage::Segment segment(dir.path(), 0, storage::SegmentOptions{}, 0);
    records::Record with_newline;
    with_newline.value = bytes_of("a\nb\x7f");
    records::Record tombstone;
    tombstone.offset_delta = 1;
    tombstone.key = bytes_of("gone");
    const std::vector<records::Record> recs{with_newline, tombstone};
    segment.append(records::build_batch({}, recs));
    segment.close();
    const auto r = run({"--print-data-log", (dir.path() / "00000000000000000000.log").string()});
    EXPECT_TRUE(r.has("keySize: -1 valueSize: 4 sequence: -1 headerKeys: [] payload: a\\x0ab\\x7f\n")) << r.out;
    EXPECT_TRUE(r.has("keySize: 4 valueSize: -1 sequence: -1 headerKeys: [] key: gone\n")) << r.out;
}

TEST(LogFileDump, CorruptByteFailsTheCrcAndVerify) {
    TempDir dir;
    const auto w = write_segment(dir.path());
    ASSERT_EQ(run({"--verify", w.log.string()}).code, 0);
    // A byte of the gzip batch's records (past the header, inside the CRC).
    poke(w.log, w.positions[1] + records::kBatchHeaderSize + 3, "\x5a");

    const auto r = run({w.log.string()});
    EXPECT_EQ(r.code, 0) << "without --verify only unreadable files fail";
    const auto lines = r.lines();
    EXPECT_NE(lines[3].find("isvalid: false"), std::string::npos) << lines[3];
    EXPECT_NE(lines[2].find("isvalid: true"), std::string::npos);
    EXPECT_TRUE(r.has(fmt::format("CRC mismatch in the batch at position {} (offsets 3-6)", w.positions[1]))) << r.out;

    const auto v = run({"--verify", w.log.string()});
    EXPECT_EQ(v.code, 1);
    EXPECT_TRUE(v.has(fmt::format("{}: {} batches, offsets 0-{}, 1 problem\n", w.log.string(), w.headers.size(),
                                  w.headers.back().last_offset())))
        << v.out;
    EXPECT_FALSE(v.has("baseOffset:")) << "--verify prints only problems and the summary";
}

TEST(LogFileDump, TornTailIsReported) {
    TempDir dir;
    const auto w = write_segment(dir.path());
    const auto full = std::filesystem::file_size(w.log);
    const auto cut = w.positions.back() + 20;
    std::filesystem::resize_file(w.log, cut);

    const auto r = run({w.log.string()});
    EXPECT_EQ(r.code, 0);
    EXPECT_TRUE(
        r.has(fmt::format("Found 20 invalid bytes at the end of 00000000000000000000.log: torn: the batch at "
                          "position {} declares {} bytes but only 20 remain",
                          w.positions.back(), full - w.positions.back())))
        << r.out;

    const auto v = run({"--verify", w.log.string()});
    EXPECT_EQ(v.code, 1);
    EXPECT_TRUE(v.has(fmt::format("{}: {} batches, offsets 0-{}, 1 problem", w.log.string(), w.headers.size() - 1,
                                  w.headers[w.headers.size() - 2].last_offset())))
        << v.out;
}

TEST(LogFileDump, GarbageIsCorruptNotACrash) {
    TempDir dir;
    const auto log = dir.path() / "00000000000000000000.log";
    std::string garbage;
    for (int i = 0; i < 5000; ++i) garbage += static_cast<char>((i * 7919 + 13) % 251);
    write_file(log, garbage);
    const auto r = run({"--verify", "--print-data-log", log.string()});
    EXPECT_EQ(r.code, 1);
    EXPECT_TRUE(r.has(": Found 5000 invalid bytes at the end of 00000000000000000000.log")) << r.out;

    // A huge length, a length too small for a batch, a header cut short.
    write_file(log, std::string("\0\0\0\0\0\0\0\0\x7f\xff\xff\xff", 12) + std::string(100, 'x'));
    EXPECT_TRUE(run({log.string()}).has("torn: the batch at position 0 declares 2147483659 bytes but only 112 remain"));
    write_file(log, std::string("\0\0\0\0\0\0\0\0\0\0\0\x05", 12) + std::string(100, 'x'));
    EXPECT_TRUE(run({log.string()}).has("corrupt: invalid batch length 5 at position 0"));
    write_file(log, std::string(7, 'x'));
    EXPECT_TRUE(run({log.string()}).has("torn: only 7 bytes at position 0"));
    // Magic 3.
    write_file(log,
               std::string("\0\0\0\0\0\0\0\0\0\0\0\x60", 12) + std::string(4, '\0') + "\x03" + std::string(91, 'x'));
    EXPECT_TRUE(run({log.string()}).has("corrupt: invalid batch header at position 0"));
}

TEST(LogFileDump, LegacyMessagesPrintOffsetsAndSizes) {
    TempDir dir;
    std::vector<records::LegacyMessage> messages(3);
    for (int i = 0; i < 3; ++i) {
        messages[static_cast<std::size_t>(i)].offset = i;
        messages[static_cast<std::size_t>(i)].timestamp = kTs + i;
        messages[static_cast<std::size_t>(i)].value = bytes_of("old-" + std::to_string(i));
    }
    auto plain = records::build_message_set({1, records::Compression::none}, messages);
    for (auto& m : messages) m.offset += 3;
    const auto wrapped = records::build_message_set({1, records::Compression::gzip}, messages);
    plain.insert(plain.end(), wrapped.begin(), wrapped.end());
    const auto log = dir.path() / "00000000000000000000.log";
    write_file(log, std::string(plain.begin(), plain.end()));

    const auto r = run({"--print-data-log", log.string()});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(r.has(fmt::format("offset: 0 position: 0 CreateTime: {} size: ", kTs))) << r.out;
    EXPECT_TRUE(r.has("magic: 1 compresscodec: none crc: ")) << r.out;
    EXPECT_TRUE(r.has(fmt::format("offset: 5 position: {} CreateTime: {} size: {} magic: 1 compresscodec: gzip",
                                  plain.size() - wrapped.size(), kTs + 2, wrapped.size())))
        << r.out;
    EXPECT_TRUE(r.has(fmt::format("| offset: 4 CreateTime: {} keySize: -1 valueSize: 5 payload: old-1", kTs + 1)))
        << r.out;
    EXPECT_FALSE(r.has("isvalid: false"));
    EXPECT_EQ(run({"--verify", log.string()}).code, 0);
}

}  // namespace
}  // namespace weir::cli::dumplog
