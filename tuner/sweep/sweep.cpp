#include "tuner/sweep/sweep.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <map>
#include <random>

#include "model/text.hpp"
#include "tuner/sweep/phases.hpp"
#include "tuner/sweep/signal_guard.hpp"
#include "tuner/sweep/workers.hpp"

namespace hugetune {
namespace {

using Clock = std::chrono::steady_clock;

std::string signal_name(int sig) {
    switch (sig) {
        case SIGINT:
            return "SIGINT";
        case SIGTERM:
            return "SIGTERM";
        case SIGHUP:
            return "SIGHUP";
    }
    return "signal " + std::to_string(sig);
}

// Fisher-Yates with the raw generator so that a seed gives the same order on every standard
// library (std::shuffle's use of the generator is unspecified).
void shuffle_in_place(std::vector<std::size_t>& v, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    for (std::size_t i = v.size(); i > 1; --i)
        std::swap(v[i - 1], v[rng() % i]);
}

}  // namespace

SweepInterrupted::SweepInterrupted(int signal)
    : Error(ExitCode::interrupted,
            "interrupted by " + signal_name(signal) + "; huge page pools restored"),
      signal_number(signal) {}

double median(std::vector<double> values) {
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    std::size_t mid = values.size() / 2;
    return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

double PointResult::median_seconds() const {
    return median(samples_seconds);
}

SweepResult run_sweep(const KernelFs& fs, const Probe& probe, const SweepOptions& options,
                      ProgressSink* progress, const std::filesystem::path& runtime_dir) {
    if (!fs.is_live())
        throw UsageError("a sweep measures the running machine; --root works only with --dry-run");
    if (geteuid() != 0)
        throw NotRootError("a sweep changes huge page pools and needs root; run it with sudo");
    SweepPlan plan = plan_sweep(probe, read_memory_view(fs, probe), options);
    for (const auto& n : plan.nodes)
        if (!fs.exists(node_pool_dir(n.node, plan.page_size_kb) + "/nr_hugepages"))
            throw UnsupportedError("this kernel has no per-node huge page files (" +
                                   node_pool_dir(n.node, plan.page_size_kb) + ")");

    SweepResult result;
    result.plan = plan;
    result.probe = to_json(probe);
    result.started_at = utc_now();
    result.warnings = plan.warnings;
    for (const auto& p : plan.points)
        result.points.push_back(
            {p.phase, p.threads_per_node, p.total_threads, p.oversubscribed, {}, {}, 0});

    // Declared before the lock and the pool guard: destroyed after them, so signals stay
    // blocked until the pools are back.
    SignalGuard signals;
    auto check_signals = [&] {
        if (int sig = signals.received())
            throw SweepInterrupted(sig);
    };
    RunLock lock(runtime_dir);
    if (auto recovered = recover_from_state_file(fs, lock)) {
        if (progress)
            progress->on_note("restored huge page pools left by an interrupted sweep (pid " +
                              std::to_string(recovered->state.pid) +
                              "): " + recovered->report.summary());
        if (recovered->report.writes_failed)
            throw RuntimeError("cannot restore the pools saved in " +
                               state_file_path(runtime_dir).string() + ": " +
                               recovered->report.summary());
    }
    {
        PoolGuard guard(fs, lock, {plan.page_size_kb}, "sweep");
        Binder binder;
        PhaseRunner engine(fs, plan, binder,
                           guard.saved_pool(plan.page_size_kb).nr_overcommit_hugepages);
        auto started = Clock::now();
        auto has = [&](Phase p) {
            return std::find(plan.options.phases.begin(), plan.options.phases.end(), p) !=
                   plan.options.phases.end();
        };

        int warm_n = 1;
        int min_hw = plan.nodes.front().hardware_threads;
        for (const auto& n : plan.nodes)
            min_hw = std::min(min_hw, n.hardware_threads);
        for (int n : options.threads_per_node)
            if (n <= min_hw)
                warm_n = std::max(warm_n, n);
        // Warm-up: the zero pool is faulted once so that in a VM the host has backed it
        // (docs/kernel-facts.md "Virtual machines"), and every phase runs once untimed.
        if (has(Phase::zero)) {
            for (auto& w : engine.grow_zero_pool())
                result.warnings.push_back(w);
            check_signals();
        }
        for (Phase phase : {Phase::zero, Phase::alloc, Phase::grow}) {
            if (!has(phase))
                continue;
            engine.run(phase, phase == Phase::grow ? 1 : warm_n);
            check_signals();
        }

        std::vector<std::size_t> order;
        for (int r = 0; r < options.repetitions; ++r)
            for (std::size_t i = 0; i < result.points.size(); ++i)
                order.push_back(i);
        shuffle_in_place(order, options.seed);

        auto timed_start = Clock::now();
        int done = 0;
        for (std::size_t index : order) {
            check_signals();
            PointResult& point = result.points[index];
            PhaseRepetition rep = engine.run(point.phase, point.threads_per_node);
            point.samples_seconds.push_back(rep.run.wall_seconds);
            std::vector<double> per_thread;
            for (const auto& t : rep.run.threads)
                per_thread.push_back(t.seconds);
            point.thread_seconds.push_back(std::move(per_thread));
            point.shortfall_pages = std::max(point.shortfall_pages, rep.shortfall_pages);
            ++done;
            auto now = Clock::now();
            result.elapsed_seconds = std::chrono::duration<double>(now - started).count();
            if (progress) {
                SweepProgress p;
                p.done = done;
                p.total = static_cast<int>(order.size());
                p.elapsed_seconds = result.elapsed_seconds;
                double timed = std::chrono::duration<double>(now - timed_start).count();
                p.remaining_seconds = timed / done * (p.total - done);
                p.phase = point.phase;
                p.threads_per_node = point.threads_per_node;
                progress->on_repetition(p, result);
            }
        }
        check_signals();
        RestoreReport report = guard.restore();
        if (!report.problems.empty())
            result.warnings.push_back("restoring the pools: " + report.summary());
        if (report.writes_failed)
            throw RuntimeError("could not restore the huge page pools: " + report.summary() +
                               "; the saved values stay in " +
                               state_file_path(runtime_dir).string() + ": run 'hugetune restore'");
        result.elapsed_seconds = std::chrono::duration<double>(Clock::now() - started).count();
    }
    check_signals();
    for (const auto& p : result.points)
        if (p.shortfall_pages > 0)
            result.warnings.push_back(std::string(phase_name(p.phase)) + " at " +
                                      std::to_string(p.threads_per_node) +
                                      " thread(s) per node: " + std::to_string(p.shortfall_pages) +
                                      " page(s) not obtained on the intended node");
    result.complete = true;
    return result;
}

}  // namespace hugetune
