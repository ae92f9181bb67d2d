// /etc/kernel/cmdline: the command line kernel-install (systemd-boot, and RHEL's grubby
// setup) gives to kernels installed from now on. Plain text, blank-separated parameters.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace hugetune::boot {

inline constexpr std::string_view kKernelCmdlineFile = "/etc/kernel/cmdline";

// Removes every hugepage_alloc_threads= parameter and, when `value` is set, puts one back
// (in place of the first, or at the end). Keeps every other byte. Throws UsageError naming
// `path` for binary data.
std::string edit_kernel_cmdline_text(const std::string& path, const std::string& text,
                                     const std::optional<std::string>& value);

// The value the text gives the kernel (the last one it accepts: kernel_alloc_threads).
std::optional<std::string> kernel_cmdline_alloc_threads(const std::string& text);

}  // namespace hugetune::boot
