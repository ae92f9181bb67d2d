#include "model/fit/resampling.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <tuple>

#include "model/parallel.hpp"

namespace hugetune::model {
namespace {

// Points by thread count, ascending, in input order within each. A series has a few distinct
// counts, so they are found by a linear search over those seen, and each group is sized first:
// a long series must not be moved again and again as its groups grow.
struct CountGroup {
    double threads_per_node = 0;
    std::vector<Point> points;
};

std::vector<CountGroup> group_by_count(std::span<const Point> points) {
    std::vector<CountGroup> groups;
    std::vector<std::size_t> sizes;
    std::vector<std::size_t> group_of(points.size());
    for (std::size_t i = 0; i < points.size(); ++i) {
        std::size_t g = 0;
        while (g < groups.size() && groups[g].threads_per_node != points[i].threads_per_node)
            ++g;
        if (g == groups.size()) {
            groups.push_back({points[i].threads_per_node, {}});
            sizes.push_back(0);
        }
        ++sizes[g];
        group_of[i] = g;
    }
    for (std::size_t g = 0; g < groups.size(); ++g)
        groups[g].points.reserve(sizes[g]);
    for (std::size_t i = 0; i < points.size(); ++i)
        groups[group_of[i]].points.push_back(points[i]);
    std::sort(groups.begin(), groups.end(), [](const CountGroup& a, const CountGroup& b) {
        return a.threads_per_node < b.threads_per_node;
    });
    return groups;
}

double weight_of(std::span<const Point> points) {
    double weight = 0;
    for (const auto& p : points)
        weight += p.weight;
    return weight;
}

// Consecutive runs of the sorted values, each as its weighted geometric mean and total weight.
std::vector<Point> sorted_blocks(std::vector<Point> values, std::size_t blocks) {
    std::sort(values.begin(), values.end(),
              [](const Point& a, const Point& b) { return a.seconds < b.seconds; });
    std::vector<Point> out;
    out.reserve(blocks);
    for (std::size_t b = 0; b < blocks; ++b) {
        const std::size_t begin = values.size() * b / blocks;
        const std::size_t end = values.size() * (b + 1) / blocks;
        double weight = 0, log_sum = 0;
        for (std::size_t i = begin; i < end; ++i) {
            weight += values[i].weight;
            log_sum += values[i].weight * std::log(values[i].seconds);
        }
        out.push_back({values[begin].threads_per_node, std::exp(log_sum / weight), weight});
    }
    return out;
}

// Poisson(mean) without a distribution object (their algorithms differ between libraries):
// Knuth's product of uniforms for a small mean, past 30 the normal approximation (its error, of
// order 1 / sqrt(mean), is far below the bootstrap's own), left unrounded: a weight need not be
// whole.
double poisson(double mean, Resampler& rng) {
    if (mean > 30)
        return std::max(0.0, mean + std::sqrt(mean) * rng.normal());
    const double limit = std::exp(-mean);
    double product = rng.unit();
    int k = 0;
    while (product > limit) {
        product *= rng.unit();
        ++k;
    }
    return k;
}

}  // namespace

double Resampler::normal() {
    if (spare_normal_) {
        const double z = *spare_normal_;
        spare_normal_.reset();
        return z;
    }
    const double radius = std::sqrt(-2 * std::log(unit()));
    const double angle = 2 * std::numbers::pi * unit();
    spare_normal_ = radius * std::sin(angle);
    return radius * std::cos(angle);
}

bool has_repetitions(std::span<const Point> points) {
    std::map<double, double> weights;
    for (const auto& p : points)
        weights[p.threads_per_node] += p.weight;
    if (weights.empty())
        return false;
    return std::all_of(weights.begin(), weights.end(), [](const auto& w) { return w.second >= 2; });
}

RepetitionPool::RepetitionPool(std::span<const Point> points) {
    const bool exact = points.size() <= kExactResampleSamples;
    for (auto& [n, values] : group_by_count(points)) {
        const bool blocks = !exact && values.size() > kResampleBlocksPerCount;
        counts_.push_back(
            {n,
             blocks ? sorted_blocks(std::move(values), kResampleBlocksPerCount) : std::move(values),
             blocks});
        size_ += counts_.back().values.size();
    }
}

std::vector<Point> RepetitionPool::draw(Resampler& rng) const {
    std::vector<Point> out;
    out.reserve(size_);
    draw_into(out, rng);
    return out;
}

void RepetitionPool::draw_into(std::vector<Point>& out, Resampler& rng) const {
    for (const auto& count : counts_) {
        const auto& values = count.values;
        if (!count.blocks) {
            for (std::size_t i = 0; i < values.size(); ++i)
                out.push_back(values[rng.index(values.size())]);
            continue;
        }
        for (const auto& block : values)
            if (const double weight = poisson(block.weight, rng); weight > 0)
                out.push_back({block.threads_per_node, block.seconds, weight});
    }
}

bool RepetitionPool::exact() const {
    return std::none_of(counts_.begin(), counts_.end(), [](const Count& c) { return c.blocks; });
}

std::vector<std::pair<double, std::span<const Point>>> RepetitionPool::groups() const {
    std::vector<std::pair<double, std::span<const Point>>> out;
    for (const auto& c : counts_)
        out.emplace_back(c.threads_per_node, std::span<const Point>(c.values));
    return out;
}

HostRepetitionPool::HostRepetitionPool(std::span<const Point> points,
                                       std::span<const std::size_t> host_ends,
                                       std::size_t threads) {
    std::vector<std::span<const Point>> spans;
    if (host_ends.empty()) {
        spans.push_back(points);
    } else {
        std::size_t begin = 0;
        for (const std::size_t end : host_ends) {
            spans.push_back(points.subspan(begin, end - begin));
            begin = end;
        }
    }
    hosts_count_ = spans.size();
    // Every host keeps its samples as measured (RepetitionPool, at most kExactResampleSamples)
    // and each weighs 1: then the ranks below are all a resample needs, and draw() takes the
    // same values with the same draws from them, so no host keeps a RepetitionPool of its own
    // (a SKU of 100,000 hosts would hold every sample twice more). The ranks count samples, so
    // a weighted sample (a host's runs weighed down to one host's say, model/fleet) takes the
    // resamples' own medians instead.
    exact_ =
        std::all_of(spans.begin(), spans.end(),
                    [](std::span<const Point> h) { return h.size() <= kExactResampleSamples; }) &&
        std::all_of(points.begin(), points.end(), [](const Point& p) { return p.weight == 1.0; });
    if (!exact_) {
        for (const auto& span : spans)
            hosts_.emplace_back(span);
        return;
    }
    rank_samples(spans, threads);
}

void HostRepetitionPool::rank_samples(std::span<const std::span<const Point>> spans,
                                      std::size_t threads) {
    // The distinct counts, ascending, and how many samples each has over all hosts, so that
    // each count's samples are gathered in room made once (a SKU of 100,000 hosts has millions).
    std::vector<std::size_t> per_count;
    std::size_t samples = 0;
    const auto count_of = [this](double n) {
        return static_cast<std::size_t>(
            std::lower_bound(count_values_.begin(), count_values_.end(), n) -
            count_values_.begin());
    };
    for (const auto& span : spans)
        for (const auto& p : span) {
            const std::size_t c = count_of(p.threads_per_node);
            if (c == count_values_.size() || count_values_[c] != p.threads_per_node) {
                count_values_.insert(count_values_.begin() + static_cast<std::ptrdiff_t>(c),
                                     p.threads_per_node);
                per_count.insert(per_count.begin() + static_cast<std::ptrdiff_t>(c), 0);
            }
            ++per_count[c];
            ++samples;
        }
    // Every sample of every host, by count, as (seconds, its place in ranks_), then ranked. A
    // host's groups are RepetitionPool's: ascending count, samples in input order.
    struct Sample {
        double seconds;
        std::uint32_t slot;
    };
    const std::size_t counts = count_values_.size();
    std::vector<std::vector<Sample>> by_count(counts);
    for (std::size_t c = 0; c < counts; ++c)
        by_count[c].reserve(per_count[c]);
    ranks_.resize(samples);
    host_group_begin_.reserve(spans.size() + 1);
    host_group_begin_.push_back(0);
    std::vector<std::uint32_t> host_count;  // each of a host's samples' count
    std::vector<std::uint32_t> filled(counts);
    std::uint32_t next_slot = 0;
    for (const auto& span : spans) {
        host_count.resize(span.size());
        std::fill(filled.begin(), filled.end(), 0);
        for (std::size_t i = 0; i < span.size(); ++i) {
            host_count[i] = static_cast<std::uint32_t>(count_of(span[i].threads_per_node));
            ++filled[host_count[i]];
        }
        // filled: each count's samples in this host, then where its group begins in ranks_.
        for (std::size_t c = 0; c < counts; ++c) {
            if (filled[c] == 0)
                continue;
            groups_.push_back({static_cast<std::uint32_t>(c), next_slot, filled[c]});
            filled[c] = next_slot;
            next_slot += groups_.back().size;
        }
        for (std::size_t i = 0; i < span.size(); ++i)
            by_count[host_count[i]].push_back({span[i].seconds, filled[host_count[i]]++});
        host_group_begin_.push_back(groups_.size());
    }
    // Each count ranked on its own: the counts share nothing but ranks_, where each sample's
    // slot is its own.
    ranked_seconds_.resize(counts);
    parallel_for(counts, threads_for(samples, kSamplesPerThread, threads), [&](std::size_t c) {
        auto& values = by_count[c];
        std::sort(values.begin(), values.end(),
                  [](const Sample& a, const Sample& b) { return a.seconds < b.seconds; });
        ranked_seconds_[c].reserve(values.size());
        for (std::size_t rank = 0; rank < values.size(); ++rank) {
            ranks_[values[rank].slot] = static_cast<std::uint32_t>(rank);
            ranked_seconds_[c].push_back(values[rank].seconds);
        }
        std::vector<Sample>().swap(values);
    });
}

namespace {

// The values at 0-based positions `at` - 1 (when `at` > 0) and `at` of the samples a resample
// drew, from how often it drew each rank (ranks order the samples by seconds).
std::pair<double, double> values_at(std::span<const std::uint32_t> hits,
                                    std::span<const double> ranked, std::size_t at) {
    std::optional<double> before;
    std::size_t seen = 0;
    for (std::size_t rank = 0; rank < hits.size(); ++rank) {
        seen += hits[rank];
        if (!before && at > 0 && seen >= at)
            before = ranked[rank];
        if (seen > at)
            return {before.value_or(0), ranked[rank]};
    }
    return {before.value_or(0), ranked.back()};
}

}  // namespace

std::vector<Point> HostRepetitionPool::draw_medians(std::span<const std::size_t> drawn,
                                                    Resampler& rng) const {
    // Per count, what the resample drew, with the draws of draw(): where the count's ranks are
    // few beside the draws, how often each rank was drawn (read off in rank order); where they
    // are many (a SKU of more hosts than a resample draws), the ranks drawn, their middle found
    // by selection. Either way its cost follows the draws, not the hosts the pool holds.
    const std::size_t counts = ranked_seconds_.size();
    std::vector<std::size_t> drawn_per_count(counts, 0);
    std::vector<std::vector<std::uint32_t>> hits(counts), ranks(counts);
    std::vector<char> by_hits(counts);
    for (std::size_t c = 0; c < counts; ++c) {
        const std::size_t expected = ranked_seconds_[c].size() * drawn.size() / hosts_count_;
        by_hits[c] = ranked_seconds_[c].size() <= 4 * expected;
        if (by_hits[c])
            hits[c].assign(ranked_seconds_[c].size(), 0);
        else
            ranks[c].reserve(expected + 8);
    }
    // A drawn host's groups and ranks lie wherever its index puts them, so each host read is a
    // few cache misses: the hosts drawn next are asked for ahead, each step of the chain (where
    // its groups begin, the groups, their ranks) some hosts before it is read.
    const auto ahead = [&](std::size_t i, std::size_t distance) {
        return i + distance < drawn.size() ? drawn[i + distance] : drawn[i];
    };
    for (std::size_t i = 0; i < drawn.size(); ++i) {
        const std::size_t host = drawn[i];
        __builtin_prefetch(host_group_begin_.data() + ahead(i, 12));
        if (const std::size_t g = host_group_begin_[ahead(i, 8)]; g < groups_.size())
            __builtin_prefetch(groups_.data() + g);
        if (const std::size_t g = host_group_begin_[ahead(i, 4)]; g < groups_.size())
            __builtin_prefetch(ranks_.data() + groups_[g].begin);
        for (std::size_t g = host_group_begin_[host]; g < host_group_begin_[host + 1]; ++g) {
            const RankedGroup& group = groups_[g];
            const std::size_t size = group.size;
            const std::uint32_t* group_ranks = ranks_.data() + group.begin;
            drawn_per_count[group.count] += size;
            if (by_hits[group.count]) {
                std::uint32_t* count_hits = hits[group.count].data();
                for (std::size_t k = 0; k < size; ++k)
                    ++count_hits[group_ranks[rng.index(size)]];
            } else {
                auto& count_ranks = ranks[group.count];
                for (std::size_t k = 0; k < size; ++k)
                    count_ranks.push_back(group_ranks[rng.index(size)]);
            }
        }
    }
    // Each count's middle sample (or the mean of the two middle ones), as weighted_median
    // gives it for unit weights.
    std::vector<Point> out;
    for (std::size_t c = 0; c < counts; ++c) {
        const std::size_t m = drawn_per_count[c];
        if (m == 0)
            continue;
        const std::span<const double> ranked(ranked_seconds_[c]);
        double lower = 0, upper = 0;
        if (by_hits[c]) {
            std::tie(lower, upper) = values_at(hits[c], ranked, m / 2);
        } else {
            auto& r = ranks[c];
            const auto middle = r.begin() + static_cast<std::ptrdiff_t>(m / 2);
            std::nth_element(r.begin(), middle, r.end());
            upper = ranked[*middle];
            if (m % 2 == 0)
                lower = ranked[*std::max_element(r.begin(), middle)];
        }
        out.push_back({count_values_[c], m % 2 == 1 ? upper : (lower + upper) / 2});
    }
    return out;
}

std::vector<Point> HostRepetitionPool::draw(std::span<const std::size_t> drawn,
                                            Resampler& rng) const {
    if (exact_) {
        // RepetitionPool::draw_into of each drawn host, from the ranks: the same draws, the
        // same values (a sample's seconds are its rank's), in the same order.
        std::size_t size = 0;
        for (const std::size_t host : drawn)
            for (std::size_t g = host_group_begin_[host]; g < host_group_begin_[host + 1]; ++g)
                size += groups_[g].size;
        std::vector<Point> out;
        out.reserve(size);
        for (const std::size_t host : drawn)
            for (std::size_t g = host_group_begin_[host]; g < host_group_begin_[host + 1]; ++g) {
                const RankedGroup& group = groups_[g];
                const std::uint32_t* group_ranks = ranks_.data() + group.begin;
                const std::vector<double>& ranked = ranked_seconds_[group.count];
                for (std::size_t i = 0; i < group.size; ++i)
                    out.push_back({count_values_[group.count],
                                   ranked[group_ranks[rng.index(group.size)]], 1.0});
            }
        return out;
    }
    if (drawn.size() == 1)
        return hosts_[drawn[0]].draw(rng);
    std::size_t size = 0;
    for (const std::size_t host : drawn)
        size += hosts_[host].size();
    std::vector<Point> out;
    out.reserve(size);
    for (const std::size_t host : drawn)
        hosts_[host].draw_into(out, rng);
    return out;
}

std::vector<std::size_t> draw_hosts(std::size_t hosts, Resampler& rng) {
    if (hosts <= 1)
        return {0};
    std::vector<std::size_t> drawn(std::min(hosts, kMaxResampledHosts));
    for (auto& host : drawn)
        host = rng.index(hosts);
    return drawn;
}

std::vector<Point> resample_repetitions(std::span<const Point> points, Resampler& rng) {
    return RepetitionPool(points).draw(rng);
}

ResidualPool::ResidualPool(std::span<const Point> points, const ScalingFit& fit) {
    if (points.size() <= kExactResampleSamples) {
        for (const auto& p : points)
            fitted_.push_back({p.threads_per_node, fit.seconds(p.threads_per_node), p.weight});
        residuals_ = fit.residuals;
    } else {
        for (const auto& c : summarize_counts(points)) {
            const double fitted = fit.seconds(c.threads_per_node);
            fitted_.push_back({c.threads_per_node, fitted, c.weight});
            residuals_.push_back(c.mean_log_seconds - std::log(fitted));
        }
    }
    const std::size_t n = residuals_.size();
    double mean = 0;
    for (double r : residuals_)
        mean += r;
    mean /= static_cast<double>(n);
    const double dof = static_cast<double>(n) - fit.parameters;
    const double inflate = dof > 0 ? std::sqrt(static_cast<double>(n) / dof) : 1.0;
    for (double& r : residuals_)
        r = (r - mean) * inflate;
}

std::vector<Point> ResidualPool::draw(Resampler& rng) const {
    std::vector<Point> out;
    out.reserve(fitted_.size());
    for (const auto& p : fitted_)
        out.push_back({p.threads_per_node,
                       p.seconds * std::exp(residuals_[rng.index(residuals_.size())]), p.weight});
    return out;
}

std::vector<Point> resample_residuals(std::span<const Point> points, const ScalingFit& fit,
                                      Resampler& rng) {
    return ResidualPool(points, fit).draw(rng);
}

namespace {

// The middle value of `values` by `seconds_of` (or the mean of the two middle ones), which it
// reorders: a selection in linear time.
template <typename T, typename Seconds>
double middle_of(std::vector<T>& values, Seconds seconds_of) {
    const auto less = [&](const T& a, const T& b) { return seconds_of(a) < seconds_of(b); };
    const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
    std::nth_element(values.begin(), middle, values.end(), less);
    if (values.size() % 2 == 1)
        return seconds_of(*middle);
    // The half below the middle holds the other middle value: its largest.
    return (seconds_of(*std::max_element(values.begin(), middle, less)) + seconds_of(*middle)) / 2;
}

// A weighted median: the value where the cumulative weight passes half the total, or the mean
// of the two values around it when it falls exactly between them (the even case of equal weights).
//
// When every point weighs 1 (measurements, and every exact resample) the same value comes from a
// selection in linear time instead of a sort (middle_of): a SKU's answer takes the medians of
// thousands of pooled repetitions per count in every resample, where the sort was most of its
// time.
double weighted_median(std::vector<Point> values) {
    const auto by_seconds = [](const Point& a, const Point& b) { return a.seconds < b.seconds; };
    const bool unit_weights =
        std::all_of(values.begin(), values.end(), [](const Point& p) { return p.weight == 1.0; });
    if (unit_weights && !values.empty())
        return middle_of(values, [](const Point& p) { return p.seconds; });
    if (!std::is_sorted(values.begin(), values.end(), by_seconds))  // blocks come sorted
        std::sort(values.begin(), values.end(), by_seconds);
    const double half = weight_of(values) / 2;
    double below = 0;
    for (std::size_t i = 0; i < values.size(); ++i) {
        below += values[i].weight;
        if (below > half)
            return values[i].seconds;
        if (below == half && i + 1 < values.size())
            return (values[i].seconds + values[i + 1].seconds) / 2;
    }
    return values.empty() ? 0 : values.back().seconds;
}

}  // namespace

std::vector<Point> medians_per_count(std::span<const Point> points) {
    std::vector<Point> out;
    // A count that is not a number is never found again; group_by_count keeps each such point.
    const auto plain = [](const Point& p) {
        return p.weight == 1.0 && !std::isnan(p.threads_per_node);
    };
    if (!std::all_of(points.begin(), points.end(), plain)) {
        for (auto& [n, values] : group_by_count(points))
            out.push_back({n, weighted_median(std::move(values))});
        return out;
    }
    // Every point weighs 1 (a sweep, a pooled SKU): each count's seconds alone, a third of its
    // points' bytes, sized first and selected in place. A SKU of 100,000 hosts takes these
    // medians of millions of pooled repetitions several times in an answer, where copying the
    // points into groups was most of their time. The values are weighted_median's.
    std::vector<double> counts;
    std::vector<std::size_t> sizes;
    const auto count_of = [&](double n) {
        return static_cast<std::size_t>(std::find(counts.begin(), counts.end(), n) -
                                        counts.begin());
    };
    for (const Point& p : points) {
        const std::size_t c = count_of(p.threads_per_node);
        if (c == counts.size()) {
            counts.push_back(p.threads_per_node);
            sizes.push_back(0);
        }
        ++sizes[c];
    }
    std::vector<std::vector<double>> seconds(counts.size());
    for (std::size_t c = 0; c < counts.size(); ++c)
        seconds[c].reserve(sizes[c]);
    for (const Point& p : points)
        seconds[count_of(p.threads_per_node)].push_back(p.seconds);
    for (std::size_t c = 0; c < counts.size(); ++c)
        out.push_back({counts[c], middle_of(seconds[c], [](double v) { return v; })});
    std::sort(out.begin(), out.end(), [](const Point& a, const Point& b) {
        return a.threads_per_node < b.threads_per_node;
    });
    return out;
}

}  // namespace hugetune::model
