// Variables grub expands when it boots an entry (docs/kernel-facts.md "Variables grub expands
// at boot"): a `$name` or `${name}` left in the command line after the shell, on a linux line of
// grub.cfg or on a BLS entry's options line (blscfg expands both alike). grub takes their values
// from its environment block (grubenv, loaded by grub.cfg's load_env) or from `set` commands in
// grub.cfg; tuned sets $tuned_params. A variable whose value hugetune cannot read, or that holds
// another hugepage_alloc_threads=, is refused: it comes where it is written, often after the
// value hugetune writes. systemd-boot expands nothing, so its entries are not checked.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tuner/boot/tuned.hpp"
#include "tuner/kernel/kernel_fs.hpp"

namespace hugetune::boot {

struct GrubVariableRef {
    std::string name;
    std::size_t offset = 0;  // of the '$' in the text
};

// Every $name and ${name} in `text`, in order.
std::vector<GrubVariableRef> grub_variable_refs(std::string_view text);

struct GrubEnv {
    std::string path;  // target path of the block read; empty when there is none
    std::map<std::string, std::string, std::less<>> values;
};

// /boot/grub2/grubenv (Fedora, RHEL), else /boot/grub/grubenv (Debian, Ubuntu).
GrubEnv read_grubenv(const KernelFs& root);

struct BootVariables {
    GrubEnv grubenv;
    TunedState tuned;
};

// Checks one reference found in the text of `where` (a file, or FILE:LINE): throws UsageError
// naming it, what it holds and the fix when it could give the kernel a hugepage_alloc_threads=
// other than `value`; adds a warning (once) when tuned is active and its $tuned_params follows.
void check_grub_variable(const GrubVariableRef& ref, const std::string& where,
                         const BootVariables& vars, const std::string& value,
                         std::vector<std::string>& warnings);

}  // namespace hugetune::boot
