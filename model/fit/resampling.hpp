// Seeded bootstrap resampling of measured series. The generator is std::mt19937_64's sequence
// (model/fit/random_engine.hpp), which the C++ standard fixes, and indexes are drawn without
// distribution objects (whose algorithms are left to each library), so a seed gives the same
// resamples everywhere.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "model/fit/random_engine.hpp"
#include "model/fit/scaling_fit.hpp"
#include "model/statistics.hpp"

namespace hugetune::model {

class Resampler {
  public:
    explicit Resampler(std::uint64_t seed) : rng_(seed) {}
    // Uniform in [0, n): the high half of 32 random bits times n (Lemire, "Fast random integer
    // generation in an interval", 2019), each generator output giving two such draws. Its bias,
    // below n / 2^32, is under 1e-6 for a count's repetitions (at most kExactResampleSamples
    // drawn one by one) and under 1e-4 for a fleet's hosts: far below a bootstrap's own error,
    // and a resample draws millions of indexes, which one output and a division each made most
    // of its cost.
    std::size_t index(std::size_t n) {
        if (n > 0xFFFFFFFFu)
            return static_cast<std::size_t>(rng_() % n);
        std::uint64_t bits;
        if (spare_bits_) {
            bits = spare_half_;
            spare_bits_ = false;
        } else {
            const std::uint64_t x = rng_();
            bits = x & 0xFFFFFFFFu;
            spare_half_ = x >> 32;
            spare_bits_ = true;
        }
        return static_cast<std::size_t>((bits * n) >> 32);
    }
    // Uniform in (0, 1], from the top 53 bits of one output.
    double unit() { return (static_cast<double>(rng_() >> 11) + 1) * 0x1.0p-53; }
    // Standard normal by Box-Muller, which yields two per pair of uniforms; the second is kept
    // for the next call.
    double normal();

  private:
    Mt19937_64 rng_;
    std::optional<double> spare_normal_;
    std::uint64_t spare_half_ = 0;  // the unused 32 bits of index()'s last output
    bool spare_bits_ = false;
};

// True when every thread count has at least two samples: then resampling repetitions within
// each count captures the noise; otherwise residuals have to stand in for it.
bool has_repetitions(std::span<const Point> points);

// Up to this many samples in a series, a resample draws every repetition in turn.
inline constexpr std::size_t kExactResampleSamples = 4096;
// Past it, a count of more samples than this is held as this many blocks of its sorted values.
inline constexpr std::size_t kResampleBlocksPerCount = 256;

// The repetitions of one series, arranged once so that each bootstrap resample costs what this
// holds, not what the input had.
//
// A series of at most kExactResampleSamples samples is kept as measured, and a resample is the
// classic bootstrap: each thread count keeps its number of samples, drawn with replacement from
// its own samples. A longer series keeps counts of at most kResampleBlocksPerCount samples the
// same way; a count with more is sorted and cut into that many blocks of consecutive values,
// each held as its geometric mean (the fit works on log seconds) and its size. A resample then
// gives each block a Poisson(size) weight: the Poisson bootstrap, in which every repetition
// appears Poisson(1) times; it matches the classic bootstrap to order 1 / repetitions. A
// resample's median moves in steps of a block (a 1/256 quantile range): finer than its own
// spread up to about 16,000 repetitions per count; past that the steps overstate the spread a
// little, at a level far below one repetition's noise.
class RepetitionPool {
  public:
    explicit RepetitionPool(std::span<const Point> points);

    // One resample, grouped by thread count, ascending; block points carry their weight.
    std::vector<Point> draw(Resampler& rng) const;
    // The same resample appended to `out`.
    void draw_into(std::vector<Point>& out, Resampler& rng) const;
    // Points in a resample of the exact samples (blocks vary about it).
    std::size_t size() const { return size_; }
    // True when no count is held as blocks: every sample is kept as measured.
    bool exact() const;
    // Per thread count, ascending: its samples (or blocks) in the order draw() takes them.
    std::vector<std::pair<double, std::span<const Point>>> groups() const;

