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
    // What the fit does not read, kept for the people and tools that read the file: N times the
    // nodes (0: the document does not say), each thread's own time per repetition, and with boot
    // placement the pages each memory node gave and was to give. Nothing where absent.
    int total_threads = 0;
    std::optional<std::vector<std::vector<double>>> thread_seconds;
    std::optional<std::vector<std::uint64_t>> node_pages;
    std::optional<std::vector<std::uint64_t>> expected_node_pages;

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
    // Rounds measured; a round after the first ones times only the open points. Nothing in a
    // plan, which has measured none.
    std::optional<int> rounds;
    std::string stopped;  // "settled", "budget", "maximum" or "fixed count"; empty: not stopped
    // The rule's settings: the rounds every point gets, the most repetitions a point gets, and
    // the adaptive rule's tolerance and budget. Nothing where the document does not say.
    std::optional<int> first_rounds;
    std::optional<int> max_repetitions;
    std::optional<double> tolerance;
    std::optional<double> budget_seconds;
};

// What was asked for, as `parameters` states it beside the members the fit reads
// (MeasuredSweep): empty or nothing where the document does not say.
struct SweepAsked {
    std::vector<int> threads_per_node;  // the counts asked for, in the order given
    std::optional<int> repetitions;     // the most timed repetitions a point gets
    std::vector<std::string> phases;
    std::optional<std::uint64_t> sample_mib_per_node;
    std::optional<double> max_memory_fraction;
    std::optional<std::vector<int>> memory_nodes;  // boot placement: the nodes pages came from
    std::optional<int> boot_node;                  // boot placement: the boot CPU's node
};

// The measured block: `parameters`, `complete`, `points`, `hvo_pass`, `sampling`, and the
// sweep's `warnings` beside it.
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
    // Without a pass: why, as `hvo_pass.note` (nothing: the document has no `hvo_pass`).
    std::optional<std::string> hvo_note;
    std::optional<Sampling> sampling;
    SweepAsked asked;
    std::vector<std::string> warnings;
    InputSource input;  // the document it was read from, for errors about its data
};

class JsonField;

// The measured block wherever a document keeps it (a sweep document at its top, a report under
// `sweep`). Throws InputError naming each field by its path in the whole document; a sweep
// holding more than kMaxInputSamples samples is refused.
MeasuredSweep read_measured_sweep(const JsonField& sweep);

// The measured block as a sweep document holds it at its top and a report under `sweep`
// (`parameters`, `complete`, `points`, `hvo_pass`, `sampling`; not the warnings): the one writer
// of it (model/documents/sweep_block.cpp).
nlohmann::json measured_block_json(const MeasuredSweep& sweep);

// `sampling` as a sweep and a plan write it.
nlohmann::json to_json(const Sampling& sampling);

// Throws InputError about `input` unless `document` is an object of this format and version. A
// whole sweep document is this, then the measured block, then its `probe` (the fit's input:
// fit_input.hpp parse_sweep_json).
void check_sweep_format(const nlohmann::json& document, const InputSource& input = {});

// The way out of a problem in a sweep document, as its errors end: where a good one comes from.
Message sweep_document_fix();

}  // namespace hugetune::model
