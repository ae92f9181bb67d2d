// The sweep: for each thread count N and phase, N pinned threads per node fault a fixed sample
// of huge pages (or grow the pool), repeated in a shuffled order, every sample kept. Changes the
// machine's huge page pools and always puts them back (pool_state.hpp).
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/documents/probe_record.hpp"
#include "model/documents/sweep.hpp"
#include "model/errors.hpp"
#include "tuner/kernel/kernel_fs.hpp"
#include "tuner/probe/probe.hpp"
#include "tuner/sweep/plan.hpp"
#include "tuner/sweep/pool_state.hpp"

namespace hugetune {

struct PointResult {
    Phase phase = Phase::zero;
    int threads_per_node = 1;
    int total_threads = 1;
    bool oversubscribed = false;
    std::vector<double> samples_seconds;              // wall time per repetition
    std::vector<std::vector<double>> thread_seconds;  // per repetition, per thread
    std::uint64_t shortfall_pages = 0;                // worst repetition
    bool hvo_flipped = false;                         // the plan's HVO pass
    // Boot placement: the pages each memory node gave in the last repetition.
    std::vector<std::uint64_t> node_pages;

    double median_seconds() const;
};

// Why a sweep stopped measuring: the adaptive rule found nothing open, spent its budget or gave
// every open point its most samples; or every point had the fixed count.
enum class StopReason { settled, budget, maximum, fixed_count };
// "settled", "budget", "maximum", "fixed count" (the sweep file's sampling.stopped)
std::string_view stop_reason_name(StopReason reason);

struct SweepResult {
    SweepPlan plan;
    model::ProbeRecord probe;
    std::vector<PointResult> points;  // the plan's points, same order
    bool complete = false;
    int rounds = 0;                     // rounds measured, a first round counting one
    std::optional<StopReason> stopped;  // absent until the last round is done
    std::string started_at;
    double elapsed_seconds = 0;
    std::vector<std::string> warnings;
};

struct SweepProgress {
    int done = 0;  // timed repetitions finished
    int total = 0;
    double elapsed_seconds = 0;
    double remaining_seconds = 0;  // estimate from the rate so far
    Phase phase = Phase::zero;
    int threads_per_node = 1;
};

// Called on the sweep's thread; the CLI rewrites --out and the progress line from here.
class ProgressSink {
  public:
    virtual ~ProgressSink() = default;
    virtual void on_repetition(const SweepProgress& progress, const SweepResult& so_far) = 0;
    // A line for the user (e.g. pools restored from an earlier interrupted sweep).
    virtual void on_note(const std::string& note) = 0;
};

// Thrown after the pools have been restored when SIGINT, SIGTERM or SIGHUP stopped the sweep.
struct SweepInterrupted : Error {
    explicit SweepInterrupted(int signal);
    int signal_number;
};

// Measures the running machine. Needs root (NotRootError), hugetlb (UnsupportedError), the run
// lock (BusyError); usage errors from plan_sweep(). Restores every pool value it changed on
// every exit path; SIGINT/SIGTERM/SIGHUP end it with SweepInterrupted after restoring.
SweepResult run_sweep(const KernelFs& fs, const Probe& probe, const SweepOptions& options,
                      ProgressSink* progress,
                      const std::filesystem::path& runtime_dir = kDefaultRuntimeDir);

// What the sweep measured, as the fit and the console tables take it: the points reached
// (an interrupted sweep's later points have no samples and are left out).
model::MeasuredSweep measured_sweep(const SweepResult& result);

// The sweep file (model/documents/sweep.hpp; docs/sweep-format.md): the measured block of
// measured_sweep() with the run's tool, times, probe and warnings around it.
nlohmann::json to_json(const SweepResult& result);

}  // namespace hugetune
