#include "bench/experiment/svg_plot.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace resched::experiment {
namespace {

constexpr double kWidth = 720;
constexpr double kHeight = 440;
constexpr double kLeft = 70;
constexpr double kRight = 170;  // room for the legend
constexpr double kTop = 40;
constexpr double kBottom = 60;
const char* const kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                               "#9467bd", "#8c564b", "#e377c2", "#17becf"};

std::string Escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string Header(const std::string& title) {
  return absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" height=\"%g\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" "
      "fill=\"white\"/>\n<text x=\"%g\" y=\"24\" font-size=\"15\">%s</text>\n",
      kWidth, kHeight, kLeft, Escape(title));
}

// A "nice" step (1, 2 or 5 times a power of ten) giving about `ticks` ticks over `span`.
double NiceStep(double span, int ticks) {
  const double raw = span / ticks;
  const double magnitude = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * magnitude >= raw) return m * magnitude;
  }
  return 10 * magnitude;
}

struct Axis {
  double lo;
  double hi;
  bool log;
  double Map(double v, double from, double to) const {
    const double a = log ? std::log10(lo) : lo;
    const double b = log ? std::log10(hi) : hi;
    const double x = log ? std::log10(std::max(v, lo)) : v;
    return from + (x - a) / (b - a) * (to - from);
  }
};

std::string Legend(const std::vector<Series>& series) {
  std::string out;
  for (size_t i = 0; i < series.size(); ++i) {
    const double y = kTop + 10 + 18 * static_cast<double>(i);
    const double x = kWidth - kRight + 15;
    absl::StrAppendFormat(&out,
                          "<rect x=\"%g\" y=\"%g\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                          "<text x=\"%g\" y=\"%g\">%s</text>\n",
                          x, y - 10, kColors[i % 8], x + 18, y, Escape(series[i].name));
  }
  return out;
}

std::string YAxis(const Axis& axis, const std::string& label) {
  const double bottom = kHeight - kBottom;
  std::string out = absl::StrFormat(
      "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"black\"/>\n"
      "<text x=\"16\" y=\"%g\" transform=\"rotate(-90 16 %g)\" text-anchor=\"middle\">%s</text>\n",
      kLeft, kTop, kLeft, bottom, (kTop + bottom) / 2, (kTop + bottom) / 2, Escape(label));
  std::vector<double> ticks;
  if (axis.log) {
    for (double t = std::pow(10, std::floor(std::log10(axis.lo))); t <= axis.hi * 1.0001; t *= 10) {
      if (t >= axis.lo * 0.9999) ticks.push_back(t);
    }
  } else {
    const double step = NiceStep(axis.hi - axis.lo, 5);
    for (double t = std::ceil(axis.lo / step) * step; t <= axis.hi + step * 1e-9; t += step) {
      ticks.push_back(t);
    }
  }
  for (double t : ticks) {
    const double y = axis.Map(t, bottom, kTop);
    absl::StrAppendFormat(&out,
                          "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"#ddd\"/>"
                          "<text x=\"%g\" y=\"%g\" text-anchor=\"end\">%g</text>\n",
                          kLeft, y, kWidth - kRight, y, kLeft - 6, y + 4, t);
  }
  return out;
}

Axis YRange(const std::vector<Series>& series, bool log, bool from_zero) {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  for (const auto& s : series) {
    for (double v : s.y) {
      if (!std::isfinite(v) || (log && v <= 0)) continue;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  if (!std::isfinite(lo)) return {log ? 1.0 : 0.0, log ? 10.0 : 1.0, log};
  if (from_zero && !log) lo = std::min(lo, 0.0);
  if (hi <= lo) hi = lo + (log ? lo * 9 : 1);
  if (!log) hi += (hi - lo) * 0.05;
  return {lo, hi, log};
}

}  // namespace

std::string RenderSvg(const LineChart& chart) {
  std::string out = Header(chart.title);
  const Axis y = YRange(chart.series, chart.log_y, false);
  double x_lo = std::numeric_limits<double>::infinity();
  double x_hi = -x_lo;
  for (const auto& s : chart.series) {
    for (double v : s.x) {
      x_lo = std::min(x_lo, v);
      x_hi = std::max(x_hi, v);
    }
  }
  if (!std::isfinite(x_lo)) x_lo = 0, x_hi = 1;
  if (x_hi <= x_lo) x_hi = x_lo + 1;
  const Axis x{x_lo, x_hi, false};
  const double bottom = kHeight - kBottom;
  out += YAxis(y, chart.y_label);
  absl::StrAppendFormat(&out,
                        "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"black\"/>\n"
                        "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">%s</text>\n",
                        kLeft, bottom, kWidth - kRight, bottom, (kLeft + kWidth - kRight) / 2,
                        kHeight - 15, Escape(chart.x_label));
  const double step = NiceStep(x_hi - x_lo, 6);
  for (double t = std::ceil(x_lo / step) * step; t <= x_hi + step * 1e-9; t += step) {
    absl::StrAppendFormat(&out, "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">%g</text>\n",
                          x.Map(t, kLeft, kWidth - kRight), bottom + 18, t);
  }
  for (size_t i = 0; i < chart.series.size(); ++i) {
    const auto& s = chart.series[i];
    std::string points;
    for (size_t j = 0; j < s.x.size() && j < s.y.size(); ++j) {
      if (!std::isfinite(s.y[j]) || (chart.log_y && s.y[j] <= 0)) continue;
      absl::StrAppendFormat(&points, "%.1f,%.1f ", x.Map(s.x[j], kLeft, kWidth - kRight),
                            y.Map(s.y[j], bottom, kTop));
    }
    absl::StrAppendFormat(&out,
                          "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
                          "points=\"%s\"/>\n",
                          kColors[i % 8], points);
  }
  out += Legend(chart.series);
  return out + "</svg>\n";
}

std::string RenderSvg(const BarChart& chart) {
  std::string out = Header(chart.title);
  const Axis y = YRange(chart.series, false, true);
  const double bottom = kHeight - kBottom;
  const double plot_width = kWidth - kRight - kLeft;
  out += YAxis(y, chart.y_label);
  absl::StrAppendFormat(&out, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"black\"/>\n",
                        kLeft, bottom, kWidth - kRight, bottom);
  const size_t groups = std::max<size_t>(chart.categories.size(), 1);
  const double group_width = plot_width / static_cast<double>(groups);
  const double bar_width =
      group_width * 0.8 / static_cast<double>(std::max<size_t>(chart.series.size(), 1));
  for (size_t g = 0; g < chart.categories.size(); ++g) {
    const double x0 = kLeft + group_width * static_cast<double>(g) + group_width * 0.1;
    absl::StrAppendFormat(&out, "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">%s</text>\n",
                          x0 + group_width * 0.4, bottom + 18, Escape(chart.categories[g]));
    for (size_t i = 0; i < chart.series.size(); ++i) {
      if (g >= chart.series[i].y.size() || !std::isfinite(chart.series[i].y[g])) continue;
      const double top = y.Map(chart.series[i].y[g], bottom, kTop);
      absl::StrAppendFormat(&out,
                            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                            "fill=\"%s\"/>\n",
                            x0 + bar_width * static_cast<double>(i), top, bar_width,
                            std::max(0.0, bottom - top), kColors[i % 8]);
    }
  }
  out += Legend(chart.series);
  return out + "</svg>\n";
}

}  // namespace resched::experiment
