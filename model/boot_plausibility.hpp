// What a boot allocation can be: the least time the kernel can take to zero a pool, and how far
// a measured time can lie from its prediction. verify judges a boot by these, and the
// verification block's reader refuses a block that calls verified what they rule out
// (docs/kernel-facts.md "The least time a zeroed boot pool takes", "How far a boot can lie from
// its prediction").
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace hugetune::model {

// Memory one NUMA node can be written at, at most: over six times the peak of twelve DDR5-6400
// channels (614 GB/s, the most a CPU socket has today) and over twice four HBM2e stacks
// (1.6 TB/s), so that no real machine zeroes faster.
inline constexpr double kZeroingCeilingBytesPerSecondPerNode = 4.0 * 1024 * 1024 * 1024 * 1024;

// The kernel times the boot allocation in jiffies; at HZ=100, the coarsest, a jiffy is 10 ms,
// so the true time may exceed the logged one by that much.
inline constexpr std::uint64_t kCoarsestJiffyMs = 10;

// The least milliseconds the kernel can take to zero `pages` pages of `page_size_kb` with at
// most `writers` nodes writing at once (the nodes, the threads and the CPUs all bound it: a
// thread zeroes on one CPU, no CPU writes faster than a node).
double least_zeroing_ms(std::uint64_t pages, std::uint64_t page_size_kb, std::uint64_t writers);

// Why `measured_ms` cannot be the kernel's time for zeroing that pool, or nothing when it can.
std::optional<std::string> faster_than_zeroing(std::uint64_t measured_ms, std::uint64_t pages,
                                               std::uint64_t page_size_kb, std::uint64_t writers);

// measured/predicted of a boot whose pool, page size, thread count and init_on_alloc are the
// prediction's. The boot repeats per page the work the sweep timed on the same machine, so the
// two part only by the threads' gain the fit missed (at most the 32 threads per node a sweep
// measures, between none and perfect scaling) times the state of the machine's memory (up to 4
// times seen, where a hypervisor backs it lazily or the boot follows a kexec).
inline constexpr double kMaxPlausibleRatio = 32.0 * 4.0;
inline constexpr double kMinPlausibleRatio = 1.0 / kMaxPlausibleRatio;

// Why `ratio` is no boot's measured/predicted, or nothing when it is within the range above.
std::optional<std::string> implausible_ratio(double ratio);

}  // namespace hugetune::model
