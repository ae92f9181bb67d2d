#include "cli/first_touch_option.hpp"

namespace hugetune::cli {

namespace {
constexpr const char* kOption = "--first-touch-gib";
}

void add_first_touch_option(po::options_description& desc, double& gib) {
    desc.add_options()("first-touch-gib", gib_value(kOption, gib, "64"),
                       "also predict what an application pays to fault in G GiB of the pool (the "
                       "zero phase at each thread count)");
}

std::optional<double> first_touch_gib_from(const po::variables_map& vm, double gib) {
    if (!vm.count("first-touch-gib"))
        return std::nullopt;
    return gib;
}

void require_zero_phase_for_first_touch(bool has_zero_phase, std::string_view fix) {
    if (!has_zero_phase)
        usage_error(kOption, "the first touch is the zero phase's work; " + std::string(fix));
}

model::FirstTouch first_touch_of(const model::SweepData& data, double gib) {
    require_zero_phase_for_first_touch(data.phase(model::kPhaseZero) != nullptr,
                                       "fit a sweep that measured the zero phase");
    const auto touch = model::first_touch(data, gib, data.machine.kernel);
    if (!touch)
        usage_error(kOption,
                    "the input does not give its page size (a CSV table); fit the sweep JSON");
    return *touch;
}

}  // namespace hugetune::cli
