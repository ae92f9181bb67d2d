// The sweep loop against a fake machine: the untimed warm-up, the repetitions in the order the
// seed shuffles, progress, and the pools put back on every way out (done, a signal, an error).
#include <doctest/doctest.h>

#include <algorithm>
#include <csignal>
#include <optional>
#include <string>
#include <vector>

#include "model/errors.hpp"
#include "tests/unit/support/fixtures.hpp"
#include "tuner/probe/probe.hpp"
#include "tuner/sweep/sweep_loop.hpp"

using namespace hugetune;

namespace {

std::string call_name(Phase phase, int threads_per_node) {
    return std::string(phase_name(phase)) + "@" + std::to_string(threads_per_node);
}

// Records every call. Run k (counting from 1, warm-up included) takes k seconds, so a sample
// tells which call it came from.
class FakeMachine : public SweepMachine {
  public:
    std::vector<std::string> calls;
    int runs = 0;
    std::optional<int> signal_after_runs;  // SIGTERM arrives once this many runs are done
    bool signal_during_restore = false;
    std::optional<int> fail_on_run;
    bool fail_growing = false;
    bool restore_writes_fail = false;
    RestoreReport restore_report;
    std::uint64_t shortfall_pages = 0;

    std::vector<std::string> grow_zero_pool() override {
        calls.push_back("grow_zero_pool");
        if (fail_growing)
            throw RuntimeError("fake: cannot write nr_hugepages");
        return {"node 0: the pool grew by only 1 of 4 pages"};
    }
    PhaseRepetition run(Phase phase, int threads_per_node, bool hvo_flipped) override {
        calls.push_back((hvo_flipped ? "~" : "") + call_name(phase, threads_per_node));
        ++runs;
        if (fail_on_run == runs)
            throw RuntimeError("fake: the kernel refused");
        PhaseRepetition rep;
        rep.run.wall_seconds = runs;
        rep.run.threads.assign(static_cast<std::size_t>(threads_per_node), {0.5, 1});
        rep.shortfall_pages = shortfall_pages;
        return rep;
    }
    int stop_signal() const override {
        bool asked = (signal_after_runs && runs >= *signal_after_runs) ||
                     (signal_during_restore && restored());
        return asked ? SIGTERM : 0;
    }
    RestoreReport restore() override {
        calls.push_back("restore");
        if (restore_writes_fail)
            throw RuntimeError("fake: could not restore");
        return restore_report;
    }
    void restore_after_error() noexcept override { calls.push_back("restore_after_error"); }

    bool restored() const { return count("restore") + count("restore_after_error") > 0; }
    long count(const std::string& call) const {
        return std::count(calls.begin(), calls.end(), call);
    }
    std::vector<std::string> timed_calls(std::size_t warm_up_calls) const {
        std::vector<std::string> out;
        for (std::size_t i = warm_up_calls; i < calls.size(); ++i)
            if (calls[i].find('@') != std::string::npos)
                out.push_back(calls[i]);
        return out;
    }
};

struct RecordingSink : ProgressSink {
    std::vector<SweepProgress> seen;
    std::vector<int> samples_so_far;
    void on_repetition(const SweepProgress& progress, const SweepResult& so_far) override {
        seen.push_back(progress);
        int samples = 0;
        for (const auto& p : so_far.points)
            samples += static_cast<int>(p.samples_seconds.size());
        samples_so_far.push_back(samples);
    }
    void on_note(const std::string&) override {}
};

// vm-1node: one node of 2 hardware threads. Counts 1, 2, 4: seven points (alloc and zero at
// each count, grow at 1), warm-up at 2, the largest count that fits the node.
SweepPlan vm_plan(std::uint64_t seed = 1,
                  std::vector<Phase> phases = {Phase::alloc, Phase::zero, Phase::grow}) {
    KernelFs fs(test::fixture("vm-1node"));
    Probe probe = probe_machine(fs);
    SweepOptions o;
    o.threads_per_node = {1, 2, 4};
    o.repetitions = 3;
    o.seed = seed;
    o.phases = std::move(phases);
    return plan_sweep(probe, read_memory_view(fs, probe), o);
}

SweepResult sweep(FakeMachine& machine, const SweepPlan& plan, ProgressSink* sink = nullptr) {
    return sweep_on(machine, start_result(plan, nlohmann::json::object()), sink);
}

// The timed calls the plan's points make in `order`.
std::vector<std::string> calls_in_order(const SweepPlan& plan,
                                        const std::vector<std::size_t>& order) {
    std::vector<std::string> out;
    for (std::size_t i : order)
        out.push_back(call_name(plan.points[i].phase, plan.points[i].threads_per_node));
    return out;
}

constexpr std::size_t kWarmUpCalls = 4;  // grow_zero_pool, zero, alloc, grow

}  // namespace

