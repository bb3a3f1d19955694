#include "cli/topics/java_properties.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace weir::cli::topics {

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\f'; }

std::vector<std::string_view> natural_lines(std::string_view text) {
    std::vector<std::string_view> lines;
    std::size_t start = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '\n' && text[i] != '\r') continue;
        lines.push_back(text.substr(start, i - start));
        if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
        start = i + 1;
    }
    if (start < text.size()) lines.push_back(text.substr(start));
    return lines;
}

std::string_view skip_blanks(std::string_view s) {
    while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
    return s;
}

bool continues(std::string_view line) {
    std::size_t backslashes = 0;
    for (auto it = line.rbegin(); it != line.rend() && *it == '\\'; ++it) ++backslashes;
    return backslashes % 2 == 1;
}

void append_utf8(std::string& out, unsigned code) {
    if (code < 0x80) {
        out += static_cast<char>(code);
    } else if (code < 0x800) {
        out += static_cast<char>(0xC0 | (code >> 6));
        out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
        out += static_cast<char>(0xE0 | (code >> 12));
        out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (code & 0x3F));
    }
}

std::string unescape(std::string_view s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '\\' || i + 1 == s.size()) {
            out += s[i];
            continue;
        }
        const char c = s[++i];
        switch (c) {
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
            case 'u': {
                unsigned code = 0;
                std::size_t n = 0;
                for (; n < 4 && i + 1 < s.size(); ++n) {
                    const char h = s[i + 1];
                    const int digit = h >= '0' && h <= '9'   ? h - '0'
                                      : h >= 'a' && h <= 'f' ? h - 'a' + 10
                                      : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                                             : -1;
                    if (digit < 0) break;
                    code = code * 16 + static_cast<unsigned>(digit);
                    ++i;
                }
                if (n == 4) append_utf8(out, code);
                break;
            }
            default:
                out += c;
        }
    }
    return out;
}

}  // namespace

std::map<std::string, std::string> parse_java_properties(std::string_view text) {
    std::map<std::string, std::string> out;
    const auto lines = natural_lines(text);
    for (std::size_t i = 0; i < lines.size(); ++i) {
        std::string_view first = skip_blanks(lines[i]);
        if (first.empty() || first.front() == '#' || first.front() == '!') continue;
        std::string logical(first);
        while (continues(logical) && i + 1 < lines.size()) {
            logical.pop_back();
            logical += skip_blanks(lines[++i]);
        }
        if (continues(logical)) logical.pop_back();

        const std::string_view line = logical;
        std::size_t key_end = 0;
        while (key_end < line.size()) {
            const char c = line[key_end];
            if (c == '\\') {
                key_end += 2;
                continue;
            }
            if (c == '=' || c == ':' || is_blank(c)) break;
            ++key_end;
        }
        key_end = std::min(key_end, line.size());
        std::string_view rest = skip_blanks(line.substr(key_end));
        if (!rest.empty() && (rest.front() == '=' || rest.front() == ':')) rest = skip_blanks(rest.substr(1));
        out[unescape(line.substr(0, key_end))] = unescape(rest);
    }
    return out;
}

std::map<std::string, std::string> load_java_properties(const std::string& path) {
    if (std::filesystem::is_directory(path)) throw std::runtime_error(fmt::format("{} (Is a directory)", path));
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(fmt::format("{} ({})", path, std::strerror(errno)));
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) throw std::runtime_error(fmt::format("{} ({})", path, std::strerror(errno)));
    return parse_java_properties(text.str());
}

}  // namespace weir::cli::topics
