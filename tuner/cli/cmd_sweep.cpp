#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>

#include "../atomic_file.hpp"
#include "../cmdline.hpp"
#include "../errors.hpp"
#include "../probe.hpp"
#include "../sweep/sweep.hpp"
#include "commands.hpp"

namespace hugetune::cli {
namespace {

struct SweepCommandOptions {
    SweepOptions sweep;
    std::optional<std::filesystem::path> out;
    bool json = false;
    bool dry_run = false;
    std::filesystem::path root = "/";
};

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

std::optional<SweepCommandOptions> parse_sweep(const Args& args) {
    SweepCommandOptions o;
    std::string threads = "1,2,4,8,16,32", phases = "alloc,zero,grow", page_size = "2M", out, root;
    int repetitions = 5;
    long long sample_mib = -1;
    unsigned long long seed = 1;
    po::options_description desc("Options");
    desc.add_options()("threads", po::value(&threads)->value_name("LIST"),
                       "threads per NUMA node to measure (default 1,2,4,8,16,32)")(
        "repetitions", po::value(&repetitions)->value_name("R"),
        "repetitions per point (default 5)")("phases", po::value(&phases)->value_name("LIST"),
                                             "any of alloc,zero,grow (default all three)")(
        "page-size", po::value(&page_size)->value_name("SIZE"), "2M or 1G (default 2M)")(
        "sample-mib", po::value(&sample_mib)->value_name("MIB"),
        "huge page memory per node, the same at every N (default 256, at least one page)")(
        "max-memory-fraction", po::value(&o.sweep.max_memory_fraction)->value_name("F"),
        "refuse a sample needing more than F of a node's available memory (default 0.5)")(
        "seed", po::value(&seed)->value_name("S"), "seed of the shuffled order (default 1)")(
        "out", po::value(&out)->value_name("FILE"),
        "write the sweep as JSON to FILE, rewritten after every repetition")(
        "json", po::bool_switch(&o.json), "print the sweep as JSON instead of tables")(
        "dry-run", po::bool_switch(&o.dry_run),
        "print the plan and change nothing (no root needed)")(
        "root", po::value(&root)->value_name("DIR"),
        "with --dry-run: plan for a tree gathered from another machine");
    po::variables_map vm;
    if (!parse_options(
            "sweep",
            "hugetune sweep [--threads LIST] [--repetitions R] [--phases LIST]\n"
            "                      [--page-size 2M|1G] [--sample-mib MIB] "
            "[--max-memory-fraction F]\n"
            "                      [--seed S] [--out FILE] [--json] [--dry-run [--root DIR]]",
            desc, args, vm))
        return std::nullopt;
    o.sweep.threads_per_node = parse_thread_list(threads);
    o.sweep.phases = parse_phase_list(phases);
    o.sweep.repetitions = repetitions;
    if (repetitions < 1 || repetitions > 1000)
        usage_error("--repetitions", "use 1 to 1000");
    auto kb = parse_memsize_kb(page_size);
    if (!kb || *kb == 0)
        usage_error("--page-size", "'" + page_size + "' is not a size; use 2M or 1G");
    o.sweep.page_size_kb = *kb;
    if (vm.count("sample-mib")) {
        if (sample_mib < 1)
            usage_error("--sample-mib", "give a positive number of MiB, e.g. 256");
        o.sweep.sample_mib_per_node = static_cast<std::uint64_t>(sample_mib);
    }
    o.sweep.seed = seed;
    if (!out.empty())
        o.out = out;
    if (!root.empty()) {
        if (!o.dry_run)
            usage_error("--root", "only works with --dry-run (a sweep measures this machine)");
        std::error_code ec;
        if (!std::filesystem::is_directory(root, ec))
            usage_error("--root", root + " is not a directory; give the root of a gathered tree");
        o.root = root;
    }
    return o;
}

// Rewrites --out after every repetition and draws the progress line when stderr is a terminal.
class ConsoleProgress : public ProgressSink {
  public:
    explicit ConsoleProgress(std::optional<std::filesystem::path> out)
        : out_(std::move(out)), tty_(isatty(STDERR_FILENO) == 1) {}
    ~ConsoleProgress() override { clear(); }
    ConsoleProgress(const ConsoleProgress&) = delete;
    ConsoleProgress& operator=(const ConsoleProgress&) = delete;

    void on_repetition(const SweepProgress& p, const SweepResult& so_far) override {
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
    void on_note(const std::string& note) override {
        clear();
        std::fprintf(stderr, "hugetune: %s\n", note.c_str());
    }
    void clear() {
        if (!drawn_)
            return;
        std::fprintf(stderr, "\r\033[K");
        std::fflush(stderr);
        drawn_ = false;
    }

  private:
    std::optional<std::filesystem::path> out_;
    bool tty_;
    bool drawn_ = false;
};

}  // namespace

int run_sweep_command(const Args& args) {
    auto options = parse_sweep(args);
    if (!options)
        return 0;
    if (options->dry_run) {
        KernelFs fs(options->root);
        Probe probe = probe_machine(fs);
        SweepPlan plan = plan_sweep(probe, read_memory_view(fs, probe), options->sweep);
        if (options->json)
            std::cout << to_json(plan).dump(2) << "\n";
        else
            std::cout << format_plan(plan);
        return 0;
    }
    if (geteuid() != 0)
        throw NotRootError(
            "a sweep changes huge page pools and needs root; run it with sudo, or "
            "use --dry-run to see the plan");
    KernelFs fs("/");
    if (!fs.exists("/sys/kernel/mm/hugepages"))
        throw UnsupportedError(
            "this kernel has no hugetlb support (/sys/kernel/mm/hugepages is missing)");
    if (options->out)
        check_writable_path(*options->out, "--out");
    Probe probe = probe_machine(fs);
    SweepResult result;
    {
        ConsoleProgress progress(options->out);
        result = run_sweep(fs, probe, options->sweep, &progress);
    }
    if (options->out)
        write_file_atomically(*options->out, to_json(result).dump(2) + "\n");
    if (options->json)
        std::cout << to_json(result).dump(2) << "\n";
    else
        std::cout << format_tables(result);
    return 0;
}

}  // namespace hugetune::cli
