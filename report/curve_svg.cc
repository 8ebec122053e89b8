#include "report/curve_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "report/html.h"

namespace tessera {
namespace report {
namespace {

constexpr const char* kColors[] = {"#2f81f7", "#e8590c", "#1a7f37", "#8250df",
                                   "#bf3989", "#9a6700", "#0a7ea4", "#cf222e",
                                   "#57606a", "#116329", "#6639ba", "#953800"};
constexpr double kLeft = 80, kRight = 880, kTop = 56, kBottom = 356, kWidth = 920;

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f", v);
  return buf;
}

std::string Label(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", v);
  return buf;
}

// The smallest of 1, 2, 2.5, 5 times a power of ten that is at least `v`.
double NiceCeil(double v) {
  if (v <= 0) return 1;
  const double base = std::pow(10.0, std::floor(std::log10(v)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    if (m * base >= v * (1 - 1e-12)) return m * base;
  }
  return 10 * base;
}

struct Scales {
  double x1 = 1;            // the x axis runs from 0 to x1
  double ly0 = 0, ly1 = 1;  // log10 of the y axis' ends (ms)
  double X(double x) const { return kLeft + x / x1 * (kRight - kLeft); }
  double Y(double ms) const {
    return kBottom - (std::log10(ms) - ly0) / (ly1 - ly0) * (kBottom - kTop);
  }
};

double EndOf(const TaskCurve& c, CurveAxis axis) {
  return axis == CurveAxis::kTrials ? static_cast<double>(c.trials) : c.span_s;
}

double XOf(const CurvePoint& p, CurveAxis axis) {
  return axis == CurveAxis::kTrials ? static_cast<double>(p.trial) : p.elapsed_s;
}

Scales ScalesFor(const std::vector<const TaskCurve*>& drawn, CurveAxis axis) {
  double x_max = 0, lo = INFINITY, hi = 0;
  for (const TaskCurve* c : drawn) {
    x_max = std::max(x_max, EndOf(*c, axis));
    for (const CurvePoint& p : c->improvements) {
      lo = std::min(lo, p.best_s * 1e3);
      hi = std::max(hi, p.best_s * 1e3);
    }
  }
  Scales s;
  s.x1 = NiceCeil(x_max);
  if (hi > 0) {
    s.ly0 = std::floor(std::log10(lo));
    s.ly1 = std::max(std::ceil(std::log10(hi)), s.ly0 + 1);
  }
  return s;
}

void Axes(std::ostringstream& svg, const Scales& s, CurveAxis axis) {
  svg << "<g class=\"axes\" stroke=\"#d0d7de\" stroke-width=\"1\">\n";
  for (int i = 0; i <= 5; ++i) {
    const double x = s.x1 * i / 5, px = s.X(x);
    svg << "<line x1=\"" << Num(px) << "\" y1=\"" << kTop << "\" x2=\"" << Num(px) << "\" y2=\""
        << kBottom << "\"/><text class=\"tick\" x=\"" << Num(px) << "\" y=\"" << kBottom + 18
        << "\" text-anchor=\"middle\" stroke=\"none\">" << Label(x) << "</text>\n";
  }
  for (double d = s.ly0; d <= s.ly1; ++d) {
    for (double m : {1.0, 2.0, 5.0}) {
      const double ms = m * std::pow(10.0, d);
      if (std::log10(ms) > s.ly1 + 1e-9) break;
      const double py = s.Y(ms);
      svg << "<line x1=\"" << kLeft << "\" y1=\"" << Num(py) << "\" x2=\"" << kRight << "\" y2=\""
          << Num(py) << "\"/><text class=\"tick\" x=\"" << kLeft - 8 << "\" y=\"" << Num(py + 4)
          << "\" text-anchor=\"end\" stroke=\"none\">" << Label(ms) << "</text>\n";
    }
  }
  svg << "</g>\n<text x=\"" << (kLeft + kRight) / 2 << "\" y=\"" << kBottom + 40
      << "\" text-anchor=\"middle\">"
      << (axis == CurveAxis::kTrials ? "trials" : "seconds since the first trial") << "</text>\n"
      << "<text x=\"20\" y=\"" << (kTop + kBottom) / 2 << "\" text-anchor=\"middle\" "
      << "transform=\"rotate(-90 20 " << (kTop + kBottom) / 2 << ")\">best ms</text>\n";
}

// The best-so-far steps, carried to the task's last trial; a dot (with its figures) per best.
void Series(std::ostringstream& svg, const TaskCurve& c, const Scales& s, CurveAxis axis,
            const char* color) {
  std::string points;
  double y = 0;
  for (size_t i = 0; i < c.improvements.size(); ++i) {
    const CurvePoint& p = c.improvements[i];
    const double px = s.X(XOf(p, axis));
    if (i > 0) points += Num(px) + "," + Num(y) + " ";
    y = s.Y(p.best_s * 1e3);
    points += Num(px) + "," + Num(y) + " ";
  }
  points += Num(s.X(EndOf(c, axis))) + "," + Num(y);
  svg << "<g class=\"series\" data-workload=\"" << EscapeHtml(c.workload_key) << "\" data-target=\""
      << EscapeHtml(c.target) << "\">\n<polyline fill=\"none\" stroke=\"" << color
      << "\" stroke-width=\"2\" points=\"" << points << "\"/>\n";
  for (const CurvePoint& p : c.improvements) {
    svg << "<circle class=\"best\" cx=\"" << Num(s.X(XOf(p, axis))) << "\" cy=\""
        << Num(s.Y(p.best_s * 1e3)) << "\" r=\"3.5\" fill=\"" << color << "\"><title>trial "
        << p.trial << ", " << Num(p.elapsed_s) << " s: " << Label(p.best_s * 1e3)
        << " ms</title></circle>\n";
  }
  svg << "</g>\n";
}

}  // namespace

std::string CurveSvg(const std::vector<TaskCurve>& curves, const std::string& title,
                     CurveAxis axis) {
  std::vector<const TaskCurve*> drawn, left_out;
  for (const TaskCurve& c : curves) {
    if (c.improvements.empty()) continue;
    (drawn.size() < kSvgMaxTasks ? drawn : left_out).push_back(&c);
  }
  const Scales s = ScalesFor(drawn, axis);
  const double legend_top = kBottom + 70;
  const double height = legend_top + 18 * (drawn.size() + (left_out.empty() ? 0 : 1)) + 20;
  std::ostringstream svg;
  svg << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
      << "width=\"" << kWidth << "\" height=\"" << height << "\" viewBox=\"0 0 " << kWidth << " "
      << height << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n<text x=\"" << kLeft
      << "\" y=\"30\" font-size=\"16\" font-weight=\"600\">" << EscapeHtml(title) << "</text>\n";
  svg << "<g class=\"plot\" data-x-pixels=\"" << kLeft << " " << kRight << "\" data-x-values=\"0 "
      << Label(s.x1) << "\" data-y-pixels=\"" << kBottom << " " << kTop << "\" data-y-log10-ms=\""
      << Label(s.ly0) << " " << Label(s.ly1) << "\">\n";
  Axes(svg, s, axis);
  for (size_t i = 0; i < drawn.size(); ++i) Series(svg, *drawn[i], s, axis, kColors[i]);
  svg << "</g>\n";
  for (size_t i = 0; i < drawn.size(); ++i) {
    const double y = legend_top + 18 * i;
    svg << "<rect x=\"" << kLeft << "\" y=\"" << y - 10 << "\" width=\"12\" height=\"12\" fill=\""
        << kColors[i] << "\"/><text x=\"" << kLeft + 18 << "\" y=\"" << y << "\">"
        << EscapeHtml(drawn[i]->workload_key) << "  [" << EscapeHtml(drawn[i]->target) << "]  "
        << drawn[i]->trials << " trials</text>\n";
  }
  if (!left_out.empty()) {
    svg << "<text x=\"" << kLeft << "\" y=\"" << legend_top + 18 * drawn.size() << "\">and "
        << left_out.size() << " more tasks (name one with --task)</text>\n";
  }
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace report
}  // namespace tessera
