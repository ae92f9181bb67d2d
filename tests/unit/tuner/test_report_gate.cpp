// Whether apply may act on a report: the warning codes that make it unfit, the host and the
// SKU against this machine, and the decision to keep the kernel default.
#include <doctest/doctest.h>

#include "tuner/boot/report_gate.hpp"

using namespace hugetune::boot;
using nlohmann::json;

namespace {

json report_with(const json& warnings) {
    return {{"host", {{"hostname", "node-17"}}},
            {"sku",
             {{"microarch", "zen4"},
              {"nodes", 2},
              {"hardware_threads_per_node", 96},
              {"memory_per_node_gib", 377},
              {"page_size_kb", 2048}}},
            {"recommendation", {{"hugepage_alloc_threads", 24}, {"confidence", 0.93}}},
            {"warnings", warnings}};
}

MachineIdentity node17() {
    return {"node-17", "zen4", 2, 96};
}

}  // namespace

TEST_CASE("unfit_reasons: only the codes that make the value untrustworthy refuse") {
    json some = json::array({{{"code", "noisy"}, {"message", "a"}},
                             {{"code", "kernel_too_old"}, {"message", "b"}},
                             {{"code", "extrapolated"}, {"message", "c"}}});
    ReportStanding fit = report_standing(report_with(some));
    CHECK(unfit_reasons(fit, std::nullopt).empty());
    CHECK(unfit_reasons(fit, node17()).empty());
    CHECK(standing_warnings(fit).at(0) == "report [noisy]: a");
    CHECK(standing_notes(fit).at(0).starts_with("report: confidence 93%"));
    for (const char* code : {"vm", "low_confidence", "poor_fit", "failed_resamples"}) {
        json w = some;
        w.push_back({{"code", code}, {"message", "x"}});
        auto reasons = unfit_reasons(report_standing(report_with(w)), std::nullopt);
        REQUIRE(reasons.size() == 1);
        CHECK(reasons[0] == std::string("the report warns [") + code + "]");
    }
}

TEST_CASE("unfit_reasons on this machine: another host or SKU; memory per node may differ") {
    ReportStanding s = report_standing(report_with(json::array()));
    MachineIdentity other_host = node17();
    other_host.hostname = "node-18";
    CHECK(unfit_reasons(s, other_host) ==
          std::vector<std::string>{"the report measured host node-17, not this one (node-18)"});
    MachineIdentity bigger = node17();
    bigger.hardware_threads_per_node = 128;
    CHECK(unfit_reasons(s, bigger).at(0).starts_with(
        "the report measured another kind of machine (zen4, 2 node(s) x 96 hardware threads; "
        "this one is zen4, 2 node(s) x 128"));
    json no_host = report_with(json::array());
    no_host.erase("host");
    no_host.erase("sku");
    CHECK(unfit_reasons(report_standing(no_host), node17()).size() == 2);
    CHECK(unfit_reasons(report_standing(no_host), std::nullopt).empty());
}

TEST_CASE("report_standing: absent confidence, fields of the wrong type") {
    json r = report_with(json::array({{{"code", 7}}, {{"code", "vm"}}}));
    r["recommendation"]["confidence"] = nullptr;
    ReportStanding s = report_standing(r);
    CHECK(!s.confidence);
    CHECK(s.warnings.size() == 1);
    CHECK(standing_notes(s).at(0) == "report: no confidence estimate (too few points)");
    CHECK(report_standing(json::array()).warnings.empty());
}
