// The `verification` block `hugetune verify --report` adds to a report: the document type, its
// one writer and its one reader. verify builds it, the report and --json carry it, the fleet
// reads it back (intake, answers, the database's columns) and Prometheus turns it into metrics;
// every one of them takes this type, none reads the block by its keys.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/warning.hpp"

namespace hugetune::model {

// The pool the kernel allocated in the verified boot.
struct VerifiedPool {
    std::uint64_t pages = 0;
    std::uint64_t page_size_kb = 0;
    std::optional<bool> init_on_alloc;  // unknown: nothing
};

struct Verification {
    bool verified = false;
    std::optional<std::uint64_t> measured_ms;       // the kernel's allocation line
    std::optional<std::uint64_t> threads;           // the thread count that line shows
    std::optional<std::uint64_t> expected_threads;  // the value hugetune applied
    std::optional<double> predicted_ms;             // the report's prediction, for its pool
    std::optional<double> pool_predicted_ms;        // the prediction rescaled to `pool`
    std::optional<double> ratio;                    // measured_ms / pool_predicted_ms
    std::optional<Warning> ratio_refused;           // why there is no ratio despite a prediction
    std::optional<VerifiedPool> pool;
    std::optional<std::string> kernel_release;  // absent when a saved log does not say
    std::optional<std::string> boot_id;         // absent for a saved log
    std::optional<std::string> cmdline_value;   // hugepage_alloc_threads= on the command line
    std::optional<std::string> log_line;
    std::vector<Warning> problems;  // why not verified; empty when verified
};

// What a reader accepts beyond the schema's types: a boot allocation of more than a day, or a
// measurement more than a million times its prediction, is no measurement of a boot but a
// broken or forged block. A ratio of 0 is a boot logged as 0 ms, which is kept but never
// verified (model/boot_plausibility.hpp).
inline constexpr std::uint64_t kMaxBootAllocationMs = 24ULL * 3600 * 1000;
inline constexpr double kMaxPredictedMs = 1e12;
inline constexpr double kMaxVerificationRatio = 1e6;
// How far a stated ratio may lie from measured_ms / pool_predicted_ms (relative).
inline constexpr double kRatioTolerance = 1e-6;

// The block as the report schema describes it (model/documents/schema/report.schema.json).
nlohmann::json to_json(const Verification& v);

class JsonField;

// Reads and checks a block: the schema's types, the bounds above, a ratio that agrees with the
// two times it is made of, and for `verified: true` no problems, a measurement, a ratio a boot
// can give and a time the kernel can take to zero the pool (model/boot_plausibility.hpp, with
// the line's threads as the writers). Throws InputError naming the field by its path in the
// document ("verification.ratio: ...").
Verification read_verification(const JsonField& block);

// A problem as the documents carry it ({"code", "message"}) and its reader (neither empty); the
// boot record's reason for a missing line is one too.
nlohmann::json warning_json(const Warning& w);
Warning read_warning(const JsonField& field);

}  // namespace hugetune::model
