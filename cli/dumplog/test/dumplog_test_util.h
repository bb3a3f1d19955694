#pragma once
// Segments written with the broker's own storage code, and a runner that
// captures what `weir dump-log` prints.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "broker/common/temp_dir.h"
#include "broker/storage/log_names.h"
#include "broker/storage/segment.h"
#include "cli/dumplog/dump_log_cli.h"
#include "protocol/records/record_batch.h"

namespace weir::cli::dumplog::test {

inline constexpr std::int64_t kTs = 1'700'000'000'000;

struct Run {
    int code = -1;
    std::string out;
    std::string err;
    [[nodiscard]] bool has(const std::string& text) const { return out.find(text) != std::string::npos; }
    [[nodiscard]] std::vector<std::string> lines() const {
        std::vector<std::string> v;
        std::istringstream in(out);
        for (std::string l; std::getline(in, l);) v.push_back(l);
        return v;
    }
};

inline Run run(const std::vector<std::string>& args) {
    std::ostringstream out, err;
    Run r;
    r.code = run_dump_log(args, out, err);
    r.out = out.str();
    r.err = err.str();
    return r;
}

inline wire::Bytes bytes_of(std::string_view s) { return {s.begin(), s.end()}; }

// `count` records with keys "k<i>" and values "value-<i>", timestamps ts + i.
inline wire::Bytes make_batch(records::BatchBuilderOptions options, int count,
                              const std::vector<std::string>& header_keys = {}) {
    std::vector<records::Record> recs;
    for (int i = 0; i < count; ++i) {
        records::Record r;
        r.offset_delta = i;
        r.timestamp_delta = i;
        r.key = bytes_of("k" + std::to_string(i));
        r.value = bytes_of("value-" + std::to_string(i));
        for (const auto& k : header_keys) r.headers.push_back({k, bytes_of("v")});
        recs.push_back(std::move(r));
    }
    return records::build_batch(options, recs);
}

inline wire::Bytes commit_marker(std::int64_t producer_id, std::int32_t coordinator_epoch) {
    records::BatchBuilderOptions o;
    o.base_timestamp = kTs;
    o.producer_id = producer_id;
    o.producer_epoch = 0;
    o.transactional = true;
    o.control = true;
    records::Record r;
    r.key = wire::Bytes{0, 0, 0, 1};  // version 0, COMMIT
    r.value = wire::Bytes{0,
                          0,
                          static_cast<std::uint8_t>(coordinator_epoch >> 24),
                          static_cast<std::uint8_t>(coordinator_epoch >> 16),
                          static_cast<std::uint8_t>(coordinator_epoch >> 8),
                          static_cast<std::uint8_t>(coordinator_epoch)};
    return records::build_batch(o, std::span(&r, 1));
}

struct WrittenSegment {
    std::filesystem::path log, index, timeindex;
    std::vector<records::BatchHeader> headers;  // as written, offsets assigned
    std::vector<std::uint64_t> positions;
};

// A segment at base offset 0: plain, gzip, idempotent, transactional and control batches,
// then enough plain ones for several index entries. Timestamps go up and down.
inline WrittenSegment write_segment(const std::filesystem::path& dir, bool close = true) {
    storage::Segment segment(dir, 0, storage::SegmentOptions{1 << 20, 150}, 0);
    segment.make_active();
    WrittenSegment w;
    std::int64_t next = 0;
    std::uint64_t position = 0;
    auto append = [&](wire::Bytes batch) {
        records::set_base_offset(batch, next);
        auto h = records::parse_batch_header(batch);
        w.headers.push_back(h);
        w.positions.push_back(position);
        position += batch.size();
        next = h.last_offset() + 1;
        segment.append(batch);
    };
    records::BatchBuilderOptions plain;
    plain.base_timestamp = kTs;
    append(make_batch(plain, 3, {"h1", "h2"}));
    auto gzip = plain;
    gzip.compression = records::Compression::gzip;
    gzip.base_timestamp = kTs + 5000;
    append(make_batch(gzip, 4));
    auto idempotent = plain;
    idempotent.producer_id = 1000;
    idempotent.producer_epoch = 0;
    idempotent.base_sequence = 0;
    idempotent.base_timestamp = kTs + 2000;  // earlier than the gzip batch
    append(make_batch(idempotent, 3));
    auto txn = idempotent;
    txn.producer_id = 2000;
    txn.transactional = true;
    txn.base_timestamp = kTs + 6000;
    append(make_batch(txn, 2));
    append(commit_marker(2000, 5));
    for (int i = 0; i < 12; ++i) {
        auto more = plain;
        more.base_timestamp = kTs + 7000 + (i % 3 == 0 ? -4000 : i * 100);
        append(make_batch(more, 2));
    }
    if (close)
        segment.close();
    else
        segment.release();  // as a killed broker leaves it: preallocated indexes
    w.log = dir / storage::segment_file_name(0, storage::kLogSuffix);
    w.index = dir / storage::segment_file_name(0, storage::kIndexSuffix);
    w.timeindex = dir / storage::segment_file_name(0, storage::kTimeIndexSuffix);
    return w;
}

inline std::string read_file(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

inline void write_file(const std::filesystem::path& p, std::string_view data) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
}

inline void poke(const std::filesystem::path& p, std::uint64_t at, std::string_view bytes) {
    std::fstream f(p, std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(static_cast<std::streamoff>(at));
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace weir::cli::dumplog::test
