#pragma once
// Checks shared by the generated round-trip tests (build tree tests/*_generated_test.cc).
// The generated fill() functions give every field present at a version a
// non-default value; check_message() then exercises every valid version.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>

#include "protocol/wire/reader.h"
#include "protocol/wire/records_data.h"
#include "protocol/wire/tagged_fields.h"
#include "protocol/wire/writer.h"

namespace weir::msg::gen_test {

// Above every tag Kafka defines, and two varint bytes long.
inline constexpr std::uint32_t kUnknownTag = 777;

inline bool present(int version, int lo, int hi) { return lo <= version && version <= hi; }

inline std::string text(const char* field, int salt) {
    // Non-ASCII on purpose: lengths are in bytes, not characters.
    return std::string(field) + "-\xc3\xa9\xe6\x97\xa5-" + std::to_string(salt);
}

inline wire::Bytes bytes(int k, int salt) {
    return {0x00, 0xff, static_cast<std::uint8_t>(k), static_cast<std::uint8_t>(salt), 0x7f};
}

inline wire::Uuid uuid(int k, int salt) {
    wire::Uuid u{};
    for (std::size_t i = 0; i < u.size(); ++i) u[i] = static_cast<std::uint8_t>(k * 16 + salt + static_cast<int>(i) + 1);
    return u;
}

template <class T>
wire::Bytes encode(const T& value, std::int16_t version) {
    wire::Bytes out;
    wire::Writer w(out);
    value.encode(w, version);
    return out;
}

template <class T>
T decode_all(const wire::Bytes& bytes, std::int16_t version, bool* at_end) {
    wire::Reader r(bytes);
    T value = T::decode(r, version);
    *at_end = r.at_end();
    return value;
}

// Every strict prefix of a valid encoding must be rejected with DecodeError.
template <class T>
void check_truncations(const wire::Bytes& bytes, std::int16_t version) {
    for (std::size_t n = 0; n < bytes.size(); ++n) {
        wire::Reader r(wire::ByteSpan(bytes.data(), n));
        bool threw = false;
        try {
            (void)T::decode(r, version);
        } catch (const wire::DecodeError&) {
            threw = true;
        }
        if (!threw) {
            ADD_FAILURE() << "prefix of " << n << "/" << bytes.size() << " bytes decoded without error";
            return;
        }
    }
}

template <class T, class Fill>
void check_message(Fill fill) {
    T all;  // every field of every version set
    fill(all, T::max_version, true);
    for (std::int16_t v = T::min_version; v <= T::max_version; ++v) {
        SCOPED_TRACE("version " + std::to_string(v));
        T x;
        fill(x, v, false);
        const wire::Bytes bytes = encode(x, v);
        EXPECT_EQ(x.size(v), bytes.size());

        bool at_end = false;
        const T y = decode_all<T>(bytes, v, &at_end);
        EXPECT_TRUE(at_end);
        EXPECT_TRUE(y == x) << "decode(encode(x)) != x";
        EXPECT_EQ(encode(y, v), bytes);

        // With an owner, records alias the input; the value must not change.
        auto owned = std::make_shared<const wire::Bytes>(bytes);
        wire::Reader shared_reader(*owned, owned);
        EXPECT_TRUE(T::decode(shared_reader, v) == x);

        // Fields absent at v are not serialised, whatever their value.
        EXPECT_EQ(encode(all, v), bytes);
        EXPECT_EQ(all.size(v), bytes.size());

        const T d{};
        const wire::Bytes default_bytes = encode(d, v);
        EXPECT_EQ(d.size(v), default_bytes.size());
        EXPECT_TRUE(decode_all<T>(default_bytes, v, &at_end) == d);
        EXPECT_TRUE(at_end);

        check_truncations<T>(bytes, v);
    }
    wire::Bytes empty;
    wire::Reader r(empty);
    EXPECT_THROW((void)T::decode(r, static_cast<std::int16_t>(T::min_version - 1)), wire::DecodeError);
    EXPECT_THROW((void)T::decode(r, static_cast<std::int16_t>(T::max_version + 1)), wire::DecodeError);
    EXPECT_THROW((void)encode(all, static_cast<std::int16_t>(T::max_version + 1)), wire::EncodeError);
}

}  // namespace weir::msg::gen_test
