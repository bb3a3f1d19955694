#include "protocol/uuid.h"

#include <gtest/gtest.h>

#include <set>

#include "protocol/wire/writer.h"

namespace weir {
namespace {

TEST(UuidTest, KafkaStringForm) {
    EXPECT_EQ(Uuid{}.to_string(), "AAAAAAAAAAAAAAAAAAAAAA");
    EXPECT_EQ(Uuid::from_halves(0, 1).to_string(), "AAAAAAAAAAAAAAAAAAAAAQ");
    Uuid all = Uuid::from_halves(~0ULL, ~0ULL);
    EXPECT_EQ(all.to_string(), "_____________________w");
}

TEST(UuidTest, RoundTrip) {
    for (int i = 0; i < 100; ++i) {
        Uuid id = Uuid::random();
        std::string s = id.to_string();
        ASSERT_EQ(s.size(), 22U);
        EXPECT_NE(s.front(), '-');
        auto back = Uuid::from_string(s);
        ASSERT_TRUE(back.has_value());
        EXPECT_EQ(*back, id);
        EXPECT_EQ(Uuid::from_halves(id.most_significant(), id.least_significant()), id);
    }
}

TEST(UuidTest, RandomIsVersion4AndDistinct) {
    std::set<Uuid> seen;
    for (int i = 0; i < 200; ++i) {
        Uuid id = Uuid::random();
        EXPECT_FALSE(id.is_zero());
        EXPECT_EQ(id.bytes[6] >> 4, 4);
        EXPECT_EQ(id.bytes[8] >> 6, 2);
        EXPECT_TRUE(seen.insert(id).second);
    }
}

TEST(UuidTest, RejectsMalformedStrings) {
    EXPECT_FALSE(Uuid::from_string(""));
    EXPECT_FALSE(Uuid::from_string("AAAAAAAAAAAAAAAAAAAAA"));    // 21
    EXPECT_FALSE(Uuid::from_string("AAAAAAAAAAAAAAAAAAAAAAA"));  // 23
    EXPECT_FALSE(Uuid::from_string("AAAAAAAAAAAAAAAAAAAA+A"));   // not URL-safe
    EXPECT_FALSE(Uuid::from_string("AAAAAAAAAAAAAAAAAAAAAB"));   // non-zero spare bits
}

// The wire form is the 16 bytes in order (two big-endian int64s), the same
// bytes the string form encodes.
TEST(UuidTest, WireFormIsTheBytesInOrder) {
    const Uuid id = Uuid::from_halves(0x0102030405060708ULL, 0x090a0b0c0d0e0f10ULL);
    wire::Bytes out;
    wire::Writer writer(out);
    writer.uuid(id);
    ASSERT_EQ(out.size(), 16U);
    for (std::size_t i = 0; i < out.size(); ++i) EXPECT_EQ(out[i], i + 1);
    wire::Reader reader(out);
    EXPECT_EQ(reader.uuid(), id);
    EXPECT_TRUE(reader.at_end());
}

}  // namespace
}  // namespace weir
