// The sweep loop against a fake machine: the untimed warm-up, the repetitions in the order the
// seed shuffles, progress, and the pools put back on every way out (done, a signal, an error).
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <csignal>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/errors.hpp"
#include "tests/unit/support/fixtures.hpp"
#include "tuner/probe/probe.hpp"
#include "tuner/sweep/adaptive.hpp"
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
    // Where a point (call name) is given here, its k-th call (warm-up included) takes the k-th
    // of these seconds, the last one over again once they run out.
    std::map<std::string, std::vector<double>> point_seconds;

    PhaseRepetition run(Phase phase, int threads_per_node, bool hvo_flipped) override {
        const std::string name = (hvo_flipped ? "~" : "") + call_name(phase, threads_per_node);
        const long before = count(name);
        calls.push_back(name);
        ++runs;
        if (fail_on_run == runs)
            throw RuntimeError("fake: the kernel refused");
        PhaseRepetition rep;
        rep.run.wall_seconds = runs;
        if (auto it = point_seconds.find(name); it != point_seconds.end())
            rep.run.wall_seconds = it->second[std::min<std::size_t>(
                static_cast<std::size_t>(before), it->second.size() - 1)];
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
    o.adaptive = false;
    o.repetitions = 3;
    o.seed = seed;
    o.phases = std::move(phases);
    return plan_sweep(probe, read_memory_view(fs, probe), o);
}