TEST_CASE("every phase warms up once, untimed, before the first timed repetition") {
    SweepPlan plan = vm_plan();
    REQUIRE(plan.points.size() == 7);
    CHECK(warm_up_threads_per_node(plan) == 2);
    FakeMachine machine;
    SweepResult result = sweep(machine, plan);
    REQUIRE(machine.calls.size() == kWarmUpCalls + 21 + 1);
    CHECK(std::vector<std::string>(machine.calls.begin(), machine.calls.begin() + kWarmUpCalls) ==
          std::vector<std::string>{"grow_zero_pool", "zero@2", "alloc@2", "grow@1"});
    // Runs 1 to 3 were the warm-up: no sample took their times.
    for (const auto& p : result.points) {
        CHECK(p.samples_seconds.size() == 3);
        for (double s : p.samples_seconds)
            CHECK(s > 3);
    }
    // The plan's notes first, then what the warm-up found.
    REQUIRE(result.warnings.size() > plan.warnings.size());
    CHECK(result.warnings[plan.warnings.size()] == "node 0: the pool grew by only 1 of 4 pages");
}

TEST_CASE("the warm-up runs only the planned phases, at 1 thread when every count oversubscribes") {
    FakeMachine zero_only;
    sweep(zero_only, vm_plan(1, {Phase::zero}));
    CHECK(zero_only.calls[0] == "grow_zero_pool");
    CHECK(zero_only.calls[1] == "zero@2");
    CHECK(zero_only.count("alloc@2") == 0);

    FakeMachine alloc_only;
    sweep(alloc_only, vm_plan(1, {Phase::alloc}));
    CHECK(alloc_only.calls[0] == "alloc@2");
    CHECK(alloc_only.count("grow_zero_pool") == 0);

    SweepPlan plan = vm_plan();
    plan.options.threads_per_node = {4};
    CHECK(warm_up_threads_per_node(plan) == 1);
}

TEST_CASE("the timed repetitions follow the order the seed shuffles") {
    SweepPlan plan = vm_plan(1);
    FakeMachine machine;
    sweep(machine, plan);
    auto order = repetition_order(plan.points.size(), 3, 1);
    CHECK(machine.timed_calls(kWarmUpCalls) == calls_in_order(plan, order));

    // Not the plan's order, and another seed gives another order; the same seed the same one.
    std::vector<std::size_t> unshuffled;
    for (int r = 0; r < 3; ++r)
        for (std::size_t i = 0; i < plan.points.size(); ++i)
            unshuffled.push_back(i);
    CHECK(order != unshuffled);
    FakeMachine other;
    sweep(other, vm_plan(2));
    CHECK(other.timed_calls(kWarmUpCalls) != machine.timed_calls(kWarmUpCalls));
    CHECK(other.timed_calls(kWarmUpCalls) ==
          calls_in_order(plan, repetition_order(plan.points.size(), 3, 2)));
    FakeMachine again;
    sweep(again, vm_plan(1));
    CHECK(again.timed_calls(kWarmUpCalls) == machine.timed_calls(kWarmUpCalls));
}

TEST_CASE("repetition_order: every point once a round, the same on every library") {
    auto order = repetition_order(4, 3, 7);
    REQUIRE(order.size() == 12);
    for (std::size_t round = 0; round < 3; ++round)
        for (std::size_t i = 0; i < 4; ++i)
            CHECK(std::count(order.begin() + round * 4, order.begin() + round * 4 + 4, i) == 1);
    // std::mt19937_64's output is fixed by the standard, so a seed names one order everywhere
    // and a sweep can be repeated exactly.
    CHECK(repetition_order(3, 2, 1) == std::vector<std::size_t>{1, 0, 2, 1, 2, 0});
    CHECK(repetition_order(0, 5, 1).empty());
}

TEST_CASE("each sample lands in its point, with its threads and the worst shortfall") {
    SweepPlan plan = vm_plan();
    FakeMachine machine;
    machine.shortfall_pages = 2;
    SweepResult result = sweep(machine, plan);
    auto order = repetition_order(plan.points.size(), 3, 1);
    // Timed run k (after the three warm-up runs) took 4 + k seconds and belongs to order[k].
    for (std::size_t k = 0; k < order.size(); ++k) {
        const auto& samples = result.points[order[k]].samples_seconds;
        CHECK(std::count(samples.begin(), samples.end(), static_cast<double>(4 + k)) == 1);
    }
    for (const auto& p : result.points) {
        REQUIRE(p.thread_seconds.size() == 3);
        CHECK(p.thread_seconds[0].size() == static_cast<std::size_t>(p.threads_per_node));
        CHECK(p.shortfall_pages == 2);
    }
    CHECK(result.warnings.back() ==
          "grow at 1 thread(s) per node: 2 page(s) not obtained on "
          "the intended node");
}

