// The `hugetune-sweep` document (docs/sweep-format.md): what a sweep measured, as one type.
// `hugetune sweep` builds it from its run and writes it (tuner/sweep/sweep_output.cpp), `run`
// hands it to the fit in memory, `fit` reads it back from a file here; the console tables take
// it too. A report keeps the same measured block under `sweep`.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/input/input_error.hpp"

namespace hugetune::model {

inline constexpr int kSweepFormatVersion = 1;
inline constexpr const char* kSweepFormat = "hugetune-sweep";
inline constexpr const char* kPlacementBoot = "boot";
inline constexpr const char* kPlacementNodeLocal = "node-local";

// One point: a phase at one thread count per node, every repetition kept.
struct MeasuredPoint {
    std::string phase;  // alloc, zero or grow (fit_input.hpp kPhase...)
    int threads_per_node = 1;
    double pages_per_node = 0;  // the sample each repetition faulted, per node
    std::uint64_t page_size_kb = 0;
    std::vector<double> samples_seconds;  // wall time per repetition; empty: only the median
    double median_seconds = 0;
    double gib_per_second = 0;  // the sample over all nodes / median
    bool oversubscribed = false;
    std::uint64_t shortfall_pages = 0;  // pages not obtained on the intended node
    // The grow phase's wall time covers every node one after another (the resize lock).
    bool nodes_serialised = false;

    // The repetitions' times: the samples, or the median alone when a point gives no samples.
    std::vector<double> seconds() const;
};

// The points timed with /proc/sys/vm/hugetlb_optimize_vmemmap the other way
// (docs/sweep-format.md "HVO pass"): alloc and grow only, read as `points` are.
struct HvoPass {
    bool as_is = false;   // the sysctl's value for `points` of the sweep
    bool flipped = true;  // its value for these points
    std::vector<MeasuredPoint> points;
};

// How the points were sampled (docs/sweep-format.md "Sampling"): informative, the fit reads the
// samples whatever their count. Absent from a sweep written before it, which measured every point
// `parameters.repetitions` times.
struct Sampling {
    std::string rule;  // "adaptive" or "fixed"
    int rounds = 0;    // rounds measured; a round after the first ones times only the open points
    std::string stopped;  // "settled", "budget", "maximum" or "fixed count"; empty: not stopped
};

// The measured block: `parameters` (the part the fit uses), `complete`, `points`, `warnings`.
struct MeasuredSweep {
    std::uint64_t page_size_kb = 0;
    std::uint64_t seed = 1;
    bool complete = true;
    std::vector<int> nodes;  // the NUMA nodes measured; empty when the document does not say
    // Where the threads ran and their pages came from: "boot" (as the kernel's boot workers) or
    // "node-local"; a sweep written before the field existed was node-local.
    std::string placement = kPlacementNodeLocal;
    std::vector<MeasuredPoint> points;
    std::optional<HvoPass> hvo_pass;  // nothing: the sweep had none
    std::optional<Sampling> sampling;
    std::vector<std::string> warnings;
    InputSource input;  // the document it was read from, for errors about its data
};

class JsonField;

// The measured block wherever a document keeps it (a sweep document at its top, a report under
// `sweep`). Throws InputError naming each field by its path in the whole document; a sweep
// holding more than kMaxInputSamples samples is refused.
MeasuredSweep read_measured_sweep(const JsonField& sweep);

// The measured block of a sweep document (`parameters`, `complete`, `points`, `hvo_pass`,
// `sampling`) as it is, for a report to carry.
nlohmann::json measured_block_of(const nlohmann::json& sweep_document);

// Throws InputError about `input` unless `document` is an object of this format and version. A
// whole sweep document is this, then the measured block, then its `probe` (the fit's input:
// fit_input.hpp parse_sweep_json).
void check_sweep_format(const nlohmann::json& document, const InputSource& input = {});

// The way out of a problem in a sweep document, as its errors end: where a good one comes from.
Message sweep_document_fix();

}  // namespace hugetune::model
