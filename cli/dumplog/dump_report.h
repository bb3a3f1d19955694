#pragma once
// Where the dump of one file goes: its lines (left out under --verify), its
// problems (always printed and counted) and its --verify summary line.
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

namespace weir::cli::dumplog {

struct DumpSettings {
    bool verify = false;
    bool deep_iteration = false;
    bool print_data_log = false;
};

class FileReport {
public:
    FileReport(std::ostream& out, std::string file, DumpSettings settings, std::string unit);

    [[nodiscard]] const DumpSettings& settings() const { return settings_; }
    [[nodiscard]] const std::string& file() const { return file_; }
    [[nodiscard]] std::uint64_t problems() const { return problems_; }
    [[nodiscard]] std::uint64_t count() const { return count_; }

    // One line of the dump itself.
    void line(std::string_view text);
    // An inconsistency. Under --verify, where lines of many files mix, it is
    // prefixed with the file name (and loses any indentation).
    void problem(std::string_view text);
    // One more batch/entry/producer covering offsets first..last (if it has offsets).
    void count_one(std::optional<std::int64_t> first = std::nullopt, std::optional<std::int64_t> last = std::nullopt);
    // "FILE: 12 batches, offsets 0-47, ok" / "..., 2 problems".
    [[nodiscard]] std::string summary() const;

private:
    std::ostream& out_;
    std::string file_;
    DumpSettings settings_;
    std::string unit_;
    std::uint64_t count_ = 0;
    std::uint64_t problems_ = 0;
    std::optional<std::int64_t> first_offset_;
    std::optional<std::int64_t> last_offset_;
};

}  // namespace weir::cli::dumplog
