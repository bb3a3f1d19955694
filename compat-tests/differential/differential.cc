#include "compat-tests/differential/differential.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <stdexcept>

namespace weir::differential {

namespace {

// FinalizedFeaturesEpoch is the offset of KRaft's metadata log when the
// features were read: it moves with every metadata change before it.
// A log dir's path and its disk's figures belong to the machine.
const std::set<std::string, std::less<>> kPlaceholders{
    "Host",      "Port",       "ClusterId",
    "TopicId",   "MemberId",   "Leader",
    "SessionId", "ProducerId", "FinalizedFeaturesEpoch",
    "LogDir",    "TotalBytes", "UsableBytes",
};

void normalize_field(std::string_view name, json::value& v) {
    if (name == "ThrottleTimeMs") {
        v = 0;
    } else if (name == "ErrorMessage" || name == "BatchIndexErrorMessage") {
        if (!v.is_null()) v = "<message>";
    } else if (name == "LogAppendTimeMs" || name == "TransactionStartTimeMs") {
        if (v.is_int64() && v.as_int64() != -1) v = "<time>";
    } else if (kPlaceholders.contains(name)) {
        // Keep what says "none": -1, 0 for a session, "", the zero Uuid.
        const bool none = v.is_null() || (v.is_int64() && v.as_int64() <= 0) ||
                          (v.is_string() && (v.as_string().empty() || v.as_string() == "AAAAAAAAAAAAAAAAAAAAAA"));
        if (!none) v = "<" + std::string(name) + ">";
    }
}

void diff(const json::value& k, const json::value& w, const std::string& path, std::vector<Difference>& out) {
    if (k.is_object() && w.is_object()) {
        std::set<std::string> keys;
        for (const auto& e : k.as_object()) keys.emplace(e.key());
        for (const auto& e : w.as_object()) keys.emplace(e.key());
        for (const auto& key : keys) {
            const std::string sub = path.empty() ? key : path + "/" + key;
            const auto* kv = k.as_object().if_contains(key);
            const auto* wv = w.as_object().if_contains(key);
            if (kv && wv) {
                diff(*kv, *wv, sub, out);
            } else {
                out.push_back({sub, kv ? json::serialize(*kv) : "<absent>", wv ? json::serialize(*wv) : "<absent>"});
            }
        }
        return;
    }
    if (k.is_array() && w.is_array()) {
        const auto& ka = k.as_array();
        const auto& wa = w.as_array();
        for (std::size_t i = 0; i < std::max(ka.size(), wa.size()); ++i) {
            const std::string sub = path + "/" + std::to_string(i);
            if (i < ka.size() && i < wa.size()) {
                diff(ka[i], wa[i], sub, out);
            } else {
                out.push_back({sub, i < ka.size() ? json::serialize(ka[i]) : "<absent>",
                               i < wa.size() ? json::serialize(wa[i]) : "<absent>"});
            }
        }
        return;
    }
    if (k != w) out.push_back({path, json::serialize(k), json::serialize(w)});
}

std::string trim(std::string_view s) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    return std::string(s);
}

// `x` -> x
std::string unquote(const std::string& cell) {
    if (cell.size() >= 2 && cell.front() == '`' && cell.back() == '`') return cell.substr(1, cell.size() - 2);
    return cell;
}

// Lists whose order carries no meaning, in the order of one of their fields.
void sort_list(std::string_view name, json::value& v) {
    if (!v.is_array()) return;
    const char* key = name == "Partitions" ? "PartitionIndex" : name == "Configs" ? "Name" : nullptr;
    if (key == nullptr) return;
    auto& a = v.as_array();
    std::stable_sort(a.begin(), a.end(), [key](const json::value& x, const json::value& y) {
        const auto* kx = x.is_object() ? x.as_object().if_contains(key) : nullptr;
        const auto* ky = y.is_object() ? y.as_object().if_contains(key) : nullptr;
        if (!kx || !ky) return false;
        return json::serialize(*kx) < json::serialize(*ky);
    });
}

}  // namespace

void normalize(json::value& v) {
    if (v.is_object()) {
        for (auto& e : v.as_object()) {
            normalize_field(e.key(), e.value());
            sort_list(e.key(), e.value());
            normalize(e.value());
        }
    } else if (v.is_array()) {
        for (auto& e : v.as_array()) normalize(e);
    }
}

std::vector<Difference> differences(const json::value& kafka, const json::value& weir) {
    std::vector<Difference> out;
    diff(kafka, weir, "", out);
    return out;
}

std::vector<Allowed> read_allowed(const std::filesystem::path& file) {
    std::ifstream in(file);
    if (!in) throw std::runtime_error("cannot read " + file.string());
    std::vector<Allowed> out;
    for (std::string line; std::getline(in, line);) {
        if (!line.starts_with("| ") || line.starts_with("| reference") || line.starts_with("| ---")) continue;
        std::vector<std::string> cells;
        std::size_t pos = 1;
        // Cells are split on " | "; a value never contains one.
        while (pos < line.size()) {
            const std::size_t next = line.find(" |", pos);
            if (next == std::string::npos) break;
            cells.push_back(trim(std::string_view(line).substr(pos, next - pos)));
            pos = next + 2;
        }
        if (cells.size() != 6) throw std::runtime_error("ALLOWED.md: a row needs 6 cells: " + line);
        if (cells[0] != "3.9" && cells[0] != "4.4" && cells[0] != "all")
            throw std::runtime_error("ALLOWED.md: the reference is 3.9, 4.4 or all: " + line);
        out.push_back({cells[0], cells[1], {unquote(cells[2]), unquote(cells[3]), unquote(cells[4])}, cells[5]});
    }
    return out;
}

std::string allowed_row(const std::string& reference, const std::string& scenario, const Difference& d) {
    return "| " + reference + " | " + scenario + " | `" + d.path + "` | `" + d.kafka + "` | `" + d.weir + "` | (why) |";
}

}  // namespace weir::differential