SweepResult sweep(FakeMachine& machine, const SweepPlan& plan, ProgressSink* sink = nullptr) {
    return sweep_on(machine, start_result(plan, {}), sink);
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
    o.adaptive = false;
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

namespace {

// vm_plan()'s seven points measured by the adaptive rule.
SweepPlan adaptive_plan(std::optional<double> budget_seconds = std::nullopt) {
    SweepPlan plan = vm_plan();
    plan.options.adaptive = true;
    plan.options.repetitions = kDefaultRepetitions;  // as options not given leave it
    plan.options.budget_seconds = budget_seconds;
    return plan;
}

// Every point of vm_plan() far from the others: alloc and zero fastest at 2 threads, the others
// more than twice as slow, each within 1% of its own times. The first call of each count is
// the warm-up's, where there is one.
FakeMachine separated_machine() {
    FakeMachine machine;
    for (const char* phase : {"alloc", "zero"}) {
        const std::string p(phase);
        machine.point_seconds[p + "@1"] = {2.00, 2.01, 1.99, 2.02, 2.00, 2.01};
        machine.point_seconds[p + "@2"] = {0.50, 0.50, 0.51, 0.49, 0.50, 0.50};
        machine.point_seconds[p + "@4"] = {1.20, 1.21, 1.19, 1.20, 1.22, 1.20};
    }
    machine.point_seconds["grow@1"] = {0.3};
    return machine;
}

// As separated_machine(), but alloc at 1 and at 2 threads take turns being faster by 10%, and
// so do zero at 2 and 4 (4 oversubscribes the node, so the decision cannot take it): no count of
// samples tells them apart.
FakeMachine overlapping_machine() {
    FakeMachine machine = separated_machine();
    std::vector<double> faster_first, slower_first;
    for (int k = 0; k < 12; ++k) {
        faster_first.push_back(k % 2 == 0 ? 0.50 : 0.55);
        slower_first.push_back(k % 2 == 0 ? 0.55 : 0.50);
    }
    machine.point_seconds["alloc@1"] = slower_first;
    machine.point_seconds["alloc@2"] = faster_first;
    machine.point_seconds["zero@2"] = faster_first;
    machine.point_seconds["zero@4"] = slower_first;
    return machine;
}

std::size_t samples_of(const SweepResult& result, Phase phase, int threads_per_node) {
    for (const auto& p : result.points)
        if (p.phase == phase && p.threads_per_node == threads_per_node && !p.hvo_flipped)
            return p.samples_seconds.size();
    FAIL("no such point");
    return 0;
}

double timed_seconds(const SweepResult& result) {
    double seconds = 0;
    for (const auto& p : result.points)
        for (double x : p.samples_seconds)
            seconds += x;
    return seconds;
}

}  // namespace

// The points of vm_plan() the adaptive rule weighs: alloc and zero at 1 and 2 threads per node
// (4 oversubscribes the node, grow is alone in its phase).
bool candidate(const PointResult& p) {
    return p.phase != Phase::grow && p.threads_per_node <= 2;
}

TEST_CASE("adaptive: samples clearly apart stop once each candidate has two samples, settled") {
    SweepPlan plan = adaptive_plan();
    FakeMachine machine = separated_machine();
    SweepResult result = sweep(machine, plan);
    // The first round times every point once; the second only the candidates, which are then
    // apart from the best of their phase; the others keep their one sample.
    for (const auto& p : result.points) {
        CAPTURE(p.threads_per_node);
        CHECK(p.samples_seconds.size() == (candidate(p) ? 2u : 1u));
    }
    CHECK(result.rounds == 2);
    REQUIRE(result.stopped.has_value());
    CHECK(*result.stopped == StopReason::settled);
    CHECK(result.complete);
    // The first round in the order a fixed count of one round takes, then the four candidates.
    const auto timed = machine.timed_calls(kWarmUpCalls);
    const auto first = calls_in_order(plan, repetition_order(plan.points.size(), 1, 1));
    REQUIRE(timed.size() == first.size() + 4);
    CHECK(std::vector<std::string>(timed.begin(), timed.begin() + first.size()) == first);
    for (std::size_t i = first.size(); i < timed.size(); ++i)
        CHECK((timed[i] == "alloc@1" || timed[i] == "alloc@2" || timed[i] == "zero@1" ||
               timed[i] == "zero@2"));
    // The file says how each point was sampled and why measuring stopped.
    const auto j = to_json(result);
    CHECK(j["sampling"]["rule"] == "adaptive");
    CHECK(j["sampling"]["first_rounds"] == kAdaptiveFirstRounds);
    CHECK(j["sampling"]["rounds"] == 2);
    CHECK(j["sampling"]["stopped"] == "settled");
    CHECK(j["points"][1]["samples_seconds"].size() == 2);
    const auto m = measured_sweep(result);
    REQUIRE(m.sampling.has_value());
    CHECK(m.sampling->stopped == "settled");
}

TEST_CASE("adaptive: the best candidates overlapping are measured to the most, the rest not") {
    SweepPlan plan = adaptive_plan();
    FakeMachine machine = overlapping_machine();
    SweepResult result = sweep(machine, plan);
    CHECK(samples_of(result, Phase::alloc, 1) == kAdaptiveMaxRepetitions);
    CHECK(samples_of(result, Phase::alloc, 2) == kAdaptiveMaxRepetitions);
    CHECK(samples_of(result, Phase::alloc, 4) == 1);
    CHECK(samples_of(result, Phase::zero, 1) == 2);
    CHECK(samples_of(result, Phase::zero, 2) == 2);
    CHECK(samples_of(result, Phase::zero, 4) == 1);
    CHECK(samples_of(result, Phase::grow, 1) == 1);
    REQUIRE(result.stopped.has_value());
    CHECK(*result.stopped == StopReason::maximum);
    CHECK(result.rounds == kAdaptiveMaxRepetitions);
    // After the first round and the candidates' second only the two open points ran.
    const auto timed = machine.timed_calls(kWarmUpCalls);
    const std::size_t first_two = plan.points.size() + 4;
    REQUIRE(timed.size() == first_two + 2 * (kAdaptiveMaxRepetitions - 2));
    for (std::size_t i = first_two; i < timed.size(); ++i)
        CHECK((timed[i] == "alloc@1" || timed[i] == "alloc@2"));
    CHECK(to_json(result)["sampling"]["stopped"] == "maximum");
    // The same samples, the same rounds.
    FakeMachine again = overlapping_machine();
    sweep(again, plan);
    CHECK(again.calls == machine.calls);
}

TEST_CASE("adaptive: the budget stops the further rounds before the timed samples pass it") {
    // The first two rounds (each point's first sample, each candidate's second), then room for
    // one further round of the two open points (about 1.05 s) and not for a second.
    FakeMachine unbounded = overlapping_machine();
    double first_two = 0;
    for (const auto& p : sweep(unbounded, adaptive_plan()).points)
        for (std::size_t k = 0; k < p.samples_seconds.size() && k < 2; ++k)
            first_two += p.samples_seconds[k];
    SweepPlan plan = adaptive_plan(first_two + 1.5);
    FakeMachine machine = overlapping_machine();
    SweepResult result = sweep(machine, plan);
    CHECK(samples_of(result, Phase::alloc, 1) == 3);
    CHECK(samples_of(result, Phase::alloc, 2) == 3);
    CHECK(samples_of(result, Phase::alloc, 4) == 1);
    REQUIRE(result.stopped.has_value());
    CHECK(*result.stopped == StopReason::budget);
    CHECK(timed_seconds(result) <= *plan.options.budget_seconds);
    CHECK(to_json(result)["sampling"]["stopped"] == "budget");
    CHECK(to_json(result)["sampling"]["budget_seconds"] == *plan.options.budget_seconds);
}

TEST_CASE("a fixed count measures every point that many times and says so") {
    FakeMachine machine = overlapping_machine();
    SweepResult result = sweep(machine, vm_plan());
    for (const auto& p : result.points)
        CHECK(p.samples_seconds.size() == 3);
    REQUIRE(result.stopped.has_value());
    CHECK(*result.stopped == StopReason::fixed_count);
    CHECK(to_json(result)["sampling"]["rule"] == "fixed");
    CHECK(to_json(result)["sampling"]["stopped"] == "fixed count");
    CHECK(to_json(result)["parameters"]["repetitions"] == 3);
}

TEST_CASE("open_points: apart, together within the tolerance, or open") {
    auto point = [](int n, std::vector<double> samples) {
        PointResult p;
        p.phase = Phase::alloc;
        p.threads_per_node = n;
        p.samples_seconds = std::move(samples);
        return p;
    };
    // 2 threads the best; 1 slower by far more than 2%: apart.
    std::vector<PointResult> apart = {point(1, {2.0, 2.1, 2.05}), point(2, {1.0, 1.01, 1.02})};
    CHECK(open_points(apart, 0.02).empty());
    // Within 1% of each other every time: together, the decision takes the fewer threads.
    std::vector<PointResult> together = {point(1, {1.000, 1.001, 1.002}),
                                         point(2, {1.004, 1.003, 1.005})};
    CHECK(open_points(together, 0.02).empty());
    // Interleaved by more than the tolerance: both open, whichever the best.
    std::vector<PointResult> mixed = {point(1, {1.0, 1.2, 1.1}), point(2, {1.05, 1.15, 1.0}),
                                      point(4, {3.0, 3.1, 3.2})};
    CHECK(open_points(mixed, 0.02) == std::vector<std::size_t>{0, 1});
    // The other phase is weighed apart: a lone grow point is settled.
    std::vector<PointResult> grow = {point(1, {1.0, 1.2, 1.1})};
    grow[0].phase = Phase::grow;
    CHECK(open_points(grow, 0.02).empty());
    // A count that oversubscribes a node is no candidate: neither weighed nor the best.
    std::vector<PointResult> oversubscribed = {
        point(1, {2.0, 2.1, 2.05}), point(2, {1.0, 1.01, 1.02}), point(4, {1.0, 0.9, 1.1})};
    oversubscribed[2].oversubscribed = true;
    CHECK(open_points(oversubscribed, 0.02).empty());
    oversubscribed[2].oversubscribed = false;
    CHECK(open_points(oversubscribed, 0.02) == std::vector<std::size_t>{1, 2});
    // Two samples a side: apart where the gap is far beyond the noise pooled over the candidates,
    // open where a noisy candidate widens that noise past the gap.
    std::vector<PointResult> two = {point(1, {1.10, 1.11}), point(2, {1.0, 1.01}),
                                    point(4, {3.0, 3.01})};
    CHECK(open_points(two, 0.02).empty());
    two[2].samples_seconds = {3.0, 4.5};
    CHECK(open_points(two, 0.02) == std::vector<std::size_t>{0, 1});
    // Within a tenth of a percent on a quiet machine: together.
    std::vector<PointResult> close = {point(1, {1.000, 1.001}), point(2, {1.001, 1.000}),
                                      point(4, {3.0, 3.001})};
    CHECK(open_points(close, 0.02).empty());
    // One sample has no spread: open while weighed against another, settled alone.
    std::vector<PointResult> once = {point(1, {2.0}), point(2, {1.0, 1.01}), point(4, {3.0, 3.01})};
    CHECK(open_points(once, 0.02) == std::vector<std::size_t>{0, 1});
    std::vector<PointResult> lone = {point(1, {2.0})};
    CHECK(open_points(lone, 0.02).empty());
}
