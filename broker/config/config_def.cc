#include "broker/config/config_def.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <system_error>

#include "broker/config/config_error.h"

namespace weir::config {

const char* to_string(ConfigType type) noexcept {
    switch (type) {
        case ConfigType::boolean:
            return "BOOLEAN";
        case ConfigType::string:
            return "STRING";
        case ConfigType::int32:
            return "INT";
        case ConfigType::int16:
            return "SHORT";
        case ConfigType::int64:
            return "LONG";
        case ConfigType::float64:
            return "DOUBLE";
        case ConfigType::list:
            return "LIST";
        case ConfigType::class_name:
            return "CLASS";
        case ConfigType::password:
            return "PASSWORD";
        case ConfigType::unknown:
            break;
    }
    return "UNKNOWN";
}

std::string_view trim(std::string_view s) noexcept {
    while (!s.empty() && static_cast<unsigned char>(s.front()) <= ' ') s.remove_prefix(1);
    while (!s.empty() && static_cast<unsigned char>(s.back()) <= ' ') s.remove_suffix(1);
    return s;
}

std::string invalid_value_message(std::string_view key, std::string_view value, std::string_view reason) {
    std::string msg = "Invalid value ";
    msg += value;
    msg += " for configuration ";
    msg += key;
    if (!reason.empty()) {
        msg += ": ";
        msg += reason;
    }
    return msg;
}

namespace {

// Java's Integer/Short/Long.parseInt: optional sign, decimal digits only.
std::optional<std::int64_t> parse_integer(std::string_view s, std::int64_t lo, std::int64_t hi) {
    if (s.empty()) return std::nullopt;
    bool negative = false;
    if (s.front() == '+' || s.front() == '-') {
        negative = s.front() == '-';
        s.remove_prefix(1);
        if (s.empty()) return std::nullopt;
    }
    std::uint64_t magnitude = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return std::nullopt;
        if (magnitude > (std::numeric_limits<std::uint64_t>::max() - 9) / 10) return std::nullopt;
        magnitude = magnitude * 10 + static_cast<std::uint64_t>(c - '0');
    }
    constexpr std::uint64_t kMaxNegative = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + 1;
    if (negative) {
        if (magnitude > kMaxNegative) return std::nullopt;
        std::int64_t v = magnitude == kMaxNegative ? std::numeric_limits<std::int64_t>::min()
                                                   : -static_cast<std::int64_t>(magnitude);
        if (v < lo) return std::nullopt;
        return v;
    }
    if (magnitude > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return std::nullopt;
    auto v = static_cast<std::int64_t>(magnitude);
    if (v > hi) return std::nullopt;
    return v;
}

std::optional<double> parse_double(std::string_view s) {
    if (s.empty()) return std::nullopt;
    if (s.front() == '+') s.remove_prefix(1);
    // Java accepts a trailing d/D/f/F type suffix.
    if (!s.empty() && (s.back() == 'd' || s.back() == 'D' || s.back() == 'f' || s.back() == 'F')) s.remove_suffix(1);
    double v = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
    return v;
}

// Java's Double.toString, which DescribeConfigs shows ("0.5", "1.0",
// "1.7976931348623157E308"): shortest digits, scientific notation outside
// [1e-3, 1e7), a mantissa that always has a fraction, a bare exponent.
std::string format_double(double v) {
    if (!std::isfinite(v)) return std::isnan(v) ? "NaN" : (v > 0 ? "Infinity" : "-Infinity");
    const double magnitude = std::fabs(v);
    const bool scientific = magnitude != 0 && (magnitude >= 1e7 || magnitude < 1e-3);
    char buf[64];
    auto [ptr, ec] =
        std::to_chars(buf, buf + sizeof buf, v, scientific ? std::chars_format::scientific : std::chars_format::fixed);
    std::string out(buf, ec == std::errc() ? ptr : buf);
    const std::size_t e = out.find('e');
    std::string mantissa = out.substr(0, e);
    if (mantissa.find('.') == std::string::npos) mantissa += ".0";
    if (e == std::string::npos) return mantissa;
    std::string exponent = out.substr(e + 1);
    const bool negative = exponent.front() == '-';
    exponent.erase(0, exponent.find_first_not_of("+-"));
    exponent.erase(0, std::min(exponent.find_first_not_of('0'), exponent.size() - 1));
    return mantissa + "E" + (negative ? "-" : "") + exponent;
}

std::vector<std::string> split_list(std::string_view trimmed) {
    std::vector<std::string> out;
    if (trimmed.empty()) return out;
    std::size_t start = 0;
    while (true) {
        std::size_t comma = trimmed.find(',', start);
        std::string_view item =
            trimmed.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
        out.emplace_back(trim(item));
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return out;
}

std::string choices_text(std::span<const std::string_view> choices) {
    std::string out;
    for (auto c : choices) {
        if (!out.empty()) out += ", ";
        out += c;
    }
    return out;
}

bool contains(std::span<const std::string_view> choices, std::string_view v) {
    for (auto c : choices)
        if (c == v) return true;
    return false;
}

}  // namespace

std::string normalize_value(const ConfigKey& key, std::string_view raw) {
    const std::string_view t = trim(raw);
    auto fail = [&](std::string_view reason) -> void {
        throw ConfigError(invalid_value_message(key.name, raw, reason));
    };

    std::string canonical;
    std::optional<std::int64_t> number;
    std::optional<double> real;
    switch (key.type) {
        case ConfigType::boolean:
            if (t.size() == 4 && (t[0] | 0x20) == 't' && (t[1] | 0x20) == 'r' && (t[2] | 0x20) == 'u' &&
                (t[3] | 0x20) == 'e') {
                canonical = "true";
            } else if (t.size() == 5 && (t[0] | 0x20) == 'f' && (t[1] | 0x20) == 'a' && (t[2] | 0x20) == 'l' &&
                       (t[3] | 0x20) == 's' && (t[4] | 0x20) == 'e') {
                canonical = "false";
            } else {
                fail("Expected value to be either true or false");
            }
            break;
        case ConfigType::int32:
            number =
                parse_integer(t, std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max());
            if (!number) fail("Not a number of type INT");
            break;
        case ConfigType::int16:
            number =
                parse_integer(t, std::numeric_limits<std::int16_t>::min(), std::numeric_limits<std::int16_t>::max());
            if (!number) fail("Not a number of type SHORT");
            break;
        case ConfigType::int64:
            number =
                parse_integer(t, std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max());
            if (!number) fail("Not a number of type LONG");
            break;
        case ConfigType::float64:
            real = parse_double(t);
            if (!real) fail("Not a number of type DOUBLE");
            canonical = format_double(*real);
            break;
        case ConfigType::list: {
            auto items = split_list(t);
            for (std::size_t i = 0; i < items.size(); ++i) {
                if (i > 0) canonical += ',';
                canonical += items[i];
            }
            break;
        }
        case ConfigType::string:
        case ConfigType::class_name:
        case ConfigType::password:
        case ConfigType::unknown:
            canonical = std::string(t);
            break;
    }
    if (number) canonical = std::to_string(*number);

    const Validator& v = key.validator;
    switch (v.kind) {
        case Validator::Kind::none:
            break;
        case Validator::Kind::at_least:
            if ((number && *number < v.min) || (real && *real < static_cast<double>(v.min)))
                fail("Value must be at least " + std::to_string(v.min));
            break;
        case Validator::Kind::between:
            if ((number && *number < v.min) || (real && *real < static_cast<double>(v.min)))
                fail("Value must be no less than " + std::to_string(v.min));
            if ((number && *number > v.max) || (real && *real > static_cast<double>(v.max)))
                fail("Value must be no more than " + std::to_string(v.max));
            break;
        case Validator::Kind::one_of:
            if (!contains(v.choices, canonical)) fail("String must be one of: " + choices_text(v.choices));
            break;
        case Validator::Kind::list_of:
            for (const auto& item : as_list(canonical)) {
                if (!contains(v.choices, item)) {
                    throw ConfigError(
                        invalid_value_message(key.name, item, "String must be one of: " + choices_text(v.choices)));
                }
            }
            break;
        case Validator::Kind::custom:
            if (v.check != nullptr) {
                if (auto reason = v.check(canonical)) fail(*reason);
            }
            break;
    }
    return canonical;
}

bool as_bool(std::string_view canonical) { return canonical == "true"; }

std::int64_t as_int(std::string_view canonical) {
    auto v = parse_integer(trim(canonical), std::numeric_limits<std::int64_t>::min(),
                           std::numeric_limits<std::int64_t>::max());
    return v.value_or(0);
}

double as_double(std::string_view canonical) { return parse_double(trim(canonical)).value_or(0.0); }

std::vector<std::string> as_list(std::string_view canonical) { return split_list(trim(canonical)); }

}  // namespace weir::config
