// Boot Loader Specification type #1 entries that kernel-install writes for systemd-boot
// (docs/kernel-facts.md "Setting the kernel command line"): $BOOT/loader/entries/*.conf, one
// per installed kernel, each with the command line it was installed with on its `options`
// lines. /etc/kernel/cmdline reaches only kernels installed later, so apply edits these too.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tuner/boot/config_file.hpp"
#include "tuner/kernel/kernel_fs.hpp"

namespace hugetune::boot {

// kernel-install looks for $BOOT in this order (kernel-install(8), "The $BOOT partition").
inline constexpr std::string_view kBootDirs[] = {"/efi", "/boot", "/boot/efi"};

struct BootEntries {
    std::optional<std::string> entry_token;  // nothing: neither token file exists
    std::string token_source;                // "/etc/kernel/entry-token" or "/etc/machine-id"
    std::vector<ConfigFile> own;             // entries named "<token>-*.conf", sorted by path
    std::vector<std::string> others;         // target paths of every other entry
};

// The entries under /efi, /boot and /boot/efi (kernel-install's order), read with
// read_config_file: throws UsageError for one that is a symlink or not a regular file.
BootEntries read_boot_entries(const KernelFs& root);

// Sets hugepage_alloc_threads=`value` on the entry's options (in place of the first one, the
// others removed), or removes it when there is no value; adds an options line to an entry that
// has none. Keeps every other byte. Throws UsageError naming `path` for binary data.
std::string edit_boot_entry_text(const std::string& path, const std::string& text,
                                 const std::optional<std::string>& value);

// The value the entry's options give the kernel (the last one it accepts: kernel_alloc_threads).
std::optional<std::string> boot_entry_alloc_threads(const std::string& text);

}  // namespace hugetune::boot
