#include "tuner/sweep/sweep_loop.hpp"

#include <algorithm>
#include <chrono>
#include <random>
#include <utility>

#include "model/text.hpp"
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

void time_repetitions(SweepMachine& machine, SweepResult& result, ProgressSink* progress,
                      Clock::time_point started) {
    const auto order = repetition_order(result.points.size(), result.plan.options.repetitions,
                                        result.plan.options.seed);
    const int total = static_cast<int>(order.size());
    const auto timed_start = Clock::now();
    int done = 0;
    for (std::size_t index : order) {
        stop_if_signalled(machine);
        PointResult& point = result.points[index];
        record_repetition(point,
                          machine.run(point.phase, point.threads_per_node, point.hvo_flipped));
        ++done;
        const auto now = Clock::now();
        result.elapsed_seconds = seconds_between(started, now);
        if (progress)
            progress->on_repetition(progress_after(point, done, total, result.elapsed_seconds,
                                                   seconds_between(timed_start, now)),
                                    result);
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

SweepResult start_result(const SweepPlan& plan, nlohmann::json probe) {
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
// Fisher-Yates with the raw generator, whose output the standard fixes, where std::shuffle's
// use of the generator is unspecified.
std::vector<std::size_t> repetition_order(std::size_t points, int repetitions, std::uint64_t seed) {
    std::vector<std::size_t> order;
    std::mt19937_64 rng(seed);
    for (int r = 0; r < repetitions; ++r) {
        const std::size_t start = order.size();
        for (std::size_t i = 0; i < points; ++i)
            order.push_back(i);
        for (std::size_t i = points; i > 1; --i)
            std::swap(order[start + i - 1], order[start + rng() % i]);
    }
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
