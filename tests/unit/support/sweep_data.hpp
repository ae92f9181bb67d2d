// A sweep with made-up samples on the 4-node Skylake fixture: two alloc points, one of them
// oversubscribed with a shortfall, nothing else measured yet. Shared by the tests of the sweep
// document and of the console output printed from it.
#pragma once

#include "tests/unit/support/fixtures.hpp"
#include "tuner/probe/probe.hpp"
#include "tuner/sweep/sweep.hpp"

namespace hugetune::test {

inline SweepResult made_up_sweep() {
    KernelFs fs(fixture("skylake-4node"));
    Probe probe = probe_machine(fs);
    SweepOptions o;
    o.threads_per_node = {1, 64};
    o.sample_mib_per_node = 1024;  // 512 pages per node, 4 GiB over four nodes
    SweepResult r;
    r.plan = plan_sweep(probe, read_memory_view(fs, probe), o);
    r.probe = probe_record(probe);
    for (const auto& p : r.plan.points)
        r.points.push_back(
            {p.phase, p.threads_per_node, p.total_threads, p.oversubscribed, {}, {}, 0, false, {}});
    r.points[0].samples_seconds = {0.4, 0.1, 0.2};  // alloc @1: median 0.2 s, 4 GiB -> 20 GiB/s
    r.points[0].thread_seconds = {{0.1}, {0.1}, {0.1}};
    r.points[1].samples_seconds = {0.5};  // alloc @64 (oversubscribed), one sample so far
    r.points[1].shortfall_pages = 3;
    return r;
}

}  // namespace hugetune::test
