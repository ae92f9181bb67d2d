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
    std::optional<bool> kexec_load_disabled;
    std::optional<std::string> kernel_image;  // found on disk: /boot/vmlinuz-RELEASE or given
    std::optional<std::string> initrd;        // found on disk, or given
    std::string initrd_looked_for;            // where, for the refusal when none was found
    std::string original_cmdline;             // /proc/cmdline
    model::PageSizeFacts page_sizes;          // the default size and which sizes are gigantic
};

// What the caller asks for; unset fields take the defaults below.
struct Request {
    std::vector<int> threads;  // totals, as the kernel takes them; empty: the default list
    std::optional<std::uint64_t> pages;
    std::optional<double> gib;
    std::uint64_t page_size_kb = 0;  // 0: the kernel's default huge page size
    int repetitions = kDefaultRepetitions;
    std::optional<bool> init_on_alloc;  // nullopt: keep what the original command line says
    bool no_initrd = false;             // the kernel boots without one

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
    std::optional<bool> init_on_alloc;
    std::vector<int> threads;  // ascending
    int repetitions = 1;
    std::vector<Step> steps;  // repetition by repetition, each over every thread count
    double estimated_seconds = 0;
};

// The command line of one step: `original` without any hugepages=, hugepagesz=,
// default_hugepagesz=, hugepage_alloc_threads= (and init_on_alloc= when `init_on_alloc` is
// set) tokens, then "hugepagesz=SIZE hugepages=PAGES hugepage_alloc_threads=T" and
// "init_on_alloc=0|1" when set; init arguments after "--" stay last.
std::string step_cmdline(const std::string& original, std::uint64_t page_size_kb,
                         std::uint64_t pages, int threads, std::optional<bool> init_on_alloc);

// Every step of `plan`, derived from its fields alone (original command line, pool, thread
// counts, repetitions): what make_plan lists, and what a saved plan's steps must be.
std::vector<Step> plan_steps(const Plan& plan);

// The default thread counts: 1, 2, 4, 8, 16, 32 per node times the nodes, capped at the CPUs,
// plus the kernel's default, ascending, without repeats.
std::vector<int> default_thread_totals(int nodes, int online_cpus);

// Throws UnsupportedError (kernel before 6.15, no kexec, kexec switched off or locked down),
// SettingError (a bad request) or
// RuntimeError (the pool does not fit), each naming the fix.
Plan make_plan(const MachineFacts& facts, const Request& request);

// Each step's command line and the estimate, for people.
std::string format_plan(const Plan& plan);

}  // namespace hugetune::boot_sweep
