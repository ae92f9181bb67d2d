#include "tuner/cli/sweep_options.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "tuner/kernel/cmdline.hpp"
#include "tuner/system/atomic_file.hpp"
#include "tuner/system/errors.hpp"

namespace hugetune::cli {
namespace {

std::vector<std::string> split_list(const std::string& text) {
    std::vector<std::string> items;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ','))
        items.push_back(item);
    return items;
}

std::vector<int> parse_thread_list(const std::string& text) {
    std::vector<int> counts;
    for (const auto& item : split_list(text)) {
        int n = 0;
        std::size_t used = 0;
        try {
            n = std::stoi(item, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (item.empty() || used != item.size() || n < 1)
            usage_error("--threads",
                        "'" + item + "' is not a thread count; give a list like 1,2,4,8");
        counts.push_back(n);
    }
    if (counts.empty())
        usage_error("--threads", "give a list like 1,2,4,8");
    return counts;
}

std::vector<Phase> parse_phase_list(const std::string& text) {
    std::vector<Phase> phases;
    for (const auto& item : split_list(text)) {
        auto p = parse_phase(item);
        if (!p)
            usage_error("--phases", "unknown phase '" + item + "'; use alloc, zero and/or grow");
        if (std::find(phases.begin(), phases.end(), *p) == phases.end())
            phases.push_back(*p);
    }
    if (phases.empty())
        usage_error("--phases", "give at least one of alloc, zero, grow");
    return phases;
}

}  // namespace

void add_sweep_options(po::options_description& desc, SweepOptionValues& v) {
    desc.add_options()("threads", po::value(&v.threads)->value_name("LIST"),
                       "threads per NUMA node to measure (default 1,2,4,8,16,32)")(
        "repetitions", po::value(&v.repetitions)->value_name("R"),
        "repetitions per point (default 5)")("phases", po::value(&v.phases)->value_name("LIST"),
                                             "any of alloc,zero,grow (default all three)")(
        "page-size", po::value(&v.page_size)->value_name("SIZE"), "2M or 1G (default 2M)")(
        "sample-mib", po::value(&v.sample_mib)->value_name("MIB"),
        "huge page memory per node, the same at every N (default 256, at least one page)")(
        "max-memory-fraction", po::value(&v.max_memory_fraction)->value_name("F"),
        "refuse a sample needing more than F of a node's available memory (default 0.5)")(
        "seed", po::value(&v.seed)->value_name("S"), "seed of the shuffled order (default 1)");
}

SweepOptions sweep_options_from(const SweepOptionValues& v, const po::variables_map& vm) {
    SweepOptions o;
    o.threads_per_node = parse_thread_list(v.threads);
    o.phases = parse_phase_list(v.phases);
    if (v.repetitions < 1 || v.repetitions > 1000)
        usage_error("--repetitions", "use 1 to 1000");
    o.repetitions = v.repetitions;
    auto kb = parse_memsize_kb(v.page_size);
    if (!kb || *kb == 0)
        usage_error("--page-size", "'" + v.page_size + "' is not a size; use 2M or 1G");
    o.page_size_kb = *kb;
    if (vm.count("sample-mib")) {
        if (v.sample_mib < 1)
            usage_error("--sample-mib", "give a positive number of MiB, e.g. 256");
        o.sample_mib_per_node = static_cast<std::uint64_t>(v.sample_mib);
    }
    if (!(v.max_memory_fraction > 0 && v.max_memory_fraction <= 1))
        usage_error("--max-memory-fraction", "give a fraction above 0 and at most 1, e.g. 0.5");
    o.max_memory_fraction = v.max_memory_fraction;
    o.seed = v.seed;
    return o;
}

void require_root_and_hugetlb(const KernelFs& fs, const std::string& what) {
    if (geteuid() != 0)
        throw NotRootError(what +
                           " changes huge page pools and needs root; run it with sudo, or use "
                           "--dry-run to see the plan");
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
