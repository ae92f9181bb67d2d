// What `hugetune fit` and `hugetune run` feed the model: measured series per phase plus the
// machine facts the recommendation needs, read from a CSV table or a sweep JSON document.
// Parsing works on text or a JSON value already in memory; files are the caller's business.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/fit/scaling_fit.hpp"
#include "model/input/input_error.hpp"
#include "model/page_sizes.hpp"

namespace hugetune::model {

// Phase names, as in the sweep format (docs/sweep-format.md "Points") plus "boot" for a table of
// whole-boot allocation times such as the published Skylake one.
inline constexpr std::string_view kPhaseBoot = "boot";
inline constexpr std::string_view kPhaseAlloc = "alloc";  // fresh surplus pages: alloc + zero
inline constexpr std::string_view kPhaseZero = "zero";    // pool pages faulted: zeroing alone
inline constexpr std::string_view kPhaseGrow = "grow";    // nr_hugepages write: alloc, N = 1

struct PhaseSeries {
    std::string phase;
    // Work behind every point of the series, per node. 0 for a boot table: its seconds are the
    // whole job and predictions are its own curve.
    double pages_per_node = 0;
    std::vector<Point> points;  // every repetition, in input order
    // A series pooled from several hosts (model/fleet): where each host's points end in
    // `points`, one entry per host, the same hosts in every phase. Empty: one host.
    std::vector<std::size_t> host_ends;
};

// One huge page pool the kernel command line asks for at boot.
struct BootPoolRequest {
    std::uint64_t size_kb = 0;
    std::optional<std::uint64_t> pages;
    bool node_format = false;  // hugepages=0:N,1:M: the serial per-node path

    bool operator==(const BootPoolRequest&) const = default;
};

// The facts beyond the sweep that the breakdown's what-if rows and the first touch need (the
// probe's kernel block, for the sweep's page size; model/boot_breakdown.hpp).
struct KernelOptions {
    std::optional<bool> hvo;
    bool hvo_sysctl = false;  // /proc/sys/vm/hugetlb_optimize_vmemmap exists
    std::optional<double> vmemmap_freeable_kib_per_page;  // the boot log's line for this size
    bool zeroable_hugepages = false;  // a node's pool of this size has zeroable_hugepages

    bool operator==(const KernelOptions&) const = default;
};

struct MachineFacts {
    std::string microarch = "unknown";
    std::optional<int> nodes;  // NUMA nodes with memory
    std::optional<int> online_cpus;
    std::optional<int> hw_threads_per_node;  // the most hardware threads on one such node
    std::optional<bool> init_on_alloc;
    std::optional<std::uint64_t> boot_pool_pages;  // requested on the kernel command line
    std::vector<BootPoolRequest> boot_requests;    // every size the command line requests
    std::optional<std::uint64_t> current_pool_pages;
    bool hypervisor = false;
    std::optional<std::string> kernel_release;
    std::optional<bool> supports_alloc_threads;  // hugepage_alloc_threads= (Linux 6.15 on)
    KernelOptions kernel;
    // Which sizes are gigantic there (docs/kernel-facts.md "Gigantic pages"); a report that does
    // not say was measured on x86-64.
    std::uint64_t largest_buddy_block_kb = kX86_64BuddyAllocator.largest_block_kb();
    // What a report's SKU key names (model/documents/sku.hpp): every node with memory (hwloc's
    // local memory above 0), whichever the sweep measured; the most hardware threads on one of
    // them; their memory per node (model/input/probe_nodes.hpp). 0 when no node has memory.
    int sku_memory_nodes = 0;
    int sku_hardware_threads_per_node = 0;
    std::uint64_t sku_memory_per_node_gib = 0;

    bool operator==(const MachineFacts&) const = default;
};

// The sweep's HVO pass (docs/sweep-format.md "HVO pass"): alloc and grow series timed with
// /proc/sys/vm/hugetlb_optimize_vmemmap the other way.
struct HvoPassData {
    bool as_is = false;   // the sysctl's value for `SweepData::phases`
    bool flipped = true;  // its value for `phases` here
    std::vector<PhaseSeries> phases;

