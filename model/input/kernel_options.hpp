// The kernel facts the what-if rows need (model::KernelOptions), read from a sweep document's
// probe block (the same fields `hugetune run` takes from its probe).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

#include "model/boot_breakdown.hpp"

namespace hugetune::model {

// `probe` is a sweep's or a report's "probe" object; what it lacks stays unknown. Throws
// InputError about `input` for a field of the wrong type.
KernelOptions kernel_options_from_probe(const nlohmann::json& probe, std::uint64_t page_size_kb,
                                        const InputSource& input = {});

}  // namespace hugetune::model
