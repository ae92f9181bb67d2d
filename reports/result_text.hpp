// Phrases that `fit`'s and `run`'s summaries share, so a result reads the same in both.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "model/recommend.hpp"

namespace hugetune {

// "set hugepage_alloc_threads=24 (12 per node x 2 nodes)", or "keep the kernel default, ..."
// for a kept default; without a node count, "(12 per node)".
std::string decision_text(model::Decision decision, std::uint64_t hugepage_alloc_threads,
                          double threads_per_node, std::optional<int> nodes);

// " (90% 1.20 s..1.35 s)": a prediction's bootstrap interval.
std::string interval_text(double low_seconds, double high_seconds);

}  // namespace hugetune
