// Planning a boot sweep: from plain facts about the running machine and what the caller asks,
// the list of boots to make, each a kexec into the running kernel with an explicit command line
// (docs/kernel-facts.md "Booting a kernel with kexec"). Pure: no I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tuner/kernel/kernel_files.hpp"

namespace hugetune::boot_sweep {

// The running machine, as the caller read it.
struct MachineFacts {
    std::string kernel_release;
    int online_cpus = 1;
    int nodes = 1;  // NUMA nodes with memory and CPUs
    std::uint64_t memory_total_bytes = 0;
    bool kexec_found = false;
    // kexec's switches (docs/kernel-facts.md "Kernel lockdown", "kexec switched off"); nothing:
    // the kernel does not say.
    std::optional<LockdownMode> lockdown;
    std::optional<KexecSysctl> kexec_load_disabled;
    std::optional<KexecSysctl> kexec_load_limit_reboot;  // Linux 6.6+; -1: no limit
    std::optional<std::string> kernel_image;  // found on disk: /boot/vmlinuz-RELEASE or given
    std::optional<std::string> initrd;        // found on disk, or given
    std::string initrd_looked_for;            // where, for the refusal when none was found
    std::string original_cmdline;             // /proc/cmdline
    // /proc/sys/vm/hugetlb_optimize_vmemmap exists: the kernel can do HVO, so
    // hugetlb_free_vmemmap= on its command line means something (docs/kernel-facts.md "HVO").
    bool hvo_sysctl = false;
    model::PageSizeFacts page_sizes;  // the default size and which sizes are gigantic
};

// The kernel settings one boot of the sweep sets besides the pool; nothing: as the original
// command line has it.
struct BootSettings {
    std::optional<bool> init_on_alloc;         // init_on_alloc=0|1
    std::optional<bool> hugetlb_free_vmemmap;  // hugetlb_free_vmemmap=off|on

    bool operator==(const BootSettings&) const = default;
};

// "init_on_alloc=1 hugetlb_free_vmemmap=off", what a setting left as it is shows as
// ("init_on_alloc as booted"), for people.
std::string settings_text(const BootSettings& settings);

// What the caller asks for; unset fields take the defaults below.
struct Request {
    std::vector<int> threads;  // totals, as the kernel takes them; empty: the default list
    std::optional<std::uint64_t> pages;
    std::optional<double> gib;
    std::uint64_t page_size_kb = 0;  // 0: the kernel's default huge page size
    int repetitions = kDefaultRepetitions;
    // The values to boot with, each on every thread count; empty: keep what the original
    // command line says. Two values make a second dimension of the sweep.
    std::vector<bool> init_on_alloc;
    std::vector<bool> hugetlb_free_vmemmap;
    bool no_initrd = false;  // the kernel boots without one

    static constexpr int kDefaultRepetitions = 3;
};

inline constexpr int kMaxRepetitions = 20;
// The pool may take at most this share of the memory: the boot after the allocation still
// needs the rest for the kernel, the initrd and the continue step.
inline constexpr double kMaxPoolMemoryFraction = 0.75;
// A kexec boot skips the firmware; the estimate allows this long for the kernel to come up and
// reach the continue step, plus the allocation at a pessimistic rate per thread.
inline constexpr double kBootOverheadSeconds = 60;
inline constexpr double kGibPerSecondPerThread = 1;

struct Step {
    int threads = 1;     // hugepage_alloc_threads=, a total
    int repetition = 1;  // 1-based
    std::string cmdline;
    BootSettings settings;  // derived with the command line, never read from a saved step
};

struct Plan {
    std::string kernel_release;
    std::string kernel_image;
    std::optional<std::string> initrd;
    std::string original_cmdline;
    std::uint64_t page_size_kb = 2048;
    std::uint64_t pages = 0;
    int nodes = 1;
    int online_cpus = 1;
    // As Request has them, in the order given; empty: kept as the original command line has it.
    std::vector<bool> init_on_alloc;
    std::vector<bool> hugetlb_free_vmemmap;
    std::vector<int> threads;  // ascending
    int repetitions = 1;
    // Repetition by repetition, each over every setting (init_on_alloc outer, then
    // hugetlb_free_vmemmap) and within it every thread count.
    std::vector<Step> steps;
    double estimated_seconds = 0;
};

// Every combination of the plan's settings, in step order; one of nothing set when it sets none.
std::vector<BootSettings> plan_settings(const Plan& plan);

// The command line of one step: `original` without any hugepages=, hugepagesz=,
// default_hugepagesz=, hugepage_alloc_threads= tokens (and init_on_alloc=,
// hugetlb_free_vmemmap= where `settings` sets them), then "hugepagesz=SIZE hugepages=PAGES
// hugepage_alloc_threads=T", "init_on_alloc=0|1" and "hugetlb_free_vmemmap=on|off" where set;
// init arguments after "--" stay last.
std::string step_cmdline(const std::string& original, std::uint64_t page_size_kb,
                         std::uint64_t pages, int threads, const BootSettings& settings = {});

// Every step of `plan`, derived from its fields alone (original command line, pool, thread
// counts, repetitions): what make_plan lists, and what a saved plan's steps must be.
std::vector<Step> plan_steps(const Plan& plan);

// The default thread counts: 1, 2, 4, 8, 16, 32 per node times the nodes, capped at the CPUs,
// plus the kernel's default, ascending, without repeats.
std::vector<int> default_thread_totals(int nodes, int online_cpus);

// Throws UnsupportedError (kernel before 6.15, no kexec, kexec switched off or locked down,
// hugetlb_free_vmemmap values on a kernel without HVO), SettingError (a bad request) or
// RuntimeError (the pool does not fit), each naming the fix.
Plan make_plan(const MachineFacts& facts, const Request& request);

// Each step's command line and the estimate, for people.
std::string format_plan(const Plan& plan);

}  // namespace hugetune::boot_sweep
