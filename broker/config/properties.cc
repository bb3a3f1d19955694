#include "broker/config/properties.h"

#include <cerrno>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "broker/config/config_error.h"

namespace weir::config {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\f'; }

// One logical line (continuations joined, escapes still in place) and the
// natural line it started on, for error messages.
struct LogicalLine {
    std::string text;
    std::size_t line_number;
};

// Splits into logical lines following java.util.Properties.LineReader.
std::vector<LogicalLine> logical_lines(std::string_view text) {
    std::vector<LogicalLine> out;
    std::size_t pos = 0;
    std::size_t line_no = 0;
    std::string pending;
    bool continuing = false;
    std::size_t start_line = 0;

    while (pos < text.size()) {
        std::size_t end = pos;
        while (end < text.size() && text[end] != '\n' && text[end] != '\r') ++end;
        std::string_view natural = text.substr(pos, end - pos);
        // Consume the terminator: \n, \r or \r\n.
        pos = end;
        if (pos < text.size() && text[pos] == '\r') ++pos;
        if (pos < text.size() && text[pos] == '\n') ++pos;
        ++line_no;

        std::size_t i = 0;
        while (i < natural.size() && is_blank(natural[i])) ++i;
        natural.remove_prefix(i);

        if (!continuing) {
            if (natural.empty()) continue;
            if (natural.front() == '#' || natural.front() == '!') continue;
            start_line = line_no;
        }

        std::size_t backslashes = 0;
        for (std::size_t k = natural.size(); k > 0 && natural[k - 1] == '\\'; --k) ++backslashes;
        if (backslashes % 2 == 1) {
            pending.append(natural.substr(0, natural.size() - 1));
            continuing = true;
            continue;
        }
        pending.append(natural);
        out.push_back({std::move(pending), start_line});
        pending.clear();
        continuing = false;
    }
    if (continuing) out.push_back({std::move(pending), start_line});
    return out;
}

void append_utf8(std::string& out, char32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// Resolves escapes (Properties.loadConvert). \u escapes are UTF-16 code units;
// surrogate pairs are combined, lone surrogates become U+FFFD.
std::string unescape(std::string_view s, std::size_t line_number) {
    std::string out;
    out.reserve(s.size());
    char16_t high_surrogate = 0;
    auto flush_high = [&] {
        if (high_surrogate != 0) {
            append_utf8(out, 0xFFFD);
            high_surrogate = 0;
        }
    };
    for (std::size_t i = 0; i < s.size(); ++i) {
        char c = s[i];
        if (c != '\\' || i + 1 == s.size()) {
            flush_high();
            out += c;
            continue;
        }
        char e = s[++i];
        if (e == 'u') {
            char16_t unit = 0;
            for (int k = 0; k < 4; ++k) {
                int v = (i + 1 < s.size()) ? hex_value(s[i + 1]) : -1;
                if (v < 0) {
                    throw ConfigError("Malformed \\uxxxx encoding on line " + std::to_string(line_number));
                }
                unit = static_cast<char16_t>(unit * 16 + v);
                ++i;
            }
            if (unit >= 0xD800 && unit <= 0xDBFF) {
                flush_high();
                high_surrogate = unit;
            } else if (unit >= 0xDC00 && unit <= 0xDFFF) {
                if (high_surrogate != 0) {
                    char32_t cp = 0x10000 + ((static_cast<char32_t>(high_surrogate) - 0xD800) << 10) + (unit - 0xDC00);
                    append_utf8(out, cp);
                    high_surrogate = 0;
                } else {
                    append_utf8(out, 0xFFFD);
                }
            } else {
                flush_high();
                append_utf8(out, unit);
            }
            continue;
        }
        flush_high();
        switch (e) {
            case 't':
                out += '\t';
                break;
            case 'n':
                out += '\n';
                break;
            case 'r':
                out += '\r';
                break;
            case 'f':
                out += '\f';
                break;
            default:
                out += e;
                break;
        }
    }
    flush_high();
    return out;
}

}  // namespace

ConfigMap parse_properties(std::string_view text) {
    ConfigMap result;
    for (const LogicalLine& line : logical_lines(text)) {
        std::string_view s = line.text;
        std::size_t key_end = 0;
        std::size_t value_start = s.size();
        bool escaped = false;
        bool has_separator = false;
        for (; key_end < s.size(); ++key_end) {
            char c = s[key_end];
            if (escaped) {
                escaped = false;
                continue;
            }
            if (c == '\\') {
                escaped = true;
            } else if (c == '=' || c == ':') {
                has_separator = true;
                break;
            } else if (is_blank(c)) {
                break;
            }
        }
        value_start = key_end;
        if (has_separator) {
            ++value_start;
        } else {
            // Whitespace ends the key; one '=' or ':' may follow it.
            while (value_start < s.size() && is_blank(s[value_start])) ++value_start;
            if (value_start < s.size() && (s[value_start] == '=' || s[value_start] == ':')) ++value_start;
        }
        while (value_start < s.size() && is_blank(s[value_start])) ++value_start;

        result.insert_or_assign(unescape(s.substr(0, key_end), line.line_number),
                                unescape(s.substr(value_start), line.line_number));
    }
    return result;
}

ConfigMap load_properties_file(const std::filesystem::path& path) {
    auto unreadable = [&](int error) {
        return ConfigError(path.string() + " (" + std::generic_category().message(error != 0 ? error : EIO) + ")");
    };
    // An ifstream opens a directory and then reads nothing, which would pass for an empty file.
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw unreadable(EISDIR);
    errno = 0;
    std::ifstream in(path, std::ios::binary);
    if (!in) throw unreadable(errno);
    std::ostringstream buffer;
    buffer << in.rdbuf();
    if (in.bad()) throw unreadable(errno);
    try {
        return parse_properties(buffer.str());
    } catch (const ConfigError& e) {
        throw ConfigError(path.string() + ": " + e.what());
    }
}

}  // namespace weir::config
