// Whether apply may act on a report: the warning codes that make it unfit, the host and the
// SKU against this machine, and the decision to keep the kernel default.
#include <doctest/doctest.h>

#include "tuner/boot/report_gate.hpp"

using namespace hugetune::boot;
using hugetune::model::Report;
using hugetune::model::Warning;

namespace {

Report report_with(const std::vector<Warning>& warnings) {
    Report r;
    r.recommendation.hugepage_alloc_threads = 24;
    r.recommendation.confidence = 0.93;
    r.run.emplace();
    r.run->probe.hostname = "node-17";
    r.run->sku = {"zen4", 2, 96, 377, 2048, std::nullopt};
    r.run->warnings = warnings;
    return r;
}

MachineIdentity node17() {
    return {"node-17", "zen4", 2, 96};
}

}  // namespace

TEST_CASE("unfit_reasons: only the codes that make the value untrustworthy refuse") {
    const std::vector<Warning> some = {
        {"noisy", "a"}, {"kernel_too_old", "b"}, {"extrapolated", "c"}};
    ReportStanding fit = report_standing(report_with(some));
    CHECK(unfit_reasons(fit, std::nullopt).empty());
    CHECK(unfit_reasons(fit, node17()).empty());
    CHECK(standing_warnings(fit).at(0) == "report [noisy]: a");
    CHECK(standing_notes(fit).at(0).starts_with("report: confidence 93%"));
    for (const char* code : {"vm", "low_confidence", "poor_fit", "failed_resamples"}) {
        std::vector<Warning> w = some;
        w.push_back({code, "x"});
        auto reasons = unfit_reasons(report_standing(report_with(w)), std::nullopt);
        REQUIRE(reasons.size() == 1);
        CHECK(reasons[0] == std::string("the report warns [") + code + "]");
    }
}

TEST_CASE("unfit_reasons on this machine: another host or SKU; memory per node may differ") {
    ReportStanding s = report_standing(report_with({}));
    MachineIdentity other_host = node17();
    other_host.hostname = "node-18";
    CHECK(unfit_reasons(s, other_host) ==
          std::vector<std::string>{"the report measured host node-17, not this one (node-18)"});
    MachineIdentity bigger = node17();
    bigger.hardware_threads_per_node = 128;
    CHECK(unfit_reasons(s, bigger).at(0).starts_with(
        "the report measured another kind of machine (zen4, 2 node(s) x 96 hardware threads; "
        "this one is zen4, 2 node(s) x 128"));
    Report no_host = report_with({});
    no_host.run.reset();  // the short form: no host, no sku
    CHECK(unfit_reasons(report_standing(no_host), node17()).size() == 2);
    CHECK(unfit_reasons(report_standing(no_host), std::nullopt).empty());
}

TEST_CASE("report_standing: absent confidence; the short form has no warnings to show") {
    Report r = report_with({{"vm", "x"}});
    r.recommendation.confidence.reset();
    ReportStanding s = report_standing(r);
    CHECK(!s.confidence);
    CHECK(s.warnings.size() == 1);
    CHECK(standing_notes(s).at(0) == "report: no confidence estimate (too few points)");
    r.run.reset();
    CHECK(report_standing(r).warnings.empty());
}
