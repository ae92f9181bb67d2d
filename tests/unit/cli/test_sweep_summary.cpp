// `hugetune sweep` prints its tables from the document it writes: the seam between the sweep's
// JSON (machine side) and the console summary (reports).
#include <doctest/doctest.h>

#include "cli/setting_flags.hpp"
#include "reports/summary.hpp"
#include "reports/sweep_tables.hpp"
#include "tests/unit/support/sweep_data.hpp"

using namespace hugetune;
using hugetune::test::made_up_sweep;

TEST_CASE("sweep summary of a sweep document: sample, medians, spread, throughput, notes") {
    SweepResult r = made_up_sweep();
    r.warnings = {"a note for the reader"};
    const std::string text = format_sweep_summary(measured_sweep(r), cli::flag_words());
    CHECK(text.starts_with("sample 512 x 2 MiB pages per node, 4 node(s)\nplacement: boot ("));
    CHECK(text.find("phase alloc") != std::string::npos);
    CHECK(text.find("phase zero") == std::string::npos);  // nothing measured yet
    CHECK(text.find("             1    200.0 ms  100.0 ms..400.0 ms       20.00  repetition 1 of 3 "
                    "2.0x the median\n") != std::string::npos);
    CHECK(text.find("            64    500.0 ms  500.0 ms..500.0 ms        8.00  oversubscribed  "
                    "shortfall 3 pages\n") != std::string::npos);
    CHECK(text.ends_with("note: a note for the reader\n"));
}

TEST_CASE("sweep summary: a node-local sweep of several nodes says what it leaves out") {
    SweepResult r = made_up_sweep();
    r.plan.options.placement = Placement::node_local;
    const std::string text = format_sweep_summary(measured_sweep(r), cli::flag_words());
    CHECK(text.find("placement: node-local (each node's threads and pages on that node; "
                    "docs/kernel-facts.md \"The sweep against the boot\")\n  on 4 nodes this "
                    "leaves out the remote zeroing") != std::string::npos);
    CHECK(text.find("measure again with --placement boot") != std::string::npos);
}
