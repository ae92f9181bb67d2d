// rpm-ostree systems (Fedora CoreOS, Fedora Atomic desktops, RHEL for Edge and image mode;
// docs/kernel-facts.md "ostree systems"). /run/ostree-booted marks them. Each deployment keeps
// its own kernel arguments in its boot entry, /boot/loader/entries/ostree-N-OS.conf (or
// ostree-N.conf), the default deployment with the highest N; neither /etc/default/grub nor
// /etc/kernel/cmdline reaches the kernel. `rpm-ostree kargs` changes them by staging a new
// deployment, which becomes the default at the next boot.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tuner/boot/regenerate.hpp"
#include "tuner/kernel/kernel_fs.hpp"

namespace hugetune::boot {

inline constexpr std::string_view kOstreeBooted = "/run/ostree-booted";
// ostree's record of a deployment staged for the next boot (ostree-sysroot-private.h).
inline constexpr std::string_view kOstreeStaged = "/run/ostree/staged-deployment";

bool is_ostree_system(const KernelFs& root);

struct OstreeDeployment {
    std::string entry;                // target path of its boot entry
    std::string kernel;               // its linux line
    std::string options;              // its kernel arguments
    std::vector<std::string> values;  // every hugepage_alloc_threads= among them, in order
};

// The default deployment's boot entry. Throws RuntimeError when there is none and UsageError
// when a staged deployment, whose arguments are not in any entry yet, would take its place.
OstreeDeployment read_default_deployment(const KernelFs& root);

// The rpm-ostree kargs command that turns arguments holding `current` (the parameter's values
// now) into ones holding `value` (nothing: none), or nothing when they already do. Throws
// UsageError when `current` holds several values (rpm-ostree replaces only a single one).
std::optional<Argv> ostree_kargs_command(const std::vector<std::string>& current,
                                         const std::optional<std::string>& value);

}  // namespace hugetune::boot
