// The kernel command line grub-mkconfig builds for a normal menu entry, evaluated without
// running the shell: /etc/default/grub and its drop-ins sourced in order, then
// "${GRUB_CMDLINE_LINUX} ${GRUB_CMDLINE_LINUX_DEFAULT}" (docs/kernel-facts.md "What
// grub-mkconfig does with /etc/default/grub"). A $NAME that an earlier line of these files sets
// is expanded to what that line gave it. Anything only running the shell would tell is an
// unknown part: command substitution (`...` or $(...)), arithmetic, a ${...} with an operator,
// a special or positional parameter, and a variable no earlier line sets (grub-mkconfig would
// take it from its own variables or its environment). GRUB_CMDLINE_LINUX and
// GRUB_CMDLINE_LINUX_DEFAULT start empty, as the stock files assume when they append to them.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tuner/boot/grub_config.hpp"

namespace hugetune::boot {

// An assignment of the sources: which file, which of its assignments.
struct AssignmentAt {
    std::size_t source = 0;
    std::size_t assignment = 0;
};

struct CmdlineChar {
    char ch = 0;
    // The assignment whose literal text holds it; nothing for the blank grub-mkconfig puts
    // between the two variables.
    std::optional<AssignmentAt> written_by;
};

// A part of the command line whose value hugetune cannot know.
struct UnknownPart {
    AssignmentAt at;        // the assignment where the construct is written
    std::string construct;  // as written
    std::string what;       // "command substitution", ...
    bool unset_variable = false;
    // When the construct is outside the command line variables: the reference that brings it
    // into one of them ($through_name in the assignment `through`).
    std::optional<AssignmentAt> through;
    std::string through_name;
};

struct EvaluatedCmdline {
    std::vector<CmdlineChar> chars;
    std::optional<UnknownPart> unknown;  // the first one, in command line order
    std::string text() const;
};

// Throws UsageError when self-references make a value larger than 64 KiB.
EvaluatedCmdline evaluate_cmdline(const std::vector<GrubSource>& sources);

// The assignment that wrote the last `name=` token of the command line, if it came from one.
std::optional<AssignmentAt> last_param_origin(const EvaluatedCmdline& cmdline,
                                              std::string_view name);

// One line for the user: where the unknown part is, what it is, why it matters and the fix.
std::string unknown_part_message(const std::vector<GrubSource>& sources, const UnknownPart& part);

}  // namespace hugetune::boot
