// Something that weakens a result, with a stable code that reports and fleet queries key on
// (model/documents/schema/report.schema.json lists every code). Each code is judged in one place:
// the machine's facts here, the fit's in model/recommend/ and model/cost_basis.cpp, the probe's
// and the sweep points' own in reports/report.cpp.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hugetune::model {

struct MachineFacts;

// Warning codes that make a result unfit to act on: a measurement on a virtual machine, too few
// agreeing resamples, a curve that does not fit the points, or resamples that failed. `apply
// --report` refuses a report with one (unless --force); a fleet answer is not settled while a
// host's report or the SKU's own fit has one (unless the operator accepts the code).
inline constexpr std::string_view kVmWarning = "vm";  // measured in a virtual machine
inline constexpr std::array<std::string_view, 4> kUnfitCodes = {kVmWarning, "low_confidence",
                                                                "poor_fit", "failed_resamples"};
bool is_unfit_code(std::string_view code);
// The codes as help and messages list them: "vm, low_confidence, poor_fit, failed_resamples".
std::string unfit_codes_text();

struct Warning {
    std::string code;     // "vm", "low_confidence", ...
    std::string message;  // a clause for people; a report makes it a sentence
};

// What the measured machine's facts say against the result, in the order reports list them:
// "vm", "kernel_too_old", "node_format_hugepages" (one per page size), "gigantic_only".
// `page_size_kb`: the size the sweep measured (0: unknown).
std::vector<Warning> machine_warnings(const MachineFacts& machine, std::uint64_t page_size_kb);

// True for the codes machine_warnings() gives: reports list them with the machine's facts,
// before the warnings about the measurements and the fit.
bool is_machine_warning(std::string_view code);

}  // namespace hugetune::model
