// Which boot loader setup a target uses, and the distribution's own commands that rebuild
// its boot entries after the configuration changed (docs/kernel-facts.md "Setting the kernel
// command line").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tuner/boot/grub_config.hpp"
#include "tuner/kernel/kernel_fs.hpp"

namespace hugetune::boot {

enum class Bootloader {
    grub,            // /etc/default/grub, then update-grub or grub2-mkconfig
    grubby,          // BLS entries rewritten by grubby (RHEL, Fedora); /etc/default/grub kept too
    kernel_cmdline,  // /etc/kernel/cmdline only (kernel-install, systemd-boot)
    ostree,          // rpm-ostree kargs (ostree.hpp); detected, never chosen with --bootloader
};

std::string bootloader_name(Bootloader b);
// "grub", "grubby", "kernel-cmdline", "ostree"; nothing for anything else.
std::optional<Bootloader> parse_bootloader_name(std::string_view name);

struct Detection {
    Bootloader kind;
    std::string reason;  // what was found under the root
};

// `grub` holds the parsed /etc/default/grub and drop-ins (empty when the file is absent).
// Throws RuntimeError when the root holds no configuration hugetune can edit.
Detection detect_bootloader(const KernelFs& root, const std::vector<GrubSource>& grub);

using Argv = std::vector<std::string>;

// The command that rebuilds grub.cfg: update-grub on Debian and Ubuntu, else grub2-mkconfig
// -o on the grub.cfg that exists, with --update-bls-cmdline when the root's grub2-mkconfig
// offers it (RHEL 9.3 and later rewrite BLS entries only with it). Reads files only.
Argv grub_regenerate_command(const KernelFs& root);

// grubby setting hugepage_alloc_threads=`value` on `kernel` ("ALL", or an entry's `linux`
// path), or removing it when there is no value.
Argv grubby_command(const std::string& kernel, const std::optional<std::string>& value);

struct BlsEntry {
    std::string path;     // target path of the .conf file
    std::string kernel;   // its `linux` line
    std::string options;  // its `options` lines, joined with a blank
    std::optional<std::string> alloc_threads;
};
// /boot/loader/entries/*.conf, sorted by name.
std::vector<BlsEntry> read_bls_entries(const KernelFs& root);

// Shell-quoted for display; the commands themselves run from an argument vector.
std::string format_command(const Argv& argv);

// Where the root has the program `name` (its path inside the root), found in the usual
// directories of a root's PATH; nothing when it has none.
std::optional<std::string> program_in_root(const KernelFs& root, const std::string& name);

}  // namespace hugetune::boot
