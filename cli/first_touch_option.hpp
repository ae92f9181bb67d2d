// --first-touch-gib G of `run` and `fit`: what an application pays to fault in G GiB of the pool,
// from the sweep's zero phase (model/boot_breakdown.hpp, first_touch).
#pragma once

#include <optional>

#include "cli/cli.hpp"
#include "model/boot_breakdown.hpp"

namespace hugetune::cli {

// Adds the option; `gib` receives the size, read by gib_value (cli/cli.hpp): UsageError
// "--first-touch-gib: give a positive size in GiB, e.g. 64" for anything but a positive size.
void add_first_touch_option(po::options_description& desc, double& gib);

// The size given: nothing when the option is absent.
std::optional<double> first_touch_gib_from(const po::variables_map& vm, double gib);

// Refuses the option when the measurement has no zero phase: `fix` says how to get one (run:
// include zero in --phases; fit: measure a sweep with it).
void require_zero_phase_for_first_touch(bool has_zero_phase, std::string_view fix);

// The first touch of `gib` GiB from the sweep's zero phase; UsageError naming the option when
// the sweep cannot give one (no zero phase, or no page size: a CSV table).
model::FirstTouch first_touch_of(const model::SweepData& data, double gib);

}  // namespace hugetune::cli
