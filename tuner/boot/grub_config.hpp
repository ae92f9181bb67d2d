// /etc/default/grub and its drop-ins as grub-mkconfig reads them: the main file first, then
// /etc/default/grub.d/*.cfg in glob order (Debian and Ubuntu; docs/kernel-facts.md "Setting
// the kernel command line"). GRUB_CMDLINE_LINUX goes on every menu entry,
// GRUB_CMDLINE_LINUX_DEFAULT only on normal ones, after it; a later assignment replaces an
// earlier one.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tuner/boot/shell_fragment.hpp"

namespace hugetune::boot {

inline constexpr std::string_view kCmdlineVar = "GRUB_CMDLINE_LINUX";
inline constexpr std::string_view kCmdlineDefaultVar = "GRUB_CMDLINE_LINUX_DEFAULT";

inline bool is_cmdline_variable(std::string_view name) {
    return name == kCmdlineVar || name == kCmdlineDefaultVar;
}

struct GrubSource {
    std::string path;  // as on the target machine, e.g. "/etc/default/grub"
    std::string text;
    ShellFragment parsed;
};

// Parses one source; a ShellParseError becomes a UsageError "PATH:LINE: problem; fix".
GrubSource parse_grub_source(std::string path, std::string text);

struct AssignmentRef {
    std::size_t source = 0;  // index into the sources
    std::size_t assignment = 0;
};

// The assignment of `name` that takes effect: the last one, drop-ins after the main file.
std::optional<AssignmentRef> effective_assignment(const std::vector<GrubSource>& sources,
                                                  std::string_view name);

// The command line grub puts on a normal entry, "${GRUB_CMDLINE_LINUX}
// ${GRUB_CMDLINE_LINUX_DEFAULT}", with $NAME references to earlier assignments expanded and
// other expansions left out.
std::string evaluated_cmdline(const std::vector<GrubSource>& sources);

// The value of hugepage_alloc_threads= a normal entry would give the kernel (the last one it
// accepts: kernel_alloc_threads).
std::optional<std::string> effective_alloc_threads(const std::vector<GrubSource>& sources);

struct GrubEdit {
    std::vector<std::string> new_texts;  // one per source, equal to the old text if unchanged
    std::string target_path;             // where the parameter now is (or was removed from)
    std::vector<std::string> notes;      // for the user: which file wins, drop-ins edited
};

// Removes every hugepage_alloc_threads= token from every GRUB_CMDLINE_LINUX and
// GRUB_CMDLINE_LINUX_DEFAULT assignment, then (value set) puts one into the effective
// GRUB_CMDLINE_LINUX, or appends that variable to the main file when no file sets it.
// `value` must pass is_safe_param_value. Throws UsageError (unknown_part_message) when the
// command line holds a part only the shell could evaluate (grub_evaluation.hpp), and when a
// parameter reaching it through another variable would still win.
GrubEdit plan_grub_edit(const std::vector<GrubSource>& sources,
                        const std::optional<std::string>& value);

// Single-file form (the fuzz target and golden tests use it).
std::string edit_grub_text(const std::string& text, const std::optional<std::string>& value);

}  // namespace hugetune::boot
