#pragma once
// Prometheus' text exposition format, version 0.0.4: one HELP and TYPE line
// per family, then its samples, label values escaped.
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

namespace weir::admin {

inline constexpr std::string_view kPrometheusContentType = "text/plain; version=0.0.4; charset=utf-8";

struct Label {
    std::string_view name;
    std::string_view value;
};

class PrometheusWriter {
public:
    // Starts a family; its samples must follow before the next family.
    void family(std::string_view name, std::string_view type, std::string_view help);
    void sample(std::string_view name, std::initializer_list<Label> labels, std::uint64_t value);
    void sample(std::string_view name, std::initializer_list<Label> labels, std::int64_t value);
    void sample(std::string_view name, std::initializer_list<Label> labels, double value);

    [[nodiscard]] std::string take() { return std::move(out_); }
    [[nodiscard]] std::size_t size() const { return out_.size(); }

private:
    void series(std::string_view name, std::initializer_list<Label> labels);
    std::string out_;
};

}  // namespace weir::admin
