// /proc/cmdline as the kernel reads it: blank-separated parameters, double quotes group blanks
// and are dropped only where they open a word or its value, and every occurrence of a parameter
// goes to its handler, which decides whether a later one overrides an earlier one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hugetune {

struct CmdlineParam {
    std::string name;
    std::optional<std::string> value;  // absent for a bare flag like "quiet"
    std::string raw;                   // the token as written, quotes kept
    // name and value are as next_arg() hands them on: a '"' inside a word stays in it.
};

struct KernelCmdline {
    std::vector<CmdlineParam> params;         // in order, repeats kept
    std::optional<std::string> init_args;     // what follows a bare "--", as written
    std::size_t init_at = std::string::npos;  // the byte offset of that "--", if there is one

    // The value of the last occurrence of `name` (the kernel's rule for most parameters), its
    // name matched as the kernel matches it (same_param_name).
    std::optional<std::string> last(std::string_view name) const;
};

// Tokenises a kernel command line as parse_args() and next_arg() do (docs/kernel-facts.md
// "Kernel command line syntax"). Everything after a bare "--" goes to init: it is kept apart in
// `init_args`, never read as parameters.
KernelCmdline parse_kernel_cmdline(std::string_view text);

// What the kernel makes of a command line's hugepage_alloc_threads=: each occurrence with a
// value goes to hugepage_alloc_threads_setup(), which keeps the count it had for 0 and for what
// kstrtoul() refuses, so the last accepted occurrence sets it, not the last one; a bare name is
// not the parameter (docs/kernel-facts.md "Parsing the value"). verify, rollback and apply read
// the value the kernel gets only through this.
struct AllocThreadsOnCmdline {
    std::optional<std::uint64_t> threads;  // the count the kernel ends with; nothing: its default
    std::optional<std::string> value;      // the occurrence that set it, its value as handed on
    std::vector<std::string> ignored;      // the values the handler kept the count for, in order

    // The value to name: the one in force, else the last ignored one.
    std::optional<std::string> shown() const;
};
AllocThreadsOnCmdline kernel_alloc_threads(const KernelCmdline& cmdline);
AllocThreadsOnCmdline kernel_alloc_threads(std::string_view cmdline);

// The byte offset of the first bare "--" token of `text` (outside double quotes), where the
// init arguments begin, or npos when there is none.
std::size_t init_args_offset(std::string_view text);

// The command line as text again: the raw tokens joined by one blank, then " -- " and the init
// arguments when there are any. Two lines that differ only in blanks between tokens give the
// same text.
std::string cmdline_text(const KernelCmdline& cmdline);

// Whether two parameter names are one parameter to the kernel: parameqn() (kernel/params.c)
// treats '-' and '_' alike, so hugepage-alloc-threads= sets hugepage_alloc_threads
// (docs/kernel-facts.md "Parsing the value"). Every reader of a parameter name asks this.
bool same_param_name(std::string_view a, std::string_view b);

// The parameters hugetune cares about, for reports.
bool is_hugetlb_param(std::string_view name);

// Size strings as the kernel's memparse: "2M", "1G", "2048k", "1073741824". Returns KiB. The
// inverse is page_size_text(kb, SizeStyle::cmdline) (model/text.hpp).
std::optional<std::uint64_t> parse_memsize_kb(std::string_view text);

// kstrtoul(s, 0, ...): an optional leading '+', then decimal, 0x-hex or 0-octal.
std::optional<std::uint64_t> parse_kernel_ulong(std::string_view text);

// kstrtobool as the kernel uses for init_on_alloc=: 1/y/Y/on -> true, 0/n/N/off -> false.
std::optional<bool> parse_kernel_bool(std::string_view text);

}  // namespace hugetune
