// Small helpers to write inline SVG charts by hand: escaping, number
// formatting, "nice" axis ticks, linear scales and an element writer. The
// report is one self-contained file, so there is no charting library.
#pragma once

#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hplx::report {

// Text and attribute values for HTML/SVG (& < > " ').
std::string escape_html(std::string_view text);

// A number for people: `digits` significant digits, no trailing zeros.
std::string format_number(double v, int digits = 4);

// About `target` round tick values (1, 2, 5 x 10^k steps) covering [lo, hi]:
// the first is >= lo, the last is the first >= hi.
std::vector<double> nice_ticks(double lo, double hi, int target = 5);

// Maps the data interval [d0, d1] onto the pixel interval [r0, r1].
struct LinearScale {
  double d0 = 0, d1 = 1, r0 = 0, r1 = 1;
  double operator()(double v) const {
    return d1 == d0 ? (r0 + r1) / 2 : r0 + (v - d0) * (r1 - r0) / (d1 - d0);
  }
};

// The plot area of a chart inside its SVG canvas.
struct Frame {
  double width = 960, height = 360;
  double left = 72, right = 24, top = 58, bottom = 52;
  double x0() const { return left; }
  double x1() const { return width - right; }
  double y0() const { return height - bottom; }  // the bottom of the plot
  double y1() const { return top; }
};

// Writes SVG elements; attributes are written as given (escape text first).
class SvgWriter {
 public:
  // <svg id=... viewBox=...> with a <title> for screen readers.
  SvgWriter(const std::string& id, const Frame& frame, const std::string& title);

  void rect(double x, double y, double w, double h, const std::string& fill,
            const std::string& tooltip = "");
  void line(double x1, double y1, double x2, double y2, const std::string& stroke, double width = 1,
            const std::string& dash = "", const std::string& cls = "");
  // A polyline through the points, as a <path>.
  void path(const std::vector<std::pair<double, double>>& points, const std::string& stroke,
            double width, const std::string& dash = "", const std::string& cls = "",
            const std::string& tooltip = "");
  void circle(double cx, double cy, double r, const std::string& fill,
              const std::string& tooltip = "");
  // `anchor`: start | middle | end. `text` is escaped here.
  void text(double x, double y, const std::string& text, const std::string& anchor = "start",
            const std::string& cls = "", double rotate = 0);
  void raw(const std::string& markup) { out_ << markup; }

  // Axes with grid lines, tick labels and axis titles.
  void axes(const Frame& f, const LinearScale& x, const std::vector<double>& xticks,
            const LinearScale& y, const std::vector<double>& yticks, const std::string& xlabel,
            const std::string& ylabel);
  // A row of legend entries (colour swatch + label) above the plot;
  // `dashed` entries are drawn as a line instead of a swatch.
  struct LegendEntry {
    LegendEntry(std::string label_, std::string colour_, bool line_ = false, std::string dash_ = "")
        : label(std::move(label_)),
          colour(std::move(colour_)),
          line(line_),
          dash(std::move(dash_)) {}
    std::string label, colour;
    bool line;
    std::string dash;
  };
  void legend(const Frame& f, const std::vector<LegendEntry>& entries);

  std::string finish();  // closes </svg> and returns the markup

 private:
  std::ostringstream out_;
};

}  // namespace hplx::report
