// The kernel's rules for hugepage_alloc_threads= that the probe, the model and the boot checks
// share: which releases honour it and what it defaults to.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hugetune {

// The largest thread count hugetune accepts, measures, stores or writes, in total or per node,
// and the largest node count it reads: far above any machine's, so a larger value is a typing
// error or a broken or forged file. Every layer checks against these two.
inline constexpr std::uint64_t kMaxAllocThreads = 4096;
inline constexpr int kMaxNodes = 4096;

// A thread count as typed or stored: decimal digits only (no sign, blank or "0x"), from 1 to
// kMaxAllocThreads; nothing otherwise. `apply --value`, the ledger and verify read one with it.
std::optional<std::uint64_t> parse_thread_count(std::string_view text);

// A comma-separated list of thread counts as typed, "1,2,4,8" (a trailing comma ends it), each
// item digits as parse_thread_count takes them. The range is the caller's to check, in its own
// terms: per node (validate_sweep_options) or in total (boot-sweep).
struct ThreadCountList {
    std::vector<int> counts;                 // in the order given; empty when an item is refused
    std::optional<std::string> not_a_count;  // the first item that is not digits, as typed
};
ThreadCountList parse_thread_counts(std::string_view list);

// The kernel parameter that sets `threads` in total: "hugepage_alloc_threads=32", the only
// text hugetune ever prints or writes for it.
std::string alloc_threads_setting(std::uint64_t threads);

// Linux >= 6.15: hugepage_alloc_threads= is honoured (docs/kernel-facts.md "Honoured from 6.15").
bool release_supports_alloc_threads(int major, int minor);

// "6.14.2-300.fc42.x86_64": whether it is 6.15 or later; nothing when it cannot be read.
std::optional<bool> release_honours_alloc_threads(const std::string& release);

// Since 6.15 the default is max(1, num_online_cpus() / 4) threads in total
// (docs/kernel-facts.md "The default thread count").
int kernel_default_alloc_threads(int online_cpus);

}  // namespace hugetune
