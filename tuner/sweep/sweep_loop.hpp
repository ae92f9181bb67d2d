// The sweep loop, apart from the machine it measures. What touches the machine (pool changes,
// timing a phase on pinned threads, putting the pools back, noticing a stop signal) sits behind
// SweepMachine, so the loop itself (the untimed warm-up, the repetitions in an order shuffled by
// the seed, the adaptive rule's rounds, progress, a restore on every exit path) runs against a
// fake in the unit tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "model/documents/probe_record.hpp"
#include "tuner/sweep/phases.hpp"
#include "tuner/sweep/plan.hpp"
#include "tuner/sweep/pool_state.hpp"
#include "tuner/sweep/sweep.hpp"

namespace hugetune {

class SweepMachine {
  public:
    virtual ~SweepMachine() = default;

    // Grows every node's persistent pool by the sample for the zero phase; returns warnings for
    // nodes that could not grow fully (their zero points then show the shortfall).
    virtual std::vector<std::string> grow_zero_pool() = 0;
    // One repetition of `phase` with `threads_per_node` pinned threads on every measured node;
    // `hvo_flipped`: with the HVO sysctl the other way (the plan's HVO pass), else as it was.
    virtual PhaseRepetition run(Phase phase, int threads_per_node, bool hvo_flipped) = 0;
    // The signal that asked the sweep to stop (SIGINT, SIGTERM or SIGHUP), or 0.
    virtual int stop_signal() const = 0;
    // The sweep is done: puts every saved pool value back and says what changed and what
    // others still hold. Throws RuntimeError when the kernel refused a write (the saved values
    // then stay for `hugetune restore`).
    virtual RestoreReport restore() = 0;
    // The sweep ends by an error or a signal: puts the pools back while that error propagates,
    // so it must not throw; it tells the user itself about anything it could not put back.
    virtual void restore_after_error() noexcept = 0;
};

// The result before the first repetition: the plan's points without samples, the start time.
SweepResult start_result(const SweepPlan& plan, model::ProbeRecord probe);

// The count the alloc and zero phases warm up at: the largest planned count that oversubscribes
// no node, or 1.
int warm_up_threads_per_node(const SweepPlan& plan);

// Indexes of `points` points, in `repetitions` rounds that each hold every point once, each round
// shuffled by `seed`: the same seed gives the same order on every standard library.
std::vector<std::size_t> repetition_order(std::size_t points, int repetitions, std::uint64_t seed);

// Measures `result.plan` on `machine`: an untimed warm-up, then the first rounds in the order of
// repetition_order() (all of them for a fixed count), then, for the adaptive rule, further rounds
// of the points it names (adaptive.hpp), each shuffled by the generator the rounds before left;
// each repetition is reported to `progress` (may be null) with the samples so far. The result
// says how many rounds ran and why they stopped. Calls restore() once when every repetition is
// done, or restore_after_error() on any other way out: a stop signal (then SweepInterrupted) or an
// error, which propagates.
SweepResult sweep_on(SweepMachine& machine, SweepResult result, ProgressSink* progress);

}  // namespace hugetune
