// Round-trip checks run over every generated message at every valid version
// (subjects come from the generated tests/generated_subjects_*.cc).
#include "protocol/test/generated_roundtrip.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>

#include "messages/api_table.h"

namespace weir::msg::gen_test {
namespace {

class GeneratedRoundTrip : public testing::TestWithParam<SubjectInfo> {};

wire::Bytes reencode(const Subject& s, const wire::Bytes& bytes, std::int16_t version, bool* at_end) {
    wire::Reader r(bytes);
    wire::Bytes out = s.reencode(r, version);
    *at_end = r.at_end();
    return out;
}

// Every strict prefix of a valid encoding must be rejected with DecodeError.
void check_truncations(const Subject& s, const wire::Bytes& bytes, std::int16_t version) {
    for (std::size_t n = 0; n < bytes.size(); ++n) {
        wire::Reader r(wire::ByteSpan(bytes.data(), n));
        bool threw = false;
        try {
            (void)s.decodes_to(Value::sample, r, version);
        } catch (const wire::DecodeError&) {
            threw = true;
        }
        if (!threw) {
            ADD_FAILURE() << "prefix of " << n << "/" << bytes.size() << " bytes decoded without error";
            return;
        }
    }
}

TEST_P(GeneratedRoundTrip, EveryVersion) {
    const std::unique_ptr<Subject> s = GetParam().make();
    for (std::int16_t v = s->min_version(); v <= s->max_version(); ++v) {
        SCOPED_TRACE("version " + std::to_string(v));
        s->build_sample(v);
        const wire::Bytes bytes = s->encode(Value::sample, v);
        EXPECT_EQ(s->size(Value::sample, v), bytes.size());
        {
            wire::Reader r(bytes);
            EXPECT_TRUE(s->decodes_to(Value::sample, r, v)) << "decode(encode(x)) != x";
            EXPECT_TRUE(r.at_end());
        }
        bool at_end = false;
        EXPECT_EQ(reencode(*s, bytes, v, &at_end), bytes) << "encode(decode(bytes)) != bytes";
        EXPECT_TRUE(at_end);
        {
            // With an owner, records alias the input; the value must not change.
            auto owned = std::make_shared<const wire::Bytes>(bytes);
            wire::Reader r(*owned, owned);
            EXPECT_TRUE(s->decodes_to(Value::sample, r, v));
        }

        // Fields absent at v are not serialised, whatever their value.
        EXPECT_EQ(s->encode(Value::all, v), bytes);
        EXPECT_EQ(s->size(Value::all, v), bytes.size());

        const wire::Bytes default_bytes = s->encode(Value::defaults, v);
        EXPECT_EQ(s->size(Value::defaults, v), default_bytes.size());
        {
            wire::Reader r(default_bytes);
            EXPECT_TRUE(s->decodes_to(Value::defaults, r, v));
            EXPECT_TRUE(r.at_end());
        }
        EXPECT_LE(default_bytes.size(), bytes.size());

        check_truncations(*s, bytes, v);
    }
    wire::Bytes empty;
    wire::Reader r(empty);
    EXPECT_THROW((void)s->decodes_to(Value::all, r, static_cast<std::int16_t>(s->min_version() - 1)),
                 wire::DecodeError);
    EXPECT_THROW((void)s->decodes_to(Value::all, r, static_cast<std::int16_t>(s->max_version() + 1)),
                 wire::DecodeError);
    EXPECT_THROW((void)s->encode(Value::all, static_cast<std::int16_t>(s->max_version() + 1)), wire::EncodeError);
    EXPECT_THROW((void)s->size(Value::all, static_cast<std::int16_t>(s->min_version() - 1)), wire::EncodeError);
}

INSTANTIATE_TEST_SUITE_P(Messages, GeneratedRoundTrip, testing::ValuesIn(all_subjects()),
                         [](const testing::TestParamInfo<SubjectInfo>& p) { return std::string(p.param.name); });

TEST(GeneratedRoundTripCoverage, EveryApiAndConsumerProtocol) {
    std::set<std::string> names;
    for (const SubjectInfo& info : all_subjects()) EXPECT_TRUE(names.insert(info.name).second) << info.name;
    for (const ApiInfo& api : kApis) {
        EXPECT_EQ(names.count(std::string(api.name) + "Request"), 1U) << api.name;
        EXPECT_EQ(names.count(std::string(api.name) + "Response"), 1U) << api.name;
    }
    EXPECT_EQ(names.count("ConsumerProtocolSubscription"), 1U);
    EXPECT_EQ(names.count("ConsumerProtocolAssignment"), 1U);
}

}  // namespace
}  // namespace weir::msg::gen_test