  private:
    struct Count {
        double threads_per_node = 0;
        std::vector<Point> values;  // samples in input order, or blocks in ascending order
        bool blocks = false;
    };
    std::vector<Count> counts_;
    std::size_t size_ = 0;
};

// The repetitions of a series pooled from several hosts of one SKU (docs/fleet.md "How a SKU's
// answer is made"), for a two-level bootstrap: a resample draws hosts with replacement, then
// within each drawn host its repetitions as RepetitionPool does. Hosts differ by more than
// their repetitions do, and a bootstrap of the pooled repetitions alone would hide that. With
// one host it is RepetitionPool, draw for draw.
class HostRepetitionPool {
  public:
    // `host_ends`: where each host's points end in `points` (a host's points lie together);
    // empty: one host. `threads`: the most that rank the samples (0: the machine's).
    HostRepetitionPool(std::span<const Point> points, std::span<const std::size_t> host_ends,
                       std::size_t threads = 0);
    // Below this many samples per thread, ranking them on more threads costs more than it saves.
    static constexpr std::size_t kSamplesPerThread = 1 << 16;

    std::size_t hosts() const { return hosts_count_; }
    // One resample from the hosts `drawn` (indexes, repeats allowed), in that order.
    std::vector<Point> draw(std::span<const std::size_t> drawn, Resampler& rng) const;

    // True when every host keeps its samples as measured (no blocks) and each weighs 1:
    // draw_medians applies.
    bool exact() const { return exact_; }
    // medians_per_count(draw(drawn, rng)), value for value and with the same draws from rng,
    // without the resample: each count's samples over all hosts are ranked once, and a
    // resample only counts how often it drew each rank. Only when exact().
    std::vector<Point> draw_medians(std::span<const std::size_t> drawn, Resampler& rng) const;

  private:
    void rank_samples(std::span<const std::span<const Point>> spans, std::size_t threads);

    std::size_t hosts_count_ = 0;
    std::vector<RepetitionPool> hosts_;  // each host's, when the pool is not exact
    bool exact_ = true;
    // Per distinct thread count (ascending): every host's samples of it, sorted by seconds.
    std::vector<double> count_values_;  // the counts
    std::vector<std::vector<double>> ranked_seconds_;
    // Per host, per group of its RepetitionPool (ascending count): the group's count (an index
    // into count_values_) and where its samples' ranks in ranked_seconds_ lie in ranks_, in the
    // pool's order. Host h's groups are groups_[host_group_begin_[h] .. host_group_begin_[h+1]).
    struct RankedGroup {
        std::uint32_t count = 0, begin = 0, size = 0;
    };
    std::vector<RankedGroup> groups_;
    std::vector<std::size_t> host_group_begin_;
    std::vector<std::uint32_t> ranks_;
};

// The most hosts one resample draws. A SKU of more hosts is resampled m out of n: each resample
// draws this many of its hosts (with replacement), so its cost stops growing with the fleet and
// its confidence and intervals are those of a SKU of this many such hosts, wider than its own
// (docs/fleet.md "How a SKU's answer is made").
inline constexpr std::size_t kMaxResampledHosts = 1000;

// min(`hosts`, kMaxResampledHosts) host indexes in [0, hosts) drawn with replacement; {0}
// without drawing when there is one host, so a one-host bootstrap draws exactly what it drew
// before hosts were pooled.
std::vector<std::size_t> draw_hosts(std::size_t hosts, Resampler& rng);

// One resample of `points` (RepetitionPool(points).draw(rng)).
std::vector<Point> resample_repetitions(std::span<const Point> points, Resampler& rng);

// Residual bootstrap for one sample per thread count: fitted value times exp(a residual drawn
// with replacement). Log residuals are centred and inflated by sqrt(n / (n - p)) because a
// least-squares fit with p parameters leaves residuals smaller than the noise.
//
// Arranged once from the points `fit` was made on. Up to kExactResampleSamples points every
// point is redrawn with a residual of any point; past that each thread count is one point
// standing for its repetitions (their geometric mean, weighted by their number) and the
// residuals are the counts' own, so a resample costs the thread counts, not the rows.
class ResidualPool {
  public:
    ResidualPool(std::span<const Point> points, const ScalingFit& fit);

    std::vector<Point> draw(Resampler& rng) const;

  private:
    std::vector<Point> fitted_;      // the fitted seconds at each point, with its weight
    std::vector<double> residuals_;  // centred and inflated
};

// One resample (ResidualPool(points, fit).draw(rng)).
std::vector<Point> resample_residuals(std::span<const Point> points, const ScalingFit& fit,
                                      Resampler& rng);

// Median seconds per thread count, ascending by count; a weighted point counts weight times.
std::vector<Point> medians_per_count(std::span<const Point> points);

}  // namespace hugetune::model
