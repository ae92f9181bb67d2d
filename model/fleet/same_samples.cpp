#include "model/fleet/same_samples.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <utility>

namespace hugetune::model::fleet {
namespace {

// Samples within kSameSampleShare of each other differ by at most this in natural log, and so do
// their sums, least and most; the slack covers the sums' rounding.
const double kSameLogSpread = -std::log1p(-kSameSampleShare) + 1e-12;
// The index's cells, in log of a run's samples' sum: wider than kSameLogSpread, so that the run
// a lookup is after lies in its cell or a neighbour.
constexpr double kSumCellWidth = 2 * kSameSampleShare;

bool same_sample(double a, double b) {
    return std::abs(a - b) <= kSameSampleShare * std::max(std::abs(a), std::abs(b));
}

// The series' (thread count, seconds) pairs, each count's samples in ascending order.
std::vector<std::pair<double, double>> sorted_samples(const PhaseSeries& s) {
    std::vector<std::pair<double, double>> out;
    out.reserve(s.points.size());
    for (const auto& p : s.points)
        out.emplace_back(p.threads_per_node, p.seconds);
    std::sort(out.begin(), out.end());
    return out;
}

bool same_series(const PhaseSeries& a, const PhaseSeries& b) {
    if (a.phase != b.phase || a.pages_per_node != b.pages_per_node ||
        a.points.size() != b.points.size())
        return false;
    const auto x = sorted_samples(a);
    const auto y = sorted_samples(b);
    for (std::size_t i = 0; i < x.size(); ++i)
        if (x[i].first != y[i].first || !same_sample(x[i].second, y[i].second))
            return false;
    return true;
}

// What a lookup compares first: the log of a run's samples' sum, least and most. Absent for a
// run with no samples or one the reader would not have taken (not positive, not finite).
struct SamplesSummary {
    double log_sum = 0, log_least = 0, log_most = 0;
};

std::optional<SamplesSummary> summary_of(const RunFacts& run) {
    double sum = 0;
    double least = std::numeric_limits<double>::infinity();
    double most = 0;
    for (const auto& series : run.sweep.phases)
        for (const auto& p : series.points) {
            if (!(p.seconds > 0) || !std::isfinite(p.seconds))
                return std::nullopt;
            sum += p.seconds;
            least = std::min(least, p.seconds);
            most = std::max(most, p.seconds);
        }
    if (!(sum > 0) || !std::isfinite(sum))
        return std::nullopt;
    return SamplesSummary{std::log(sum), std::log(least), std::log(most)};
}

std::int64_t cell_of(double log_sum) {
    return static_cast<std::int64_t>(std::floor(log_sum / kSumCellWidth));
}

bool log_near(double a, double b) {
    return std::abs(a - b) <= kSameLogSpread;
}

bool placed_before(const RunPlace& a, const RunPlace& b) {
    return a.host != b.host ? a.host < b.host : a.run < b.run;
}

}  // namespace

bool same_samples(const RunFacts& a, const RunFacts& b) {
    const auto& x = a.sweep.phases;
    const auto& y = b.sweep.phases;
    if (x.size() != y.size())
        return false;
    for (std::size_t i = 0; i < x.size(); ++i)
        if (!same_series(x[i], y[i]))
            return false;
    return true;
}

std::optional<RunPlace> SameSamplesIndex::find(const RunFacts& run,
                                               const std::vector<HostRuns>& hosts) const {
    const auto summary = summary_of(run);
    if (!summary)
        return std::nullopt;
    const std::int64_t cell = cell_of(summary->log_sum);
    std::optional<RunPlace> first;
    for (const std::int64_t c : std::array{cell - 1, cell, cell + 1}) {
        const auto at = cells_.find(c);
        if (at == cells_.end())
            continue;
        for (const Entry& e : at->second)
            if (log_near(e.log_sum, summary->log_sum) &&
                log_near(e.log_least, summary->log_least) &&
                log_near(e.log_most, summary->log_most) &&
                (!first || placed_before(e.place, *first)) &&
                same_samples(hosts[e.place.host].runs[e.place.run], run))
                first = e.place;
    }
    return first;
}

void SameSamplesIndex::add(const RunFacts& run, RunPlace place) {
    if (const auto summary = summary_of(run))
        cells_[cell_of(summary->log_sum)].push_back(
            {summary->log_sum, summary->log_least, summary->log_most, place});
}

}  // namespace hugetune::model::fleet
