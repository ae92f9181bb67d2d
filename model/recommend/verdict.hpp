// The one plain sentence every output states (Recommendation::verdict).
#pragma once

#include <optional>
#include <string>

#include "model/recommend.hpp"
#include "model/recommend/pick.hpp"

namespace hugetune::model::recommend {

struct VerdictFacts {
    Outcome outcome;
    std::optional<double> confidence;  // as reported; absent where a rule decided
    int default_threads = 1;           // the kernel's default, before the CPU cap
    bool fallback = false;
};

std::string verdict(const VerdictFacts& facts, const RecommendOptions& options);

}  // namespace hugetune::model::recommend
