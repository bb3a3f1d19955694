// Codec throughput on the broker's hot paths, against memcpy of the same bytes:
// Produce request decode (records stay zero-copy views of the frame, as in the
// broker), Produce encode, Fetch response encode, Fetch request decode and
// CRC32C. Results and the exact command: BENCHMARKS.md, section "Codec".
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "messages/fetch.h"
#include "messages/produce.h"
#include "protocol/header.h"
#include "protocol/records/record_batch.h"

namespace weir::bench {
namespace {

using wire::Bytes;
using wire::ByteSpan;
using Frame = std::shared_ptr<const Bytes>;

constexpr std::size_t kValueSize = 1024;

// Deterministic, incompressible-looking values (compression is off anyway).
Bytes pseudo_random(std::size_t n, std::uint32_t seed) {
    Bytes out(n);
    std::uint32_t x = seed * 2654435761u + 1;
    for (auto& b : out) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        b = static_cast<std::uint8_t>(x);
    }
    return out;
}

Bytes make_batch(int record_count, std::uint32_t seed) {
    std::vector<records::Record> recs;
    recs.reserve(static_cast<std::size_t>(record_count));
    for (int i = 0; i < record_count; ++i) {
        records::Record r;
        r.timestamp_delta = i;
        r.offset_delta = i;
        const std::string key = "key-" + std::to_string(i);
        r.key = Bytes(key.begin(), key.end());
        r.value = pseudo_random(kValueSize, seed + static_cast<std::uint32_t>(i));
        recs.push_back(std::move(r));
    }
    records::BatchBuilderOptions options;
    options.base_timestamp = 1796202310252;
    options.producer_id = 4242;
    options.producer_epoch = 0;
    options.base_sequence = 0;
    return records::build_batch(options, recs);
}

struct Shape {
    int partitions;
    int records_per_partition;
    [[nodiscard]] std::string name() const {
        return std::to_string(partitions) + "x" + std::to_string(records_per_partition);
    }
};

msg::ProduceRequest make_produce(const Shape& shape) {
    msg::ProduceRequest req;
    req.acks = -1;
    req.timeout_ms = 30000;
    auto& topic = req.topic_data.emplace_back();
    topic.name = "bench-topic";
    for (int p = 0; p < shape.partitions; ++p) {
        auto& part = topic.partition_data.emplace_back();
        part.index = p;
        part.records = wire::RecordsData(make_batch(shape.records_per_partition, static_cast<std::uint32_t>(p) * 1000));
    }
    return req;
}

msg::FetchResponse make_fetch_response(const Shape& shape) {
    msg::FetchResponse resp;
    auto& topic = resp.responses.emplace_back();
    topic.topic = "bench-topic";
    for (int p = 0; p < shape.partitions; ++p) {
        auto& part = topic.partitions.emplace_back();
        part.partition_index = p;
        part.high_watermark = 100000;
        part.last_stable_offset = 100000;
        part.log_start_offset = 0;
        part.aborted_transactions = std::nullopt;  // read_uncommitted, as the broker answers
        part.records = wire::RecordsData(make_batch(shape.records_per_partition, static_cast<std::uint32_t>(p) * 1000));
    }
    return resp;
}

msg::FetchRequest make_fetch_request(int partitions) {
    msg::FetchRequest req;
    req.max_wait_ms = 500;
    req.min_bytes = 1;
    req.max_bytes = 52428800;
    req.isolation_level = 1;
    auto& topic = req.topics.emplace_back();
    topic.topic = "bench-topic";
    for (int p = 0; p < partitions; ++p) {
        auto& part = topic.partitions.emplace_back();
        part.partition = p;
        part.fetch_offset = 123456;
        part.partition_max_bytes = 1048576;
    }
    return req;
}

protocol::RequestHeader header_for(std::int16_t api_key, std::int16_t version) {
    protocol::RequestHeader h;
    h.api_key = api_key;
    h.api_version = version;
    h.correlation_id = 7;
    h.client_id = "rdkafka";
    return h;
}

// A whole request frame as it arrives: size prefix, header, body.
template <typename Msg>
Bytes encode_request_frame(const Msg& m, std::int16_t version) {
    const auto h = header_for(Msg::api_key, version);
    Bytes out;
    wire::Writer w(out);
    w.int32(0);
    protocol::encode_request_header(w, h, protocol::request_header_version(Msg::api_key, version));
    m.encode(w, version);
    const auto size = static_cast<std::uint32_t>(out.size() - 4);
    for (int i = 0; i < 4; ++i) out[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(size >> (24 - 8 * i));
    return out;
}

// As broker/dispatch/dispatcher.h encodes a response frame.
template <typename Response>
Bytes encode_response_frame(const Response& r, std::int16_t version) {
    const int hv = protocol::response_header_version(Response::api_key, version);
    const std::size_t total = protocol::response_header_size(hv) + r.size(version);
    Bytes out;
    out.reserve(4 + total);
    wire::Writer w(out);
    w.int32(static_cast<std::int32_t>(total));
    protocol::encode_response_header(w, 7, hv);
    r.encode(w, version);
    return out;
}

// The broker's decode: frame after its size prefix, header, then body; with
// `owner` the records fields alias the frame.
template <typename Msg>
Msg decode_frame(const Frame& frame, bool with_owner) {
    const ByteSpan payload = ByteSpan(*frame).subspan(4);
    wire::Reader r = with_owner ? wire::Reader(payload, frame) : wire::Reader(payload);
    const auto h = protocol::decode_request_header(r);
    Msg m = Msg::decode(r, h.api_version);
    if (!r.at_end()) throw std::runtime_error("trailing bytes");
    return m;
}

void set_throughput(benchmark::State& state, std::size_t bytes) {
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(bytes));
    state.counters["bytes"] = static_cast<double>(bytes);
}

void bench_memcpy(benchmark::State& state, std::size_t n) {
    const Bytes src = pseudo_random(n, 1);
    Bytes dst(n);
    for (auto _ : state) {
        std::memcpy(dst.data(), src.data(), n);
        benchmark::ClobberMemory();
    }
    set_throughput(state, n);
}

void bench_crc32c(benchmark::State& state, const Bytes& data) {
    for (auto _ : state) {
        auto crc = records::crc32c(data);
        benchmark::DoNotOptimize(crc);
    }
    set_throughput(state, data.size());
}

template <typename Msg>
void bench_decode(benchmark::State& state, const Frame& frame, bool with_owner) {
    for (auto _ : state) {
        auto m = decode_frame<Msg>(frame, with_owner);
        benchmark::DoNotOptimize(m);
    }
    set_throughput(state, frame->size());
}

template <typename Msg>
void bench_request_encode(benchmark::State& state, const Msg& m, std::int16_t version) {
    const auto h = header_for(Msg::api_key, version);
    const int hv = protocol::request_header_version(Msg::api_key, version);
    std::size_t bytes = 0;
    for (auto _ : state) {
        Bytes out;
        wire::Writer w(out);
        w.int32(0);
        protocol::encode_request_header(w, h, hv);
        m.encode(w, version);
        bytes = out.size();
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    set_throughput(state, bytes);
}

template <typename Msg>
void bench_response_encode(benchmark::State& state, const Msg& m, std::int16_t version) {
    std::size_t bytes = 0;
    for (auto _ : state) {
        Bytes out = encode_response_frame(m, version);
        bytes = out.size();
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    set_throughput(state, bytes);
}

// Every benchmark takes microseconds at most; a whole run stays in minutes.
void register_all() {
    const std::vector<Shape> shapes = {{1, 100}, {10, 10}, {10, 100}};
    const std::vector<std::int16_t> produce_versions = {7, 9};

    for (const auto& shape : shapes) {
        const auto produce = std::make_shared<const msg::ProduceRequest>(make_produce(shape));
        for (auto v : produce_versions) {
            const Frame frame = std::make_shared<const Bytes>(encode_request_frame(*produce, v));
            // Sanity: the decode being timed is the real thing.
            const auto check = decode_frame<msg::ProduceRequest>(frame, true);
            if (!(check == *produce)) throw std::runtime_error("produce round trip mismatch");
            const std::string suffix = "/v" + std::to_string(v) + "/" + shape.name();
            if (v == produce_versions.front()) {
                benchmark::RegisterBenchmark(("memcpy/produce_frame/" + shape.name()).c_str(), bench_memcpy,
                                             frame->size());
            }
            benchmark::RegisterBenchmark(("produce_decode" + suffix).c_str(), [frame](benchmark::State& s) {
                bench_decode<msg::ProduceRequest>(s, frame, true);
            });
            if (shape.partitions == 1) {
                benchmark::RegisterBenchmark(("produce_decode_copying" + suffix).c_str(), [frame](benchmark::State& s) {
                    bench_decode<msg::ProduceRequest>(s, frame, false);
                });
            }
            benchmark::RegisterBenchmark(("produce_encode" + suffix).c_str(),
                                         [produce, v](benchmark::State& s) { bench_request_encode(s, *produce, v); });
        }
    }

    for (const auto& shape : shapes) {
        const auto resp = std::make_shared<const msg::FetchResponse>(make_fetch_response(shape));
        for (std::int16_t v : {11, 12}) {
            benchmark::RegisterBenchmark(("fetch_response_encode/v" + std::to_string(v) + "/" + shape.name()).c_str(),
                                         [resp, v](benchmark::State& s) { bench_response_encode(s, *resp, v); });
        }
    }

    for (int partitions : {1, 10}) {
        const auto req = make_fetch_request(partitions);
        for (std::int16_t v : {11, 12}) {
            const Frame frame = std::make_shared<const Bytes>(encode_request_frame(req, v));
            if (!(decode_frame<msg::FetchRequest>(frame, true) == req))
                throw std::runtime_error("fetch round trip mismatch");
            benchmark::RegisterBenchmark(
                ("fetch_request_decode/v" + std::to_string(v) + "/" + std::to_string(partitions) + "p").c_str(),
                [frame](benchmark::State& s) { bench_decode<msg::FetchRequest>(s, frame, true); });
        }
    }

    const auto batch = std::make_shared<const Bytes>(make_batch(100, 0));
    benchmark::RegisterBenchmark("crc32c/batch_1x100", [batch](benchmark::State& s) { bench_crc32c(s, *batch); });
    benchmark::RegisterBenchmark("memcpy/batch_1x100", bench_memcpy, batch->size());
}

}  // namespace
}  // namespace weir::bench

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    weir::bench::register_all();
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
