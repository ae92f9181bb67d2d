#include "reports/text_chart.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include "model/text.hpp"
#include "reports/plot_scale.hpp"

namespace hugetune {

namespace {

// A character grid with a log2 x axis from 1 and a linear y axis from 0.
class TextCanvas {
  public:
    TextCanvas(int width, int height, double xmax, double ymax)
        : width_(width),
          height_(height),
          xmax_(xmax),
          ymax_(ymax),
          grid_(static_cast<std::size_t>(height),
                std::string(static_cast<std::size_t>(width), ' ')),
          header_(static_cast<std::size_t>(width), ' ') {}

    int col(double x) const {
        const double lx = std::log2(xmax_);
        const double f = lx > 0 ? std::log2(std::max(1.0, x)) / lx : 0;
        return std::clamp(static_cast<int>(std::lround(f * (width_ - 1))), 0, width_ - 1);
    }
    int row(double y) const {
        const double f = y / ymax_;
        return std::clamp(height_ - 1 - static_cast<int>(std::lround(f * (height_ - 1))), 0,
                          height_ - 1);
    }
    void put(int r, int c, char ch) {
        grid_[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)] = ch;
    }
    void plot(double x, double y, char ch) { put(row(y), col(x), ch); }
    // A letter above the chart naming the column at x.
    void name_column(double x, const std::string& name) {
        const auto at = static_cast<std::size_t>(col(x));
        if (header_.size() < at + name.size())
            header_.resize(at + name.size(), ' ');
        header_.replace(at, name.size(), name);
    }

    // `y_text` writes the three labelled y values; `x_label` names the axis.
    std::string render(const std::function<std::string(double)>& y_text,
                       const std::string& x_label) const {
        std::vector<std::string> labels(static_cast<std::size_t>(height_));
        std::size_t margin = 8;
        for (int r = 0; r < height_; ++r)
            if (r == 0 || r == height_ - 1 || r == (height_ - 1) / 2) {
                auto& label = labels[static_cast<std::size_t>(r)];
                label = y_text(ymax_ * (height_ - 1 - r) / (height_ - 1));
                margin = std::max(margin, label.size());
            }
        std::ostringstream s;
        std::string header = header_;
        header.erase(header.find_last_not_of(' ') + 1);
        if (!header.empty())
            s << std::string(margin + 2, ' ') << header << "\n";
        for (int r = 0; r < height_; ++r) {
            const auto& label = labels[static_cast<std::size_t>(r)];
            std::string row_text = std::string(margin - label.size(), ' ') + label + " |" +
                                   grid_[static_cast<std::size_t>(r)];
            row_text.erase(row_text.find_last_not_of(' ') + 1);
            s << row_text << "\n";
        }
        s << std::string(margin + 1, ' ') << '+'
          << std::string(static_cast<std::size_t>(width_), '-') << "\n";
        std::string axis(static_cast<std::size_t>(width_) + margin + 8, ' ');
        for (double x = 1; x <= xmax_ * 1.0001; x *= 2) {
            const std::string t = plot_number(x);
            const auto at = margin + 2 + static_cast<std::size_t>(col(x));
            if (at + t.size() <= axis.size())
                axis.replace(at, t.size(), t);
        }
        axis.erase(axis.find_last_not_of(' ') + 1);
        s << axis << "   " << x_label << "\n";
        return s.str();
    }

  private:
    int width_, height_;
    double xmax_, ymax_;
    std::vector<std::string> grid_;
    std::string header_;
};

std::string mark_legend(char letter, const std::string& name, const model::Prediction& mark) {
    return std::string(1, letter) + " " + name +
           " hugepage_alloc_threads=" + plot_number(x_of(mark)) + ": " +
           seconds_text(mark.seconds) + "\n";
}

}  // namespace

