#include "broker/admin/prometheus_writer.h"

#include <gtest/gtest.h>

#include <limits>

namespace weir::admin {
namespace {

TEST(PrometheusWriterTest, FamiliesAndSamplesInTextFormat) {
    PrometheusWriter w;
    w.family("weir_x_total", "counter", "Things counted.");
    w.sample("weir_x_total", {{"api", "Produce"}, {"error", "NONE"}}, std::uint64_t{42});
    w.sample("weir_x_total", {}, std::int64_t{-3});
    w.sample("weir_y", {{"le", "+Inf"}}, 0.25);
    w.sample("weir_y", {}, std::numeric_limits<double>::infinity());
    EXPECT_EQ(w.take(),
              "# HELP weir_x_total Things counted.\n"
              "# TYPE weir_x_total counter\n"
              "weir_x_total{api=\"Produce\",error=\"NONE\"} 42\n"
              "weir_x_total -3\n"
              "weir_y{le=\"+Inf\"} 0.25\n"
              "weir_y +Inf\n");
}

TEST(PrometheusWriterTest, LabelValuesAreEscaped) {
    PrometheusWriter w;
    w.sample("m", {{"group", "a\"b\\c\nd"}}, std::uint64_t{1});
    EXPECT_EQ(w.take(), "m{group=\"a\\\"b\\\\c\\nd\"} 1\n");
}

}  // namespace
}  // namespace weir::admin
