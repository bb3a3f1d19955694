#pragma once
// Glue between the generated round-trip subjects (build tree
// tests/generated_subjects_*.cc) and the checks in generated_roundtrip.cc.
// A Subject wraps one message type behind a small virtual interface so the
// gtest-heavy checking code is compiled once, not once per message.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "protocol/wire/reader.h"
#include "protocol/wire/records_data.h"
#include "protocol/wire/tagged_fields.h"
#include "protocol/wire/writer.h"

namespace weir::msg::gen_test {

// Above every tag Kafka defines, and two varint bytes long.
inline constexpr std::uint32_t kUnknownTag = 777;

inline bool present(int version, int lo, int hi) { return lo <= version && version <= hi; }

inline std::string text(const char* field, int salt) {
    // Non-ASCII on purpose: lengths count bytes, not characters.
    return std::string(field) + "-\xc3\xa9\xe6\x97\xa5-" + std::to_string(salt);
}

inline wire::Bytes bytes(int k, int salt) {
    return {0x00, 0xff, static_cast<std::uint8_t>(k), static_cast<std::uint8_t>(salt), 0x7f};
}

inline Uuid uuid(int k, int salt) {
    Uuid u;
    for (std::size_t i = 0; i < u.bytes.size(); ++i)
        u.bytes[i] = static_cast<std::uint8_t>(k * 16 + salt + static_cast<int>(i) + 1);
    return u;
}

enum class Value {
    sample,    // every field present at the version non-default (fill(v, all=false))
    all,       // every field of every version set (fill(max, all=true))
    defaults,  // default-constructed
};

class Subject {
public:
    virtual ~Subject() = default;
    [[nodiscard]] virtual std::int16_t min_version() const = 0;
    [[nodiscard]] virtual std::int16_t max_version() const = 0;
    // Rebuilds Value::sample for `version`.
    virtual void build_sample(std::int16_t version) = 0;
    [[nodiscard]] virtual wire::Bytes encode(Value which, std::int16_t version) const = 0;
    [[nodiscard]] virtual std::size_t size(Value which, std::int16_t version) const = 0;
    // Decodes `in` and compares the result with `which`.
    [[nodiscard]] virtual bool decodes_to(Value which, wire::Reader& in, std::int16_t version) const = 0;
    // decode then encode.
    [[nodiscard]] virtual wire::Bytes reencode(wire::Reader& in, std::int16_t version) const = 0;
};

template <class T, void (*Fill)(T&, std::int16_t, bool)>
class SubjectFor final : public Subject {
public:
    SubjectFor() { Fill(all_, T::max_version, true); }

    [[nodiscard]] std::int16_t min_version() const override { return T::min_version; }
    [[nodiscard]] std::int16_t max_version() const override { return T::max_version; }
    void build_sample(std::int16_t version) override {
        sample_ = T{};
        Fill(sample_, version, false);
    }
    [[nodiscard]] wire::Bytes encode(Value which, std::int16_t version) const override {
        wire::Bytes out;
        wire::Writer w(out);
        pick(which).encode(w, version);
        return out;
    }
    [[nodiscard]] std::size_t size(Value which, std::int16_t version) const override {
        return pick(which).size(version);
    }
    [[nodiscard]] bool decodes_to(Value which, wire::Reader& in, std::int16_t version) const override {
        return T::decode(in, version) == pick(which);
    }
    [[nodiscard]] wire::Bytes reencode(wire::Reader& in, std::int16_t version) const override {
        const T value = T::decode(in, version);
        wire::Bytes out;
        wire::Writer w(out);
        value.encode(w, version);
        return out;
    }

private:
    [[nodiscard]] const T& pick(Value which) const {
        return which == Value::sample ? sample_ : which == Value::all ? all_ : defaults_;
    }

    T sample_{};
    T all_{};
    T defaults_{};
};

struct SubjectInfo {
    const char* name;
    std::unique_ptr<Subject> (*make)();
};

template <class T, void (*Fill)(T&, std::int16_t, bool)>
std::unique_ptr<Subject> make_subject() {
    return std::make_unique<SubjectFor<T, Fill>>();
}

// Every generated message, defined in the generated tests/generated_subjects_0.cc.
std::vector<SubjectInfo> all_subjects();

}  // namespace weir::msg::gen_test
