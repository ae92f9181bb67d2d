#include "tuner/sweep/sweep.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "model/statistics.hpp"
#include "tuner/kernel/kernel_files.hpp"
#include "tuner/sweep/phases.hpp"
#include "tuner/sweep/signal_guard.hpp"
#include "tuner/sweep/sweep_loop.hpp"
#include "tuner/sweep/workers.hpp"
#include "tuner/system/privilege.hpp"

namespace hugetune {
namespace {

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

void require_live_machine_as_root(const KernelFs& fs) {
    if (!fs.is_live())
        throw UsageError(
            "a sweep measures the running machine; a gathered tree can only be planned for");
    require_root("a sweep changes huge page pools and needs root; run it with sudo");
}

void require_node_pool_files(const KernelFs& fs, const SweepPlan& plan) {
    for (const auto& n : plan.nodes)
        if (!fs.exists(node_pool_dir(n.node, plan.page_size_kb) + "/nr_hugepages"))
            throw UnsupportedError("this kernel has no per-node huge page files (" +
                                   node_pool_dir(n.node, plan.page_size_kb) + ")");
}

// A sweep killed by SIGKILL or a crash left its saved values: put them back before saving anew.
void restore_leftover_pools(const KernelFs& fs, const RunLock& lock, ProgressSink* progress) {
    auto recovered = recover_from_state_file(fs, lock);
    if (!recovered)
        return;
    if (progress)
        progress->on_note("restored huge page pools left by an interrupted sweep (pid " +
                          std::to_string(recovered->state.pid) +
                          "): " + recovered->report.summary());
    if (recovered->report.writes_failed)
        throw RuntimeError("cannot restore the pools saved in " +
                           state_file_path(lock.dir()).string() + ": " +
                           recovered->report.summary());
}

// The running machine: the pool guard saves every value before the first change and puts it
// back; the phase runner changes the pools and times the pinned threads.
class LiveMachine final : public SweepMachine {
  public:
    LiveMachine(const KernelFs& fs, const RunLock& lock, const SweepPlan& plan,
                const SignalGuard& signals)
        : signals_(signals),
          state_file_(state_file_path(lock.dir())),
          fs_(fs),
          hvo_pass_(plan.hvo_pass),
          guard_(std::in_place, fs, lock, std::vector<std::uint64_t>{plan.page_size_kb}, "sweep",
                 plan.hvo_pass.has_value()),
          phases_(fs, plan, binder_,
                  guard_->saved_pool(plan.page_size_kb).nr_overcommit_hugepages) {}

    std::vector<std::string> grow_zero_pool() override { return phases_.grow_zero_pool(); }
    PhaseRepetition run(Phase phase, int threads_per_node, bool hvo_flipped) override {
        set_hvo(hvo_flipped);
        return phases_.run(phase, threads_per_node);
    }
    int stop_signal() const override { return signals_.received(); }

    RestoreReport restore() override {
        RestoreReport report = guard_->restore();
        if (report.writes_failed)
            throw RuntimeError("could not restore the huge page pools: " + report.summary() +
                               "; the saved values stay in " + state_file_.string() +
                               ": run 'hugetune restore'");
        return report;
    }
    // The guard's destructor restores and reports on stderr what it could not.
    void restore_after_error() noexcept override { guard_.reset(); }

  private:
    // The sysctl applies to pages allocated after the write (docs/kernel-facts.md "Switching HVO
    // for a sweep"), so it is set before each repetition that allocates; the guard saved it.
    void set_hvo(bool flipped) {
        if (!hvo_pass_) {
            if (flipped)
                throw RuntimeError("internal: an HVO pass point without an HVO pass");
            return;
        }
        const bool want = flipped ? hvo_pass_->flipped() : hvo_pass_->as_is;
        if (hvo_now_ == want)
            return;
        try {
            set_hugetlb_optimize_vmemmap(fs_, want);
        } catch (const Error& e) {
            throw RuntimeError("the HVO pass could not switch HVO: " + e.message() +
                               "; run the sweep with " + Flag{"hvo_pass"});
        }
        hvo_now_ = want;
    }

    const SignalGuard& signals_;
    std::filesystem::path state_file_;
    const KernelFs& fs_;
    std::optional<HvoPassPlan> hvo_pass_;
    std::optional<bool> hvo_now_;
    std::optional<PoolGuard> guard_;
    Binder binder_;
    PhaseRunner phases_;
};

}  // namespace

SweepInterrupted::SweepInterrupted(int signal)
    : Error(ExitCode::interrupted,
            "interrupted by " + signal_name(signal) + "; huge page pools restored"),
      signal_number(signal) {}

std::string_view stop_reason_name(StopReason reason) {
    switch (reason) {
        case StopReason::settled:
            return "settled";
        case StopReason::budget:
            return "budget";
        case StopReason::maximum:
            return "maximum";
        case StopReason::fixed_count:
            return "fixed count";
    }
    return "fixed count";
}

double PointResult::median_seconds() const {
    return model::median(samples_seconds);
}

SweepResult run_sweep(const KernelFs& fs, const Probe& probe, const SweepOptions& options,
                      ProgressSink* progress, const std::filesystem::path& runtime_dir) {
    require_live_machine_as_root(fs);
    const SweepPlan plan = plan_sweep(probe, read_memory_view(fs, probe), options);
    require_node_pool_files(fs, plan);
    SweepResult result = start_result(plan, probe_record(probe));
    // Declared before the lock and the machine's pool guard: destroyed after them, so signals
    // stay blocked until the pools are back.
    SignalGuard signals;
    RunLock lock(runtime_dir);
    restore_leftover_pools(fs, lock, progress);
    LiveMachine machine(fs, lock, plan, signals);
    return sweep_on(machine, std::move(result), progress);
}

}  // namespace hugetune
