#include "cli/dumplog/dump_report.h"

#include <fmt/format.h>

#include <ostream>

namespace weir::cli::dumplog {

FileReport::FileReport(std::ostream& out, std::string file, DumpSettings settings, std::string unit)
    : out_(out), file_(std::move(file)), settings_(settings), unit_(std::move(unit)) {}

void FileReport::line(std::string_view text) {
    if (!settings_.verify) out_ << text << '\n';
}

void FileReport::problem(std::string_view text) {
    ++problems_;
    if (!settings_.verify) {
        out_ << text << '\n';
        return;
    }
    const auto start = text.find_first_not_of(' ');
    out_ << file_ << ": " << (start == std::string_view::npos ? text : text.substr(start)) << '\n';
}

void FileReport::count_one(std::optional<std::int64_t> first, std::optional<std::int64_t> last) {
    ++count_;
    if (first && !first_offset_) first_offset_ = first;
    if (last) last_offset_ = last;
}

std::string FileReport::summary() const {
    std::string s = fmt::format("{}: {} {}", file_, count_, unit_);
    if (first_offset_ && last_offset_) s += fmt::format(", offsets {}-{}", *first_offset_, *last_offset_);
    if (problems_ == 0) return s + ", ok";
    return s + fmt::format(", {} problem{}", problems_, problems_ == 1 ? "" : "s");
}

}  // namespace weir::cli::dumplog
