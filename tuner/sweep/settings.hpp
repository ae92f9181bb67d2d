// Every sweep setting's default and valid range, defined once. SweepOptions (plan.hpp) takes
// its defaults from here; plan_sweep and the command line refuse values with
// validate_sweep_options(); the command line's help states them from these constants.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "model/alloc_threads.hpp"

namespace hugetune {

enum class Phase { alloc, zero, grow };

// Where the sweep's threads run and where their pages come from (docs/kernel-facts.md "The
// sweep against the boot"). boot: as the kernel's boot workers, placed by padata round-robin
// over the nodes with CPUs, each chunk's pages taken from every memory node in turn.
// node_local: each thread pinned to a CPU of one node and its pages bound to that node, for
// diagnosis (it leaves out remote zeroing and the zone locks every worker shares at boot).
enum class Placement { boot, node_local };
inline constexpr Placement kDefaultPlacement = Placement::boot;

struct SweepOptions;

// Doubling steps up to 32 per node: few points that span a wide range of counts.
inline constexpr std::array<int, 6> kDefaultThreadsPerNode = {1, 2, 4, 8, 16, 32};
inline constexpr int kMinThreadsPerNode = 1;
inline constexpr int kMaxThreadsPerNode = static_cast<int>(kMaxAllocThreads);

inline constexpr int kDefaultRepetitions = 5;
inline constexpr int kMinRepetitions = 1;
inline constexpr int kMaxRepetitions = 1000;

// The adaptive rule (tuner/sweep/adaptive.hpp), the default where no fixed count is asked for.
// It first measures every point once. A point that cannot change the decision (one that
// oversubscribes a node, or alone in its phase) keeps that sample; the candidates weighed
// against each other are timed again until each is settled, from two samples a side (the tests
// on the noise pooled over every candidate, model/fit/noise_test.hpp; the rank test,
// model/fit/rank_test.hpp, from three).
inline constexpr int kAdaptiveFirstRounds = 1;
// The most samples it gives a point: the fixed count it replaces, so it never measures more
// than that count did and a point it leaves open has today's evidence.
inline constexpr int kAdaptiveMaxRepetitions = kDefaultRepetitions;

inline constexpr std::array<Phase, 3> kDefaultPhases = {Phase::alloc, Phase::zero, Phase::grow};

// --page-size not given: the kernel's default huge page size (Hugepagesize in /proc/meminfo),
// which the plan reads from the probe.
inline constexpr std::uint64_t kKernelDefaultPageSize = 0;
inline constexpr std::string_view kKernelDefaultPageSizeText =
    "the kernel's default huge page size, Hugepagesize in /proc/meminfo";

// 1 GiB per node: at 32 threads per node every thread still faults 16 pages of 2 MiB, so the
// release skew of the start barrier (tens of microseconds) stays small against each thread's
// work, and the sweep holds at most two samples per node, a small share of a server's node.
// Not given and too large for a node's free memory, the default halves until it fits (a small
// VM); a sample that is given and does not fit is refused instead. The sample is per node, so
// it does not grow with the machine's memory.
inline constexpr std::uint64_t kDefaultSampleMib = 1024;

// The share of a node's available memory the sweep may hold at once: above 0 and at most
// kMaxMaxMemoryFraction, so the sweep never takes all the memory a node has free.
inline constexpr double kDefaultMaxMemoryFraction = 0.5;
inline constexpr double kMaxMaxMemoryFraction = 0.9;

inline constexpr std::uint64_t kDefaultSeed = 1;

// Throws SettingError (setting names "threads_per_node", "repetitions", "phases",
// "max_memory_fraction", "budget_seconds") for a value outside the ranges above. What depends on
// the machine (page size, sample against free memory) is checked by plan_sweep.
void validate_sweep_options(const SweepOptions& options);

}  // namespace hugetune
