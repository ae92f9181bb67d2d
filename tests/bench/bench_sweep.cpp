// Sweep benchmarks (`make bench`, as root on a kernel with hugetlb):
//  1. the default sweep's wall time (target: under 60 s on the project's 2-CPU VM);
//  2. harness overhead: the zero phase at its best N against the simplest fault-in loop (mmap
//     MAP_HUGETLB, touch one byte per page, munmap) over the same pool pages, interleaved and
//     repeated in one run; the ratio of bandwidths must be within 5%;
//  3. the sample does not grow with the machine's memory (plans of gathered trees);
//  4. the two placements side by side: the alloc phase with boot placement against node-local at
//     each count up to the hardware threads, interleaved in one run. On one node both take every
//     page from that node, so the ratio should be about 1.00: boot placement costs nothing there.
//     Printed, not judged (docs/kernel-facts.md "The sweep against the boot").
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "model/errors.hpp"
#include "model/statistics.hpp"
#include "tuner/probe/probe.hpp"
#include "tuner/sweep/phases.hpp"
#include "tuner/sweep/pool_state.hpp"
#include "tuner/sweep/signal_guard.hpp"
#include "tuner/sweep/sweep.hpp"

using namespace hugetune;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kRounds = 21;

// The simplest loop: N plain threads each map their share of pool pages, store one byte per
// page, and unmap after the clock stops (nothing pinned, no barrier, no counters).
double simple_loop_seconds(int threads, std::uint64_t pages, std::uint64_t page_bytes) {
    std::vector<std::thread> ts;
    std::vector<char*> maps(static_cast<std::size_t>(threads), nullptr);
    std::vector<std::size_t> lens(static_cast<std::size_t>(threads), 0);
    auto t0 = Clock::now();
    for (int t = 0; t < threads; ++t) {
        ts.emplace_back([&, t] {
            std::size_t len = pages_for_thread(pages, threads, t) * page_bytes;
            if (len == 0)
                return;
            void* p = mmap(nullptr, len, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
            if (p == MAP_FAILED)
                return;
            char* c = static_cast<char*>(p);
            for (std::size_t off = 0; off < len; off += page_bytes)
                *static_cast<volatile char*>(c + off) = 1;
            maps[static_cast<std::size_t>(t)] = c;
            lens[static_cast<std::size_t>(t)] = len;
        });
    }
    for (auto& t : ts)
        t.join();
    double s = std::chrono::duration<double>(Clock::now() - t0).count();
    for (std::size_t t = 0; t < maps.size(); ++t)
        if (maps[t])
            munmap(maps[t], lens[t]);
    return s;
}

bool sample_is_flat() {
    std::printf("== 3. sample per node against machine size (plans, nothing measured)\n");
    std::uint64_t first = 0;
    bool same = true;
    for (const char* name : {"vm-1node", "zen4-2node", "skylake-4node"}) {
        KernelFs fs(std::string(HUGETUNE_SOURCE_DIR) + "/tests/fixtures/" + name);
        Probe probe = probe_machine(fs);
        MemoryView mem = read_memory_view(fs, probe);
        SweepPlan plan = plan_sweep(probe, mem, {});
        std::uint64_t total_mem = 0;
        for (const auto& n : probe.topology.nodes)
            total_mem += n.memory_bytes;
        std::printf("  %-14s %6.0f GiB RAM: %llu pages/node, %d timed reps, est %.0f s\n", name,
                    static_cast<double>(total_mem) / (1 << 30),
                    static_cast<unsigned long long>(plan.pages_per_node), plan.timed_repetitions,
                    plan.estimated_seconds);
        if (!first)
            first = plan.pages_per_node;
        same = same && plan.pages_per_node == first;
        if (std::string(name) == "skylake-4node") {
            MemoryView huge;  // the same host with 12 TiB, 3 TiB free per node
            for (int n = 0; n < 4; ++n)
                huge.node_free_bytes[n] = 3ull << 40;
            huge.mem_available_bytes = 12ull << 40;
            SweepPlan big = plan_sweep(probe, huge, {});
            std::printf("  %-14s  12288 GiB RAM: %llu pages/node, %d timed reps, est %.0f s\n",
                        "skylake x 12T", static_cast<unsigned long long>(big.pages_per_node),
                        big.timed_repetitions, big.estimated_seconds);
            same = same && big.pages_per_node == first;
        }
    }
    std::printf("  sample independent of memory size: %s\n", same ? "yes" : "NO");
    return same;
}

// 2. The zero phase at N against the simplest fault-in loop over the same pool pages; true when
// within the target or skipped.
bool harness_against_simple(const KernelFs& fs, const Probe& probe, int best_n, double sample_gib,
                            const SignalGuard& signals) {
    std::printf("== 2. harness vs simplest fault-in loop, zero phase at N = %d, %d rounds\n",
                best_n, kRounds);
    SweepOptions zero_only;
    zero_only.phases = {Phase::zero};
    zero_only.threads_per_node = {best_n};
    zero_only.placement = Placement::node_local;  // the simple loop binds nothing either
    SweepPlan plan = plan_sweep(probe, read_memory_view(fs, probe), zero_only);
    if (plan.nodes.size() != 1) {
        std::printf(
            "  skipped: the simple loop does not bind memory, so only a one-node "
            "machine compares like for like\n");
        return true;
    }
    RunLock lock;
    PoolGuard guard(fs, lock, {plan.page_size_kb}, "bench");
    Binder binder;
    PhaseRunner runner(fs, plan, binder,
                       guard.saved_pool(plan.page_size_kb).nr_overcommit_hugepages);
    runner.grow_zero_pool();
    runner.run(Phase::zero, best_n);  // warm-up, both methods use these pool pages
    simple_loop_seconds(best_n, plan.pages_per_node, plan.page_bytes);
    std::vector<double> harness, simple;
    for (int r = 0; r < kRounds && !signals.received(); ++r) {
        // Alternate which goes first so drift in the machine hits both alike.
        if (r % 2)
            simple.push_back(simple_loop_seconds(best_n, plan.pages_per_node, plan.page_bytes));
        auto rep = runner.run(Phase::zero, best_n);
        if (rep.shortfall_pages)
            throw RuntimeError("shortfall during the benchmark");
        harness.push_back(rep.run.wall_seconds);
        if (!(r % 2))
            simple.push_back(simple_loop_seconds(best_n, plan.pages_per_node, plan.page_bytes));
    }
    RestoreReport report = guard.restore();
    if (report.writes_failed)
        throw RuntimeError("restore failed: " + report.summary());
    double mh = model::median(harness), ms = model::median(simple);
    double gib = sample_gib;
    double ratio = (gib / mh) / (gib / ms);
    std::printf(
        "  harness median %.3f ms (%.2f GiB/s), simple loop median %.3f ms (%.2f "
        "GiB/s)\n",
        mh * 1e3, gib / mh, ms * 1e3, gib / ms);
    bool within = ratio >= 0.95;
    std::printf("  bandwidth ratio harness/simple = %.3f (target >= 0.95): %s\n", ratio,
                within ? "ok" : "MISSED");
    return within;
}

// Alloc repetitions of both placements in turn, the first of each pair alternating, so drift in
// the machine hits both alike.
void placements_side_by_side(const KernelFs& fs, const Probe& probe, const SignalGuard& signals) {
    SweepOptions boot;
    boot.phases = {Phase::alloc};
    boot.sample_mib_per_node = 256;
    SweepOptions local = boot;
    local.placement = Placement::node_local;
    const MemoryView memory = read_memory_view(fs, probe);
    const SweepPlan boot_plan = plan_sweep(probe, memory, boot);
    const SweepPlan local_plan = plan_sweep(probe, memory, local);
    std::printf(
        "== 4. boot placement against node-local, alloc phase, %llu MiB per node, %zu "
        "node(s), %d rounds\n",
        static_cast<unsigned long long>(boot_plan.sample_mib_per_node), boot_plan.nodes.size(),
        kRounds);
    RunLock lock;
    PoolGuard guard(fs, lock, {boot_plan.page_size_kb}, "bench");
    Binder binder;
    const auto overcommit = guard.saved_pool(boot_plan.page_size_kb).nr_overcommit_hugepages;
    PhaseRunner boot_runner(fs, boot_plan, binder, overcommit);
    PhaseRunner local_runner(fs, local_plan, binder, overcommit);
    for (int n = 1; n <= boot_plan.fewest_hardware_threads(); n *= 2) {
        boot_runner.run(Phase::alloc, n);  // warm-up of both
        local_runner.run(Phase::alloc, n);
        std::vector<double> boot_s, local_s, ratios;
        for (int r = 0; r < kRounds && !signals.received(); ++r) {
            double b = 0, l = 0;
            if (r % 2) {
                l = local_runner.run(Phase::alloc, n).run.wall_seconds;
                b = boot_runner.run(Phase::alloc, n).run.wall_seconds;
            } else {
                b = boot_runner.run(Phase::alloc, n).run.wall_seconds;
                l = local_runner.run(Phase::alloc, n).run.wall_seconds;
            }
            boot_s.push_back(b);
            local_s.push_back(l);
            ratios.push_back(b / l);
        }
        std::sort(ratios.begin(), ratios.end());
        std::printf(
            "  N = %d: boot median %.2f ms, node-local median %.2f ms; time ratio "
            "boot/node-local %.3f (median of the pairs %.3f, pairs from %.3f to %.3f)\n",
            n, model::median(boot_s) * 1e3, model::median(local_s) * 1e3,
            model::median(boot_s) / model::median(local_s), model::median(ratios), ratios.front(),
            ratios.back());
    }
    RestoreReport report = guard.restore();
    if (report.writes_failed)
        throw RuntimeError("restore failed: " + report.summary());
}

}  // namespace

