#include "cli/sweep_options.hpp"

#include <unistd.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>

#include "cli/setting_flags.hpp"
#include "model/errors.hpp"
#include "model/text.hpp"
#include "tuner/kernel/cmdline.hpp"
#include "tuner/sweep/settings.hpp"
#include "tuner/system/atomic_file.hpp"
#include "tuner/system/privilege.hpp"

namespace hugetune::cli {
namespace {

// Any size the kernel lists under /sys/kernel/mm/hugepages (checked by plan_sweep), written as
// the kernel's hugepagesz= takes it.
constexpr std::string_view kPageSizes =
    "the huge page size: one the kernel lists under /sys/kernel/mm/hugepages, written as 2M, 1G "
    "or, on arm64, 64K, 32M, 512M, 16G";

std::vector<Phase> parse_phase_list(const std::string& text) {
    std::vector<Phase> phases;
    for (const auto& item : list_items("--phases", text)) {
        auto p = parse_phase(item);
        if (!p)
            usage_error("--phases", "unknown phase '" + item + "'; use alloc, zero and/or grow");
        if (std::find(phases.begin(), phases.end(), *p) == phases.end())
            phases.push_back(*p);
    }
    return phases;  // none at all: refused by validate_sweep_options
}

std::string range_text(int low, int high) {
    return std::to_string(low) + " to " + std::to_string(high);
}

}  // namespace

void add_sweep_options(po::options_description& desc, SweepOptionValues& v) {
    po::options_description sweep("Sweep options");
    auto add = sweep.add_options();
    add("threads", po::value(&v.threads)->value_name("LIST"),
        option_help("threads per NUMA node to measure",
                    join(kDefaultThreadsPerNode, ",", [](int n) { return std::to_string(n); }),
                    "each " + range_text(kMinThreadsPerNode, kMaxThreadsPerNode))
            .c_str());
    add("repetitions", po::value(&v.repetitions)->value_name("R"),
        option_help(
            "measure every point exactly R times",
            "adaptive: every point " +
                (kAdaptiveFirstRounds == 1 ? std::string("once")
                                           : std::to_string(kAdaptiveFirstRounds) + " times") +
                ", then up to " + std::to_string(kAdaptiveMaxRepetitions) +
                " samples only for the points that could still change the decision",
            range_text(kMinRepetitions, kMaxRepetitions))
            .c_str());
    add("budget", po::value(&v.budget)->value_name("SECONDS"),
        option_help("stop the adaptive rule's further rounds once the timed samples would pass "
                    "SECONDS; the first round always runs; not with --repetitions",
                    "none", "above 0")
            .c_str());
    add("phases", po::value(&v.phases)->value_name("LIST"),
        option_help("the phases to measure", join(kDefaultPhases, ",", phase_name)).c_str());
    add("page-size", po::value(&v.page_size)->value_name("SIZE"),
        option_help(kPageSizes, std::string(kKernelDefaultPageSizeText)).c_str());
    add("sample-mib", po::value(&v.sample_mib)->value_name("MIB"),
        option_help("huge page memory per node, the same at every N",
                    std::to_string(kDefaultSampleMib) + ", halved until it fits when not given",
                    "a multiple of the page size")
            .c_str());
    add("max-memory-fraction", po::value(&v.max_memory_fraction)->value_name("F"),
        option_help("refuse a sample needing more than F of a node's available memory",
                    number_text(kDefaultMaxMemoryFraction),
                    "above 0, at most " + number_text(kMaxMaxMemoryFraction))
            .c_str());
    add("seed", po::value(&v.seed)->value_name("S"),
        option_help("seed of the shuffled order", std::to_string(kDefaultSeed)).c_str());
    add("no-hvo-pass", po::bool_switch(&v.no_hvo_pass),
        "leave out the HVO pass, which times grow again with "
        "/proc/sys/vm/hugetlb_optimize_vmemmap the other way where it exists (default off)");
    add("placement", po::value(&v.placement)->value_name("WHERE"),
        option_help("where the threads run and their pages come from: boot (as the kernel's boot "
                    "workers: the boot CPU's node first, then round-robin over the nodes with "
                    "CPUs, each chunk's pages from every memory node in turn) or node-local "
                    "(each node's threads and pages on that node, for diagnosis)",
                    std::string(placement_name(kDefaultPlacement)))
            .c_str());
    desc.add(sweep);
}

SweepOptions sweep_options_from(const SweepOptionValues& v, const po::variables_map& vm) {
    SweepOptions o;
    o.words = flag_words();
    if (vm.count("threads"))
        o.threads_per_node = parse_thread_list("--threads", v.threads);
    if (vm.count("phases"))
        o.phases = parse_phase_list(v.phases);
    if (vm.count("repetitions")) {
        if (vm.count("budget"))
            usage_error("--budget",
                        "bounds the adaptive rule, which --repetitions turns off; "
                        "give one of them");
        o.adaptive = false;
        o.repetitions = v.repetitions;
    }
    if (vm.count("budget"))
        o.budget_seconds = parse_positive_number("--budget", v.budget, "number of seconds", "60");
    if (vm.count("page-size")) {
        auto kb = parse_memsize_kb(v.page_size);
        if (!kb || *kb == 0)
            usage_error("--page-size",
                        "'" + v.page_size + "' is not a size; give one the kernel lists, e.g. 2M");
        o.page_size_kb = *kb;
    }
    if (vm.count("sample-mib")) {
        if (v.sample_mib < 1)
            usage_error("--sample-mib", "give a positive number of MiB, e.g. 256");
        o.sample_mib_per_node = static_cast<std::uint64_t>(v.sample_mib);
    }
    if (vm.count("max-memory-fraction"))
        o.max_memory_fraction = v.max_memory_fraction;
    if (vm.count("seed"))
        o.seed = parse_unsigned("--seed", v.seed);
    o.hvo_pass = !v.no_hvo_pass;
    if (vm.count("placement")) {
        auto placement = parse_placement(v.placement);
        if (!placement)
            usage_error("--placement",
                        "unknown placement '" + v.placement + "'; use boot or node-local");
        o.placement = *placement;
    }
    validate_sweep_options(o);
    return o;
}

void require_root_and_hugetlb(const KernelFs& fs, const std::string& what) {
    require_root(what +
                 " changes huge page pools and needs root; run it with sudo, or use --dry-run to "
                 "see the plan");
    if (!fs.exists("/sys/kernel/mm/hugepages"))
        throw UnsupportedError(
            "this kernel has no hugetlb support (/sys/kernel/mm/hugepages is missing)");
}

ConsoleProgress::ConsoleProgress(std::optional<std::filesystem::path> out)
    : out_(std::move(out)), tty_(isatty(STDERR_FILENO) == 1) {}

ConsoleProgress::~ConsoleProgress() {
    clear();
}

void ConsoleProgress::on_repetition(const SweepProgress& p, const SweepResult& so_far) {
    if (out_)
        write_file_atomically(*out_, to_json(so_far).dump(2) + "\n");
    if (!tty_)
        return;
    std::fprintf(stderr, "\r\033[Kpoint %d of %d  %s at %d  elapsed %.0f s, about %.0f s left",
                 p.done, p.total, std::string(phase_name(p.phase)).c_str(), p.threads_per_node,
                 p.elapsed_seconds, p.remaining_seconds);
    std::fflush(stderr);
    drawn_ = true;
}

void ConsoleProgress::on_note(const std::string& note) {
    clear();
    std::fprintf(stderr, "hugetune: %s\n", note.c_str());
}

void ConsoleProgress::clear() {
    if (!drawn_)
        return;
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
    drawn_ = false;
}

}  // namespace hugetune::cli
