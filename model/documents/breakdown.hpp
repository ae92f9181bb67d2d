// The report's `breakdown`, `what_if` and `first_touch` blocks (report.schema.json): their one
// writer and their one reader.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <vector>

#include "model/boot_breakdown.hpp"

namespace hugetune::model {

class JsonField;

nlohmann::json to_json(const BootBreakdown& breakdown);
nlohmann::json to_json(const std::vector<WhatIf>& rows);
nlohmann::json to_json(const FirstTouch& first_touch);

// Absent blocks read as nothing (reports written before them); a present one is read whole,
// InputError naming the field otherwise.
std::optional<BootBreakdown> read_breakdown(const JsonField& block);
std::vector<WhatIf> read_what_if(const JsonField& rows);
std::optional<FirstTouch> read_first_touch(const JsonField& block);

}  // namespace hugetune::model
