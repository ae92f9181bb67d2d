// Whether a report is fit for apply to act on: what it says against its own result (its
// warnings and confidence), what it decided, and whether it measured this machine.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/documents/report.hpp"
#include "tuner/probe/probe.hpp"

namespace hugetune::boot {

// The codes that make a report unfit to act on (model/warning.hpp).
using model::kUnfitCodes;

struct ReportStanding {
    std::vector<model::Warning> warnings;
    std::optional<double> confidence;  // share of resamples that agree; nothing: not estimated
    std::optional<std::string> verdict;
    std::optional<std::string> hostname;  // nothing for the report's short form
    std::optional<model::SkuKey> sku;
};

ReportStanding report_standing(const model::Report& report);

// The machine apply would change, keyed as a report's host and sku are.
struct MachineIdentity {
    std::string hostname;
    std::string microarch;
    std::uint64_t nodes = 0;  // NUMA nodes with memory
    std::uint64_t hardware_threads_per_node = 0;
};
MachineIdentity machine_identity(const Probe& probe);

// Lines for the user: the confidence, the verdict, then each warning with its code.
std::vector<std::string> standing_notes(const ReportStanding& standing);
std::vector<std::string> standing_warnings(const ReportStanding& standing);

// Why acting on the report's recommendation would be unsafe: warnings whose codes say the
// result is not to be trusted, and, when `machine` is given (the target is this machine), a
// report of another host or SKU. Empty: fit to act on.
std::vector<std::string> unfit_reasons(const ReportStanding& standing,
                                       const std::optional<MachineIdentity>& machine);

}  // namespace hugetune::boot