TEST_CASE("progress after every timed repetition, with the samples so far") {
    SweepPlan plan = vm_plan();
    FakeMachine machine;
    RecordingSink sink;
    sweep(machine, plan, &sink);
    REQUIRE(sink.seen.size() == 21);
    auto timed = machine.timed_calls(kWarmUpCalls);
    for (std::size_t i = 0; i < sink.seen.size(); ++i) {
        const SweepProgress& p = sink.seen[i];
        CHECK(p.done == static_cast<int>(i) + 1);
        CHECK(p.total == 21);
        CHECK(call_name(p.phase, p.threads_per_node) == timed[i]);
        CHECK(p.remaining_seconds >= 0);
        CHECK(sink.samples_so_far[i] == p.done);
    }
    CHECK(sink.seen.back().remaining_seconds == 0);
}

TEST_CASE("a finished sweep restores once and is complete") {
    FakeMachine machine;
    machine.restore_report.problems = {"2048kB nr_hugepages is 6, was 0"};
    SweepResult result = sweep(machine, vm_plan());
    CHECK(machine.calls.back() == "restore");
    CHECK(machine.count("restore") == 1);
    CHECK(machine.count("restore_after_error") == 0);
    CHECK(result.complete);
    CHECK(result.elapsed_seconds > 0);
    bool noted = false;
    for (const auto& w : result.warnings)
        noted = noted || w.find(
                             "restoring the pools: nothing needed changing; 2048kB "
                             "nr_hugepages is 6, was 0") == 0;
    CHECK(noted);
}

TEST_CASE("a signal stops the sweep at the next repetition and restores first") {
    FakeMachine machine;
    machine.signal_after_runs = 3 + 5;  // the warm-up and five timed repetitions
    RecordingSink sink;
    int signal = 0;
    try {
        sweep(machine, vm_plan(), &sink);
    } catch (const SweepInterrupted& e) {
        signal = e.signal_number;
        CHECK(e.code() == ExitCode::interrupted);
    }
    CHECK(signal == SIGTERM);
    CHECK(machine.runs == 8);
    CHECK(machine.calls.back() == "restore_after_error");
    CHECK(machine.count("restore_after_error") == 1);
    CHECK(machine.count("restore") == 0);
    CHECK(sink.seen.size() == 5);  // what was measured reached the progress sink
}

TEST_CASE("a signal during the warm-up stops before any timed repetition") {
    FakeMachine machine;
    machine.signal_after_runs = 1;
    RecordingSink sink;
    CHECK_THROWS_AS(sweep(machine, vm_plan(), &sink), SweepInterrupted);
    CHECK(machine.calls ==
          std::vector<std::string>{"grow_zero_pool", "zero@2", "restore_after_error"});
    CHECK(sink.seen.empty());
}

TEST_CASE("a signal during the final restore still stops the sweep, once restored") {
    FakeMachine machine;
    machine.signal_during_restore = true;
    CHECK_THROWS_AS(sweep(machine, vm_plan()), SweepInterrupted);
    CHECK(machine.count("restore") == 1);
    CHECK(machine.count("restore_after_error") == 0);
}

TEST_CASE("an error in a phase, the warm-up or the restore propagates after a restore") {
    FakeMachine timed;
    timed.fail_on_run = 3 + 6;
    CHECK_THROWS_WITH_AS(sweep(timed, vm_plan()), "fake: the kernel refused", RuntimeError);
    CHECK(timed.calls.back() == "restore_after_error");
    CHECK(timed.count("restore") == 0);

    FakeMachine growing;
    growing.fail_growing = true;
    CHECK_THROWS_AS(sweep(growing, vm_plan()), RuntimeError);
    CHECK(growing.calls == std::vector<std::string>{"grow_zero_pool", "restore_after_error"});

    FakeMachine restoring;
    restoring.restore_writes_fail = true;
    CHECK_THROWS_WITH_AS(sweep(restoring, vm_plan()), "fake: could not restore", RuntimeError);
    CHECK(restoring.calls.back() == "restore_after_error");
}

TEST_CASE("the HVO pass's points run flipped, shuffled among the others, and file apart") {
    KernelFs fs(test::fixture("skylake-4node"));  // has hugetlb_optimize_vmemmap
    Probe probe = probe_machine(fs);
    SweepOptions o;
    o.threads_per_node = {1, 2, 4};
    o.repetitions = 2;
    SweepPlan plan = plan_sweep(probe, read_memory_view(fs, probe), o);
    REQUIRE(plan.hvo_pass.has_value());
    FakeMachine machine;
    SweepResult result = sweep(machine, plan);
    CHECK(machine.count("~alloc@1") == 0);
    CHECK(machine.count("~alloc@4") == 0);
    CHECK(machine.count("~grow@1") == 2);
    CHECK(machine.count("~zero@1") == 0);
    const auto m = measured_sweep(result);
    REQUIRE(m.hvo_pass.has_value());
    CHECK(m.hvo_pass->points.size() == 1);
    CHECK(m.points.size() == 7);
    const auto j = to_json(result);
    CHECK(j["hvo_pass"]["points"].size() == 1);
    CHECK(j["hvo_pass"]["hugetlb_optimize_vmemmap"] == 0);
    CHECK(j["points"].size() == 7);
}