    const PhaseSeries* phase(std::string_view name) const;
};

// A boot sweep's boots at one setting of init_on_alloc and HVO (docs/boot-sweep-format.md): what
// the steps set, else what the boots said they ran with; nothing where neither says.
struct BootSettingSeries {
    std::optional<bool> init_on_alloc;
    std::optional<bool> hvo;
    PhaseSeries boots;  // phase "boot"
};

struct SweepData {
    std::string source;  // "csv", "sweep" or "boot-sweep"
    std::vector<PhaseSeries> phases;
    // A boot sweep's boots by setting, in the order the sweep booted them; `phases` holds the
    // first setting's. Empty for other inputs.
    std::vector<BootSettingSeries> boot_settings;
    std::optional<HvoPassData> hvo_pass;
    std::uint64_t page_size_kb = 0;  // 0 when the input does not say (CSV)
    MachineFacts machine;
    std::uint64_t seed = 1;
    bool complete = true;            // false: an interrupted sweep
    std::vector<std::string> notes;  // what reading the input assumed or left out
    InputSource input;               // what errors about the data name

    const PhaseSeries* phase(std::string_view name) const;
};

// How much input `fit` reads (README "Input size"). A sweep measures a few repetitions at tens
// of thread counts; a million measurements is four orders of magnitude past that and still fits
// in about a second and a hundred MB. The bytes allow a million rows of a wide table (64 per
// row); a sweep's values bound what its parsed document holds in memory (16 bytes each and
// more), which its bytes alone do not: "[0,0,...]" is two bytes a value.
inline constexpr std::size_t kMaxInputSamples = 1'000'000;  // CSV data rows, sweep samples
inline constexpr std::uintmax_t kMaxInputBytes = 64ULL * 1024 * 1024;
inline constexpr std::size_t kMaxJsonValues = 4'000'000;
// Every JSON document hugetune reads (parse_json_document, model/input/json_text.hpp) holds at
// most kMaxInputBytes and nests objects and arrays at most this deep: its own documents nest
// about ten deep, and a deeper one is forged (nlohmann/json writes and compares a document by
// recursion, one stack frame a level).
inline constexpr std::size_t kMaxJsonDepth = 64;
// What a real machine could measure, for each number of a sweep: one timed step takes at most a
// day, and a pool per node holds at most 1 PiB (2^40 KiB) of pages. A larger value is a broken
// or forged document, refused with its path rather than fitted into an absurd prediction.
inline constexpr double kMaxSampleSeconds = 86'400;
inline constexpr std::uint64_t kMaxPoolKbPerNode = std::uint64_t{1} << 40;
// The smallest huge page (64 KiB, arm64's contiguous pages) bounds a point's pages when the
// point does not name its page size.
inline constexpr std::uint64_t kSmallestHugePageKb = 64;
inline constexpr std::string_view kFewerSamplesFix =
    "keep fewer repetitions per thread count, or fit one host's sweep at a time";

// Header `threads_per_node,seconds` (any order, extra columns ignored, optional `phase`).
// Rows without a phase column are a boot table. Throws InputError naming the line. Each reader
// names its errors, and the data it returns, by `input`.
SweepData parse_csv_table(std::string_view text, const InputSource& input = {});

// A `hugetune-sweep` document. Throws InputError naming the JSON path of the problem.
SweepData parse_sweep_json(const nlohmann::json& doc, const InputSource& input = {});

struct MeasuredSweep;
class JsonField;

// A sweep's measurements with the facts of the machine it ran on, as the fit takes them: series
// per phase, oversubscribed points left out unless the alloc series needs them. `points_path`
// names the points in errors. Throws InputError when the alloc series cannot carry a fit.
SweepData fit_input(const MeasuredSweep& sweep, const MachineFacts& machine,
                    const std::string& points_path = "points");

// The same with the machine facts read from a probe's blocks (`cpu`, `topology`, `kernel`,
// `virtualization`) in a document; an absent probe leaves them unknown, with a note.
SweepData fit_input(const MeasuredSweep& sweep, const JsonField& probe,
                    const std::string& points_path = "points");

// The result `hugetune boot-sweep` writes (tuner/boot_sweep/result.cpp) and this reads.
inline constexpr const char* kBootSweepFormat = "hugetune-boot-sweep";
inline constexpr int kBootSweepFormatVersion = 1;

// A `hugetune-boot-sweep` result: a measured boot table ("boot" phase, threads per node = the
// total over the nodes it names) of its first setting, and every setting's in boot_settings. Throws
// InputError naming the JSON path of the problem. A fit of it needs check_enough_thread_counts too;
// a comparison with a prediction does not.
SweepData parse_boot_sweep_json(const nlohmann::json& doc, const InputSource& input = {});

// At least three distinct thread counts in the series the recommendation needs; throws
// InputError about `input` otherwise (shared by both readers).
inline constexpr std::size_t kMinThreadCounts = 3;
void check_enough_thread_counts(const PhaseSeries& series, std::optional<int> line,
                                const InputSource& input);

}  // namespace hugetune::model
