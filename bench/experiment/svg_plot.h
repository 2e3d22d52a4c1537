// Small SVG charts for the experiment reports: line charts (one series per algorithm, optional
// log-scale y) and grouped bar charts (the fairness histograms). Plain SVG 1.1 text, no
// dependencies, deterministic output.
#pragma once

#include <string>
#include <vector>

namespace resched::experiment {

struct Series {
  std::string name;
  std::vector<double> x;
  std::vector<double> y;
};

struct LineChart {
  std::string title;
  std::string x_label;
  std::string y_label;
  bool log_y = false;
  std::vector<Series> series;
};

struct BarChart {
  std::string title;
  std::string y_label;
  std::vector<std::string> categories;  // groups along x
  std::vector<Series> series;           // y[i] is the bar of category i
};

std::string RenderSvg(const LineChart& chart);
std::string RenderSvg(const BarChart& chart);

}  // namespace resched::experiment