std::string boot_chart(const PlotData& data, int width, int height) {
    const BootPanel& boot = data.boot;
    const BootScale scale = boot_scale(boot);
    if (boot.predicted.empty() || !(scale.top > 0) || width < 8 || height < 3)
        return "";
    TextCanvas canvas(width, height, boot_xmax(boot), scale.top);
    const auto fits = [&](double y) { return y <= scale.top; };
    for (const auto& p : boot.predicted)
        if (p.seconds_low && p.seconds_high && fits(*p.seconds_low))
            for (int r = canvas.row(std::min(*p.seconds_high, scale.top));
                 r <= canvas.row(*p.seconds_low); ++r)
                canvas.put(r, canvas.col(x_of(p)), '.');
    for (const auto& p : boot.predicted)
        if (fits(p.seconds))
            canvas.plot(x_of(p), p.seconds, '-');
    for (const auto& p : drawn_measured(boot))
        if (fits(p.seconds))
            canvas.plot(x_of(p), p.seconds, '*');
    const bool coincide =
        boot.recommended && boot.kernel_default &&
        canvas.col(x_of(*boot.recommended)) == canvas.col(x_of(*boot.kernel_default));
    if (boot.kernel_default) {
        canvas.plot(x_of(*boot.kernel_default), boot.kernel_default->seconds, 'D');
        canvas.name_column(x_of(*boot.kernel_default), "D");
    }
    if (boot.recommended) {
        canvas.plot(x_of(*boot.recommended), boot.recommended->seconds, 'R');
        canvas.name_column(x_of(*boot.recommended), coincide ? "R=D" : "R");
    }
    std::string out = canvas.render(seconds_text, "hugepage_alloc_threads (log2)");
    if (boot.recommended)
        out += mark_legend('R', "recommended", *boot.recommended);
    if (boot.kernel_default)
        out += mark_legend('D', "kernel default", *boot.kernel_default);
    if (scale.band_reach)
        out += ". band " + clipped_text(scale.top, *scale.band_reach) + "\n";
    if (scale.curve_reach)
        out += "- predicted " + clipped_text(scale.top, *scale.curve_reach) + "\n";
    if (scale.measured_reach)
        out += "* measured " + clipped_text(scale.top, *scale.measured_reach) + "\n";
    if (measured_left_out(boot))
        out += "* measured " + left_out_text(boot) + "\n";
    return out;
}

std::string phase_chart(const PlotData& data, int width, int height) {
    double xmax = 1, ymax = 0;
    for (const auto& series : data.series) {
        for (const auto& p : series.measured) {
            xmax = std::max(xmax, p.threads_per_node);
            ymax = std::max(ymax, p.value);
        }
        for (const auto& [x, y] : series.fitted) {
            xmax = std::max(xmax, x);
            ymax = std::max(ymax, y);
        }
    }
    if (!(ymax > 0) || width < 8 || height < 3)
        return "";
    TextCanvas canvas(width, height, xmax, ymax);
    // Marks: a column of '|' (recommended) or ':' (default), named by a letter above the chart.
    const bool coincide = data.recommended_threads_per_node && data.default_threads_per_node &&
                          canvas.col(*data.recommended_threads_per_node) ==
                              canvas.col(*data.default_threads_per_node);
    auto mark = [&](const std::optional<double>& x, char ch) {
        if (!x)
            return;
        for (int r = 0; r < height; ++r)
            canvas.put(r, canvas.col(*x), ch == 'R' ? '|' : ':');
        canvas.name_column(*x, ch == 'R' && coincide ? "R=D" : std::string(1, ch));
    };
    mark(data.default_threads_per_node, 'D');
    mark(data.recommended_threads_per_node, 'R');
    for (const auto& series : data.series)
        for (const auto& [x, y] : series.fitted)
            canvas.plot(x, y, '-');
    for (const auto& series : data.series)
        for (const auto& p : series.measured)
            canvas.plot(p.threads_per_node, p.value, p.time_shared ? 'o' : '*');
    std::string out =
        canvas.render([](double y) { return significant_text(y, 3); }, "threads per node (log2)");
    if (std::any_of(data.series.begin(), data.series.end(), any_time_shared))
        out += std::string("o ") + kTimeSharedText + "\n";
    return out;
}

}  // namespace hugetune
