#include "report/svg.hpp"

#include <cmath>

#include <fmt/format.h>

namespace hplx::report {

std::string escape_html(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string format_number(double v, int digits) {
  if (!std::isfinite(v)) return "n/a";
  if (v == 0) return "0";
  std::string s = fmt::format("{:.{}g}", v, digits);
  return s;
}

std::vector<double> nice_ticks(double lo, double hi, int target) {
  if (!(hi > lo)) return {lo};
  const double raw = (hi - lo) / std::max(1, target);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * mag;
    if (step >= raw) break;
  }
  // From the first multiple of step >= lo to the first >= hi, so the last
  // tick can serve as the axis end.
  std::vector<double> ticks;
  const double first = std::ceil(lo / step - 1e-9);
  for (int i = 0; i < 1000; ++i) {
    const double t = (first + i) * step;
    ticks.push_back(std::abs(t) < step * 1e-9 ? 0.0 : t);
    if (t >= hi - step * 1e-9) break;
  }
  return ticks;
}

namespace {
std::string num(double v) {
  return fmt::format("{:.1f}", v);
}
}  // namespace

SvgWriter::SvgWriter(const std::string& id, const Frame& frame, const std::string& title) {
  out_ << fmt::format(
      "<svg id=\"{}\" class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {} {}\" "
      "role=\"img\" aria-label=\"{}\"><title>{}</title>\n",
      escape_html(id), num(frame.width), num(frame.height), escape_html(title), escape_html(title));
}

void SvgWriter::rect(double x, double y, double w, double h, const std::string& fill,
                     const std::string& tooltip) {
  out_ << fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"", num(x),
                      num(y), fmt::format("{:.2f}", std::max(0.0, w)),
                      fmt::format("{:.2f}", std::max(0.0, h)), fill);
  if (tooltip.empty()) {
    out_ << "/>\n";
  } else {
    out_ << "><title>" << escape_html(tooltip) << "</title></rect>\n";
  }
}

void SvgWriter::line(double x1, double y1, double x2, double y2, const std::string& stroke,
                     double width, const std::string& dash, const std::string& cls) {
  out_ << fmt::format(
      "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"{}\"", num(x1),
      num(y1), num(x2), num(y2), stroke, width);
  if (!dash.empty()) out_ << " stroke-dasharray=\"" << dash << "\"";
  if (!cls.empty()) out_ << " class=\"" << cls << "\"";
  out_ << "/>\n";
}

void SvgWriter::path(const std::vector<std::pair<double, double>>& points,
                     const std::string& stroke, double width, const std::string& dash,
                     const std::string& cls, const std::string& tooltip) {
  if (points.empty()) return;
  std::string d;
  for (size_t i = 0; i < points.size(); ++i)
    d += fmt::format("{}{} {}", i == 0 ? "M" : " L", num(points[i].first), num(points[i].second));
  out_ << fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{}\"", d, stroke,
                      width);
  if (!dash.empty()) out_ << " stroke-dasharray=\"" << dash << "\"";
  if (!cls.empty()) out_ << " class=\"" << cls << "\"";
  if (tooltip.empty()) {
    out_ << "/>\n";
  } else {
    out_ << "><title>" << escape_html(tooltip) << "</title></path>\n";
  }
}

void SvgWriter::circle(double cx, double cy, double r, const std::string& fill,
                       const std::string& tooltip) {
  out_ << fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{}\"", num(cx), num(cy), r,
                      fill);
  if (tooltip.empty()) {
    out_ << "/>\n";
  } else {
    out_ << "><title>" << escape_html(tooltip) << "</title></circle>\n";
  }
}

void SvgWriter::text(double x, double y, const std::string& text, const std::string& anchor,
                     const std::string& cls, double rotate) {
  out_ << fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"{}\"", num(x), num(y), anchor);
  if (!cls.empty()) out_ << " class=\"" << cls << "\"";
  if (rotate != 0) out_ << fmt::format(" transform=\"rotate({} {} {})\"", rotate, num(x), num(y));
  out_ << ">" << escape_html(text) << "</text>\n";
}

void SvgWriter::axes(const Frame& f, const LinearScale& x, const std::vector<double>& xticks,
                     const LinearScale& y, const std::vector<double>& yticks,
                     const std::string& xlabel, const std::string& ylabel) {
  for (double t : yticks) {
    const double py = y(t);
    line(f.x0(), py, f.x1(), py, "#e3e3e3", 1);
    text(f.x0() - 6, py + 4, format_number(t), "end", "tick");
  }
  for (double t : xticks) {
    const double px = x(t);
    line(px, f.y0(), px, f.y0() + 5, "#666", 1);
    text(px, f.y0() + 18, format_number(t, 6), "middle", "tick");
  }
  line(f.x0(), f.y0(), f.x1(), f.y0(), "#666", 1);
  line(f.x0(), f.y0(), f.x0(), f.y1(), "#666", 1);
  text((f.x0() + f.x1()) / 2, f.height - 10, xlabel, "middle", "axis");
  text(16, (f.y0() + f.y1()) / 2, ylabel, "middle", "axis", -90);
}

void SvgWriter::legend(const Frame& f, const std::vector<LegendEntry>& entries) {
  double x = f.x0();
  const double y = 18;
  for (const auto& e : entries) {
    if (e.line) {
      line(x, y - 4, x + 18, y - 4, e.colour, 2.5, e.dash);
      x += 22;
    } else {
      rect(x, y - 10, 12, 12, e.colour);
      x += 16;
    }
    text(x, y, e.label, "start", "legend");
    // An estimate of the label's width at 12px (no layout engine here).
    x += 7.0 * static_cast<double>(e.label.size()) + 16;
  }
}

std::string SvgWriter::finish() {
  out_ << "</svg>\n";
  return out_.str();
}

}  // namespace hplx::report
