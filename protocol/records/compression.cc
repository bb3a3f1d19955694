#include "protocol/records/compression.h"

#include <lz4frame.h>
#include <snappy.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

namespace weir::records {
namespace {

using wire::DecodeError;

// Output buffer that grows geometrically but never past limit + 1 bytes: one
// byte of slack is how an over-limit stream is told apart from one that ends
// exactly at the limit.
class BoundedOutput {
public:
    BoundedOutput(std::size_t limit, std::size_t hint) : limit_(limit) {
        buf_.resize(std::min(std::max<std::size_t>(hint, 1024), cap()));
    }
    // Free space after the produced bytes, growing the buffer if it is full.
    std::span<std::uint8_t> space() {
        if (produced_ == buf_.size()) {
            if (buf_.size() >= cap()) throw DecodeError("decompressed size exceeds limit");
            buf_.resize(std::min(buf_.size() * 2, cap()));
        }
        return std::span(buf_).subspan(produced_);
    }
    void commit(std::size_t n) {
        produced_ += n;
        if (produced_ > limit_) throw DecodeError("decompressed size exceeds limit");
    }
    Bytes finish() {
        buf_.resize(produced_);
        return std::move(buf_);
    }

private:
    [[nodiscard]] std::size_t cap() const { return limit_ == SIZE_MAX ? limit_ : limit_ + 1; }
    std::size_t limit_;
    std::size_t produced_ = 0;
    Bytes buf_;
};

std::uint32_t be32(const std::uint8_t* p) {
    return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
}
void put_be32(Bytes& out, std::uint32_t v) {
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<std::uint8_t>(v >> shift));
}

// zlib's avail_in/avail_out are 32-bit; feed large buffers in pieces.
constexpr std::size_t kZlibChunk = std::size_t{1} << 30;

// ---- gzip -------------------------------------------------------------------

Bytes gzip_compress(ByteSpan data) {
    z_stream zs{};
    // 15 + 16: gzip framing, as Kafka's GZIPOutputStream writes.
    if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        throw std::runtime_error("deflateInit2 failed");
    std::unique_ptr<z_stream, int (*)(z_stream*)> guard(&zs, deflateEnd);
    Bytes out(deflateBound(&zs, static_cast<uLong>(std::min(data.size(), kZlibChunk))) + 64);
    std::size_t in_pos = 0;
    for (;;) {
        std::size_t in_n = std::min(data.size() - in_pos, kZlibChunk);
        zs.next_in = const_cast<Bytef*>(data.data() + in_pos);
        zs.avail_in = static_cast<uInt>(in_n);
        bool last = in_pos + in_n == data.size();
        int rc = Z_OK;
        do {
            if (zs.total_out == out.size()) out.resize(out.size() * 2);
            zs.next_out = out.data() + zs.total_out;
            zs.avail_out = static_cast<uInt>(std::min(out.size() - zs.total_out, kZlibChunk));
            rc = deflate(&zs, last ? Z_FINISH : Z_NO_FLUSH);
            if (rc == Z_STREAM_ERROR) throw std::runtime_error("deflate failed");
        } while (last ? rc != Z_STREAM_END : zs.avail_in > 0);
        in_pos += in_n;
        if (last) break;
    }
    out.resize(zs.total_out);
    return out;
}

Bytes gzip_decompress(ByteSpan data, std::size_t limit) {
    z_stream zs{};
    // 15 + 32: accept gzip (Kafka) and zlib framing alike.
    if (inflateInit2(&zs, 15 + 32) != Z_OK) throw std::runtime_error("inflateInit2 failed");
    std::unique_ptr<z_stream, int (*)(z_stream*)> guard(&zs, inflateEnd);
    BoundedOutput out(limit, data.size() * 4);
    std::size_t in_pos = 0;
    bool ended = false;
    while (true) {
        if (zs.avail_in == 0 && in_pos < data.size()) {
            std::size_t n = std::min(data.size() - in_pos, kZlibChunk);
            zs.next_in = const_cast<Bytef*>(data.data() + in_pos);
            zs.avail_in = static_cast<uInt>(n);
            in_pos += n;
        }
        auto space = out.space();
        zs.next_out = space.data();
        zs.avail_out = static_cast<uInt>(std::min(space.size(), kZlibChunk));
        uInt before = zs.avail_out;
        int rc = inflate(&zs, Z_NO_FLUSH);
        out.commit(before - zs.avail_out);
        if (rc == Z_STREAM_END) {
            ended = true;
            if (zs.avail_in == 0 && in_pos == data.size()) break;
            // Another gzip member follows (GZIPInputStream reads them too).
            if (inflateReset(&zs) != Z_OK) throw DecodeError("gzip: inflateReset failed");
            ended = false;
            continue;
        }
        if (rc == Z_BUF_ERROR && zs.avail_in == 0 && in_pos == data.size()) break;
        if (rc != Z_OK && rc != Z_BUF_ERROR)
            throw DecodeError(std::string("gzip: ") + (zs.msg ? zs.msg : "corrupt data"));
    }
    if (!ended) throw DecodeError("gzip: truncated stream");
    return out.finish();
}

// ---- snappy -----------------------------------------------------------------

constexpr std::array<std::uint8_t, 8> kXerialMagic = {0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};
constexpr std::size_t kXerialHeaderSize = 16;        // magic, version int32, compatible version int32
constexpr std::size_t kXerialBlockSize = 32 * 1024;  // snappy-java's default

void snappy_raw_compress_into(Bytes& out, ByteSpan data) {
    std::size_t at = out.size();
    out.resize(at + snappy::MaxCompressedLength(data.size()));
    std::size_t n = 0;
    snappy::RawCompress(reinterpret_cast<const char*>(data.data()), data.size(),
                        reinterpret_cast<char*>(out.data() + at), &n);
    out.resize(at + n);
}

Bytes snappy_compress(ByteSpan data, bool xerial) {
    Bytes out;
    if (!xerial) {
        snappy_raw_compress_into(out, data);
        return out;
    }
    out.assign(kXerialMagic.begin(), kXerialMagic.end());
    put_be32(out, 1);  // version
    put_be32(out, 1);  // minimum compatible version
    for (std::size_t pos = 0; pos < data.size(); pos += kXerialBlockSize) {
        std::size_t len_at = out.size();
        put_be32(out, 0);
        snappy_raw_compress_into(out, data.subspan(pos, std::min(kXerialBlockSize, data.size() - pos)));
        auto n = static_cast<std::uint32_t>(out.size() - len_at - 4);
        for (int i = 0; i < 4; ++i)
            out[len_at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(n >> (24 - 8 * i));
    }
    return out;
}

void snappy_raw_decompress_into(Bytes& out, ByteSpan block, std::size_t limit) {
    auto src = reinterpret_cast<const char*>(block.data());
    std::size_t n = 0;
    if (!snappy::GetUncompressedLength(src, block.size(), &n)) throw DecodeError("snappy: corrupt data");
    if (n > limit - out.size()) throw DecodeError("decompressed size exceeds limit");
    std::size_t at = out.size();
    out.resize(at + n);
    if (!snappy::RawUncompress(src, block.size(), reinterpret_cast<char*>(out.data() + at)))
        throw DecodeError("snappy: corrupt data");
}

bool is_xerial(ByteSpan data) {
    return data.size() >= kXerialHeaderSize && std::equal(kXerialMagic.begin(), kXerialMagic.end(), data.begin());
}

Bytes snappy_decompress(ByteSpan data, std::size_t limit) {
    Bytes out;
    if (!is_xerial(data)) {
        snappy_raw_decompress_into(out, data, limit);
        return out;
    }
    // The version fields are not checked, like librdkafka: every writer uses 1.
    std::size_t pos = kXerialHeaderSize;
    while (pos < data.size()) {
        if (data.size() - pos < 4) throw DecodeError("snappy: truncated xerial block length");
        std::uint32_t n = be32(data.data() + pos);
        pos += 4;
        if (n > data.size() - pos) throw DecodeError("snappy: truncated xerial block");
        snappy_raw_decompress_into(out, data.subspan(pos, n), limit);
        pos += n;
    }
    return out;
}

// ---- lz4 --------------------------------------------------------------------

// Kafka's LZ4 is the LZ4 frame format with 64 KiB independent blocks and no
// checksums except the mandatory header checksum.
constexpr std::size_t kLz4MinHeader = 7;  // magic 4, FLG, BD, HC

LZ4F_preferences_t lz4_preferences() {
    LZ4F_preferences_t prefs;
    std::memset(&prefs, 0, sizeof prefs);
    prefs.frameInfo.blockSizeID = LZ4F_max64KB;
    prefs.frameInfo.blockMode = LZ4F_blockIndependent;
    return prefs;
}

// XXH32 (seed 0) through liblz4 itself: a frame's content checksum is defined
// as XXH32 of the content, so compress `data` with it enabled and read it back.
std::uint32_t xxh32(ByteSpan data) {
    LZ4F_preferences_t prefs = lz4_preferences();
    prefs.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
    Bytes frame(LZ4F_compressFrameBound(data.size(), &prefs));
    std::size_t n = LZ4F_compressFrame(frame.data(), frame.size(), data.data(), data.size(), &prefs);
    if (LZ4F_isError(n) || n < 4) throw std::runtime_error("lz4: checksum frame failed");
    const std::uint8_t* p = frame.data() + n - 4;
    return std::uint32_t{p[0]} | (std::uint32_t{p[1]} << 8) | (std::uint32_t{p[2]} << 16) | (std::uint32_t{p[3]} << 24);
}

// Size of the frame header starting at `p` (through the HC byte), or 0 when
// `p` does not start an LZ4 frame with a complete header.
std::size_t lz4_header_size(ByteSpan p) {
    if (p.size() < kLz4MinHeader) return 0;
    if (!(p[0] == 0x04 && p[1] == 0x22 && p[2] == 0x4D && p[3] == 0x18)) return 0;
    std::uint8_t flg = p[4];
    std::size_t n = kLz4MinHeader + ((flg & 0x08) ? 8 : 0) + ((flg & 0x01) ? 4 : 0);
    return n <= p.size() ? n : 0;
}

// Header checksum byte: XXH32 of the descriptor (FLG..last field), second byte.
// The magic-v0 variant wrongly includes the 4 magic bytes.
std::uint8_t lz4_header_checksum(ByteSpan header_without_hc, bool magic_v0) {
    auto covered = magic_v0 ? header_without_hc : header_without_hc.subspan(4);
    return static_cast<std::uint8_t>((xxh32(covered) >> 8) & 0xFF);
}

Bytes lz4_compress(ByteSpan data, bool magic_v0) {
    LZ4F_preferences_t prefs = lz4_preferences();
    Bytes out(LZ4F_compressFrameBound(data.size(), &prefs));
    std::size_t n = LZ4F_compressFrame(out.data(), out.size(), data.data(), data.size(), &prefs);
    if (LZ4F_isError(n)) throw std::runtime_error(std::string("lz4: ") + LZ4F_getErrorName(n));
    out.resize(n);
    if (magic_v0) {
        std::size_t h = lz4_header_size(out);
        out[h - 1] = lz4_header_checksum(ByteSpan(out).first(h - 1), true);
    }
    return out;
}

struct Lz4DctxDeleter {
    void operator()(LZ4F_dctx* d) const { LZ4F_freeDecompressionContext(d); }
};

Bytes lz4_decompress(ByteSpan data, std::size_t limit, bool magic_v0) {
    if (data.empty()) throw DecodeError("lz4: empty input");
    LZ4F_dctx* raw = nullptr;
    if (LZ4F_isError(LZ4F_createDecompressionContext(&raw, LZ4F_VERSION))) throw std::runtime_error("lz4: no context");
    std::unique_ptr<LZ4F_dctx, Lz4DctxDeleter> dctx(raw);
    BoundedOutput out(limit, data.size() * 4);
    std::size_t pos = 0;
    std::size_t hint = 1;  // nonzero: inside a frame
    bool frame_start = true;
    while (pos < data.size()) {
        ByteSpan src = data.subspan(pos);
        std::array<std::uint8_t, 19> fixed_header{};  // max header: 7 + 8 + 4
        std::size_t header_len = 0;
        if (frame_start && magic_v0) {
            // Feed a copy of the header with a correct checksum, which is what
            // ignoring the checksum (Kafka's reading of magic 0) amounts to.
            header_len = lz4_header_size(src);
            if (header_len == 0) throw DecodeError("lz4: bad frame header");
            std::copy_n(src.begin(), header_len, fixed_header.begin());
            fixed_header[header_len - 1] = lz4_header_checksum(src.first(header_len - 1), false);
            src = ByteSpan(fixed_header.data(), header_len);
        }
        frame_start = false;
        auto space = out.space();
        std::size_t dst_n = space.size();
        std::size_t src_n = src.size();
        hint = LZ4F_decompress(dctx.get(), space.data(), &dst_n, src.data(), &src_n, nullptr);
        if (LZ4F_isError(hint)) throw DecodeError(std::string("lz4: ") + LZ4F_getErrorName(hint));
        out.commit(dst_n);
        pos += src_n;
        if (hint == 0) frame_start = true;  // frame complete; another may follow
    }
    // Flush anything still buffered in the context.
    while (hint != 0) {
        auto space = out.space();
        std::size_t dst_n = space.size();
        std::size_t src_n = 0;
        hint = LZ4F_decompress(dctx.get(), space.data(), &dst_n, nullptr, &src_n, nullptr);
        if (LZ4F_isError(hint)) throw DecodeError(std::string("lz4: ") + LZ4F_getErrorName(hint));
        out.commit(dst_n);
        if (dst_n == 0 && hint != 0) throw DecodeError("lz4: truncated frame");
    }
    return out.finish();
}

// ---- zstd -------------------------------------------------------------------

Bytes zstd_compress(ByteSpan data) {
    Bytes out(ZSTD_compressBound(data.size()));
    std::size_t n = ZSTD_compress(out.data(), out.size(), data.data(), data.size(), ZSTD_CLEVEL_DEFAULT);
    if (ZSTD_isError(n)) throw std::runtime_error(std::string("zstd: ") + ZSTD_getErrorName(n));
    out.resize(n);
    return out;
}

Bytes zstd_decompress(ByteSpan data, std::size_t limit) {
    if (data.empty()) throw DecodeError("zstd: empty input");
    std::unique_ptr<ZSTD_DCtx, std::size_t (*)(ZSTD_DCtx*)> dctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
    if (!dctx) throw std::runtime_error("zstd: no context");
    BoundedOutput out(limit, data.size() * 4);
    ZSTD_inBuffer in{data.data(), data.size(), 0};
    std::size_t hint = 1;
    while (in.pos < in.size || hint != 0) {
        auto space = out.space();
        ZSTD_outBuffer o{space.data(), space.size(), 0};
        std::size_t in_before = in.pos;
        hint = ZSTD_decompressStream(dctx.get(), &o, &in);
        if (ZSTD_isError(hint)) throw DecodeError(std::string("zstd: ") + ZSTD_getErrorName(hint));
        out.commit(o.pos);
        // No progress with room to write and input exhausted: truncated frame.
        if (hint != 0 && in.pos == in.size && in.pos == in_before && o.pos < o.size)
            throw DecodeError("zstd: truncated frame");
    }
    return out.finish();
}

}  // namespace

const char* compression_name(Compression codec) {
    switch (codec) {
        case Compression::none:
            return "none";
        case Compression::gzip:
            return "gzip";
        case Compression::snappy:
            return "snappy";
        case Compression::lz4:
            return "lz4";
        case Compression::zstd:
            return "zstd";
    }
    return "unknown";
}

Bytes compress(Compression codec, ByteSpan data, const CodecOptions& options) {
    switch (codec) {
        case Compression::gzip:
            return gzip_compress(data);
        case Compression::snappy:
            return snappy_compress(data, options.snappy_xerial);
        case Compression::lz4:
            return lz4_compress(data, options.lz4_magic_v0);
        case Compression::zstd:
            return zstd_compress(data);
        case Compression::none:
            break;
    }
    throw std::invalid_argument(std::string("cannot compress with codec ") + compression_name(codec));
}

Bytes decompress(Compression codec, ByteSpan data, const CodecOptions& options) {
    switch (codec) {
        case Compression::gzip:
            return gzip_decompress(data, options.max_output);
        case Compression::snappy:
            return snappy_decompress(data, options.max_output);
        case Compression::lz4:
            return lz4_decompress(data, options.max_output, options.lz4_magic_v0);
        case Compression::zstd:
            return zstd_decompress(data, options.max_output);
        case Compression::none:
            break;
    }
    throw DecodeError("unknown compression codec " + std::to_string(static_cast<int>(codec)));
}

}  // namespace weir::records