int main() {
    bool ok = sample_is_flat();
    if (geteuid() != 0 || !KernelFs("/").exists("/sys/kernel/mm/hugepages")) {
        std::printf("== 1, 2 skipped: need root and a kernel with hugetlb\n");
        return ok ? 0 : 1;
    }
    try {
        KernelFs fs("/");
        Probe probe = probe_machine(fs);

        std::printf("== 1. default sweep (hugetune sweep, no options)\n");
        auto t0 = Clock::now();
        SweepResult result = run_sweep(fs, probe, {}, nullptr);
        double wall = std::chrono::duration<double>(Clock::now() - t0).count();
        std::printf("  %d timed repetitions, %llu pages/node: %.2f s wall (target < 60 s): %s\n",
                    result.plan.timed_repetitions,
                    static_cast<unsigned long long>(result.plan.pages_per_node), wall,
                    wall < 60 ? "ok" : "MISSED");
        ok = ok && wall < 60;

        int best_n = 1;
        double best_gib = 0;
        double sample_gib =
            static_cast<double>(result.plan.pages_per_node * result.plan.page_bytes) / (1 << 30);
        for (const auto& p : result.points) {
            if (p.phase != Phase::zero || p.oversubscribed)
                continue;
            double gib =
                sample_gib * static_cast<double>(result.plan.nodes.size()) / p.median_seconds();
            if (gib > best_gib)
                best_gib = gib, best_n = p.threads_per_node;
        }

        SignalGuard signals;
        ok = harness_against_simple(fs, probe, best_n, sample_gib, signals) && ok;
        placements_side_by_side(fs, probe, signals);
    } catch (const Error& e) {
        std::fprintf(stderr, "bench_sweep: %s\n", e.what());
        return 1;
    }
    return ok ? 0 : 1;
}
