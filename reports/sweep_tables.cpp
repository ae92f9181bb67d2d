#include "reports/sweep_tables.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <sstream>

#include "model/text.hpp"

namespace hugetune {

using model::MeasuredPoint;

std::map<std::string, std::vector<const MeasuredPoint*>> points_by_phase(
    const std::vector<MeasuredPoint>& points) {
    std::map<std::string, std::vector<const MeasuredPoint*>> by_phase;
    for (const auto& p : points)
        by_phase[p.phase].push_back(&p);
    for (auto& [phase, list] : by_phase)
        std::stable_sort(list.begin(), list.end(),
                         [](const MeasuredPoint* a, const MeasuredPoint* b) {
                             return a->threads_per_node < b->threads_per_node;
                         });
    return by_phase;
}

std::pair<double, double> sample_range(const MeasuredPoint& point) {
    if (point.samples_seconds.empty())
        return {0, 0};
    const auto [lo, hi] =
        std::minmax_element(point.samples_seconds.begin(), point.samples_seconds.end());
    return {*lo, *hi};
}

namespace {

std::string phase_meaning(const std::string& phase) {
    if (phase == "alloc")
        return "fresh surplus pages, allocated and zeroed by the faulting threads (twice with "
               "init_on_alloc)";
    if (phase == "zero")
        return "pool pages faulted: zeroing alone";
    if (phase == "grow")
        return "the pool grown by writing nr_hugepages, one writer at a time: what the boot does "
               "per page";
    return "";
}

// Phase order as the sweep runs them: the cost that matters first.
const std::vector<std::string> kPhaseOrder = {"alloc", "zero", "grow"};

}  // namespace

namespace {

// The repetition that stands out, hyperfine's way of reading a spread: the slowest (or fastest)
// when it lies more than kOutlierFactor from the median, named by its place in the order
// measured.
constexpr double kOutlierFactor = 1.5;

std::string outlier_note(const MeasuredPoint& p) {
    const auto& s = p.samples_seconds;
    if (s.size() < 3 || p.median_seconds <= 0)
        return "";
    const auto slow = std::max_element(s.begin(), s.end());
    const auto fast = std::min_element(s.begin(), s.end());
    const auto named = [&](auto it, double ratio, const char* how) {
        return "  repetition " + std::to_string(it - s.begin() + 1) + " of " +
               std::to_string(s.size()) + " " + decimals_text(ratio, 1) + "x " + how;
    };
    if (*slow > kOutlierFactor * p.median_seconds)
        return named(slow, *slow / p.median_seconds, "the median");
    if (*fast > 0 && p.median_seconds > kOutlierFactor * *fast)
        return named(fast, p.median_seconds / *fast, "faster than the median");
    return "";
}

}  // namespace

std::string format_phase_tables(const std::vector<MeasuredPoint>& points) {
    std::ostringstream s;
    auto by_phase = points_by_phase(points);
    std::vector<std::string> phases = kPhaseOrder;
    for (const auto& [phase, list] : by_phase)
        if (std::find(phases.begin(), phases.end(), phase) == phases.end())
            phases.push_back(phase);
    bool first = true;
    for (const auto& phase : phases) {
        auto it = by_phase.find(phase);
        if (it == by_phase.end())
            continue;
        if (!first)
            s << "\n";
        first = false;
        s << "phase " << phase;
        if (auto meaning = phase_meaning(phase); !meaning.empty())
            s << ": " << meaning;
        s << "\n  threads/node      median    fastest..slowest       GiB/s  notes\n";
        for (const MeasuredPoint* p : it->second) {
            const double median = p->median_seconds;
            auto [lo, hi] = sample_range(*p);
            std::string notes;
            if (p->oversubscribed)
                notes += "  oversubscribed";
            if (p->shortfall_pages > 0)
                notes += "  shortfall " + std::to_string(p->shortfall_pages) + " pages";
            notes += outlier_note(*p);
            char line[200];
            std::snprintf(line, sizeof line, "  %12d  %10s  %18s  %10.2f%s\n", p->threads_per_node,
                          seconds_text(median).c_str(),
                          (seconds_text(lo) + ".." + seconds_text(hi)).c_str(), p->gib_per_second,
                          notes.c_str());
            s << line;
        }
    }
    return s.str();
}

std::string placement_line(const model::MeasuredSweep& sweep, const SettingWords& words) {
    if (sweep.placement == model::kPlacementBoot)
        return "placement: boot (threads and pages placed as the kernel's boot workers; "
               "docs/kernel-facts.md \"The sweep against the boot\")\n";
    std::string line =
        "placement: node-local (each node's threads and pages on that node; "
        "docs/kernel-facts.md \"The sweep against the boot\")\n";
    if (sweep.nodes.size() > 1)
        line += "  on " + std::to_string(sweep.nodes.size()) +
                " nodes this leaves out the remote zeroing and the shared zone locks of the boot's "
                "workers: the prediction is likely optimistic; measure again with " +
                words("placement") + " boot\n";
    return line;
}

namespace {

void add_sample_counts(std::ostringstream& s, const std::vector<model::MeasuredPoint>& points,
                       std::string_view prefix, std::size_t& fewest, std::size_t& most) {
    std::string phase;
    for (const auto& p : points) {
        if (p.phase != phase)
            s << (phase.empty() && prefix.empty() ? "" : ", ") << prefix << p.phase;
        phase = p.phase;
        s << ' ' << p.threads_per_node << ':' << p.samples_seconds.size();
        fewest = std::min(fewest, p.samples_seconds.size());
        most = std::max(most, p.samples_seconds.size());
    }
}

}  // namespace

std::string sampling_line(const model::MeasuredSweep& sweep) {
    if (!sweep.sampling)
        return "";
    std::ostringstream counts;
    std::size_t fewest = std::numeric_limits<std::size_t>::max(), most = 0;
    add_sample_counts(counts, sweep.points, "", fewest, most);
    if (sweep.hvo_pass)
        add_sample_counts(counts, sweep.hvo_pass->points, "HVO pass ", fewest, most);
    if (most == 0)
        return "";
    std::ostringstream s;
    s << "sampling: " << sweep.sampling->rule << ", "
      << (fewest == most ? std::to_string(most)
                         : std::to_string(fewest) + " to " + std::to_string(most))
      << " samples per point (" << counts.str() << "), stopped: "
      << (sweep.sampling->stopped.empty() ? "interrupted" : sweep.sampling->stopped) << " after "
      << count_text(sweep.sampling->rounds.value_or(0), "round") << "\n";
    return s.str();
}

std::string format_sweep_summary(const model::MeasuredSweep& sweep, const SettingWords& words) {
    std::ostringstream s;
    if (!sweep.points.empty())
        s << "sample " << static_cast<std::uint64_t>(sweep.points[0].pages_per_node) << " x "
          << page_size_text(sweep.points[0].page_size_kb > 0 ? sweep.points[0].page_size_kb
                                                             : sweep.page_size_kb)
          << " pages per node, " << sweep.nodes.size() << " node(s)\n"
          << placement_line(sweep, words) << sampling_line(sweep) << "\n";
    if (auto tables = format_phase_tables(sweep.points); !tables.empty())
        s << tables;
    for (const auto& w : sweep.warnings)
        s << "note: " << w << "\n";
    return s.str();
}

}  // namespace hugetune
