#include "broker/admin/prometheus_writer.h"

#include <fmt/format.h>

#include <cmath>

namespace weir::admin {

void PrometheusWriter::family(std::string_view name, std::string_view type, std::string_view help) {
    fmt::format_to(std::back_inserter(out_), "# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

void PrometheusWriter::series(std::string_view name, std::initializer_list<Label> labels) {
    out_ += name;
    if (labels.size() == 0) return;
    out_ += '{';
    bool first = true;
    for (const auto& l : labels) {
        if (!first) out_ += ',';
        first = false;
        out_ += l.name;
        out_ += "=\"";
        for (char c : l.value) {
            switch (c) {
                case '\\':
                    out_ += "\\\\";
                    break;
                case '"':
                    out_ += "\\\"";
                    break;
                case '\n':
                    out_ += "\\n";
                    break;
                default:
                    out_ += c;
            }
        }
        out_ += '"';
    }
    out_ += '}';
}

void PrometheusWriter::sample(std::string_view name, std::initializer_list<Label> labels, std::uint64_t value) {
    series(name, labels);
    fmt::format_to(std::back_inserter(out_), " {}\n", value);
}

void PrometheusWriter::sample(std::string_view name, std::initializer_list<Label> labels, std::int64_t value) {
    series(name, labels);
    fmt::format_to(std::back_inserter(out_), " {}\n", value);
}

void PrometheusWriter::sample(std::string_view name, std::initializer_list<Label> labels, double value) {
    series(name, labels);
    if (std::isinf(value)) {
        out_ += value > 0 ? " +Inf\n" : " -Inf\n";
    } else if (std::isnan(value)) {
        out_ += " NaN\n";
    } else {
        fmt::format_to(std::back_inserter(out_), " {}\n", value);
    }
}

}  // namespace weir::admin
