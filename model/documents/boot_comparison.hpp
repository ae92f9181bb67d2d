// The report's `boot_sweep` block (report.schema.json, run --boot-sweep and fit --boot-sweep):
// the comparison of measured boots with the prediction, its one writer and its one reader. The
// comparison holds its times in the block's milliseconds, so a report read back is written again
// the same.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "model/boot_comparison.hpp"

namespace hugetune::model {

class JsonField;

nlohmann::json to_json(const BootComparison& comparison);

// Throws InputError naming the member where the block does not hold a comparison.
BootComparison read_boot_comparison(const JsonField& block);

}  // namespace hugetune::model
