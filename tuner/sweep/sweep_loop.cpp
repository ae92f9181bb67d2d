#include "tuner/sweep/sweep_loop.hpp"

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <random>
#include <span>
#include <utility>

#include "model/text.hpp"
#include "tuner/sweep/adaptive.hpp"
#include "tuner/sweep/workers.hpp"

namespace hugetune {
namespace {

using Clock = std::chrono::steady_clock;

void stop_if_signalled(const SweepMachine& machine) {
    if (int sig = machine.stop_signal())
        throw SweepInterrupted(sig);
}

// The zero pool is faulted once so that in a VM the host has backed it (docs/kernel-facts.md
// "Virtual machines"), and every phase runs once untimed.
void warm_up(SweepMachine& machine, const SweepPlan& plan, std::vector<std::string>& warnings) {
    const auto& phases = plan.options.phases;
    if (has_phase(phases, Phase::zero)) {
        for (auto& w : machine.grow_zero_pool())
            warnings.push_back(std::move(w));
        stop_if_signalled(machine);
    }
    const int threads_per_node = warm_up_threads_per_node(plan);
    for (Phase phase : {Phase::zero, Phase::alloc, Phase::grow}) {
        if (!has_phase(phases, phase))
            continue;
        machine.run(phase, phase == Phase::grow ? 1 : threads_per_node, false);
        stop_if_signalled(machine);
    }
}

void record_repetition(PointResult& point, const PhaseRepetition& rep) {
    point.samples_seconds.push_back(rep.run.wall_seconds);
    std::vector<double> per_thread;
    for (const auto& t : rep.run.threads)
        per_thread.push_back(t.seconds);
    point.thread_seconds.push_back(std::move(per_thread));
    point.shortfall_pages = std::max(point.shortfall_pages, rep.shortfall_pages);
    point.node_pages = rep.node_pages;
}

SweepProgress progress_after(const PointResult& point, int done, int total, double elapsed_seconds,
                             double timed_seconds) {
    SweepProgress p;
    p.done = done;
    p.total = total;
    p.elapsed_seconds = elapsed_seconds;
    p.remaining_seconds = timed_seconds / done * (total - done);
    p.phase = point.phase;
    p.threads_per_node = point.threads_per_node;
    return p;
}

// Times the points of each round in turn, reporting every repetition to the sink.
class RoundTimer {
  public:
    RoundTimer(SweepMachine& machine, SweepResult& result, ProgressSink* progress,
               Clock::time_point started)
        : machine_(machine), result_(result), progress_(progress), started_(started) {}

    // `order`: the points' indexes in the order to time them; the progress counts them in.
    void time(const std::vector<std::size_t>& order) {
        total_ += static_cast<int>(order.size());
        for (std::size_t index : order) {
            stop_if_signalled(machine_);
            PointResult& point = result_.points[index];
            record_repetition(point,
                              machine_.run(point.phase, point.threads_per_node, point.hvo_flipped));
            ++done_;
            const auto now = Clock::now();
            result_.elapsed_seconds = seconds_between(started_, now);
            if (progress_)
                progress_->on_repetition(
                    progress_after(point, done_, total_, result_.elapsed_seconds,
                                   seconds_between(timed_start_, now)),
                    result_);
        }
    }

  private:
    SweepMachine& machine_;
    SweepResult& result_;
    ProgressSink* progress_;
    Clock::time_point started_;
    Clock::time_point timed_start_ = Clock::now();
    int done_ = 0;
    int total_ = 0;
};

// Fisher-Yates with the raw generator, whose output the standard fixes, where std::shuffle's
// use of the generator is unspecified.
void shuffle_in_place(std::span<std::size_t> items, std::mt19937_64& rng) {
    for (std::size_t i = items.size(); i > 1; --i)
        std::swap(items[i - 1], items[rng() % i]);
}

void append_rounds(std::vector<std::size_t>& order, std::size_t points, int rounds,
                   std::mt19937_64& rng) {
    for (int r = 0; r < rounds; ++r) {
        const std::size_t start = order.size();
        for (std::size_t i = 0; i < points; ++i)
            order.push_back(i);
        shuffle_in_place(std::span(order).subspan(start), rng);
    }
}

// The first rounds time every point; after them the adaptive rule (adaptive.hpp) names the
// points of each further round, shuffled by the generator the first rounds left, until it stops.
void time_repetitions(SweepMachine& machine, SweepResult& result, ProgressSink* progress,
                      Clock::time_point started) {
    const SweepOptions& options = result.plan.options;
    std::mt19937_64 rng(options.seed);
    RoundTimer timer(machine, result, progress, started);
    std::vector<std::size_t> first;
    append_rounds(first, result.points.size(), options.first_rounds(), rng);
    timer.time(first);
    result.rounds = options.first_rounds();
    if (!options.adaptive) {
        result.stopped = StopReason::fixed_count;
        return;
    }
    for (;;) {
        AdaptiveStep step = next_adaptive_round(result.points, options);
        if (step.stopped) {
            result.stopped = step.stopped;
            return;
        }
        shuffle_in_place(step.next, rng);
        timer.time(step.next);
        ++result.rounds;
    }
}

void note_shortfalls(SweepResult& result) {
    for (const auto& p : result.points)
        if (p.shortfall_pages > 0)
            result.warnings.push_back(std::string(p.hvo_flipped ? "HVO pass " : "") +
                                      std::string(phase_name(p.phase)) + " at " +
                                      std::to_string(p.threads_per_node) +
                                      " thread(s) per node: " + std::to_string(p.shortfall_pages) +
                                      " page(s) not obtained on the intended node");
}

}  // namespace

SweepResult start_result(const SweepPlan& plan, model::ProbeRecord probe) {
    SweepResult result;
    result.plan = plan;
    result.probe = std::move(probe);
    result.started_at = utc_now();
    result.warnings = plan.warnings;
    for (const auto& p : plan.points)
        result.points.push_back({p.phase,
                                 p.threads_per_node,
                                 p.total_threads,
                                 p.oversubscribed,
                                 {},
                                 {},
                                 0,
                                 p.hvo_flipped,
                                 {}});
    return result;
}

int warm_up_threads_per_node(const SweepPlan& plan) {
    const int fewest = plan.fewest_hardware_threads();
    int warm = 1;
    for (int n : plan.options.threads_per_node)
        if (n <= fewest)
            warm = std::max(warm, n);
    return warm;
}

// In rounds: each round times every point once, in an order of its own, so sample k of every
// point is from round k and a bootstrap can draw whole rounds (model/recommend/bootstrap.hpp).
std::vector<std::size_t> repetition_order(std::size_t points, int repetitions, std::uint64_t seed) {
    std::vector<std::size_t> order;
    std::mt19937_64 rng(seed);
    append_rounds(order, points, repetitions, rng);
    return order;
}

SweepResult sweep_on(SweepMachine& machine, SweepResult result, ProgressSink* progress) {
    const auto started = Clock::now();
    try {
        warm_up(machine, result.plan, result.warnings);
        time_repetitions(machine, result, progress, started);
        stop_if_signalled(machine);
        RestoreReport report = machine.restore();
        if (!report.problems.empty())
            result.warnings.push_back("restoring the pools: " + report.summary());
        result.elapsed_seconds = seconds_between(started, Clock::now());
    } catch (...) {
        machine.restore_after_error();
        throw;
    }
    // A signal during the restore: the pools are back, the sweep still stops as asked.
    stop_if_signalled(machine);
    note_shortfalls(result);
    result.complete = true;
    return result;
}

}  // namespace hugetune
