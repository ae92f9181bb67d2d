#include "tuner/boot/regenerate.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/enum_names.hpp"
#include "model/errors.hpp"
#include "model/text.hpp"
#include "tuner/boot/kernel_cmdline_file.hpp"
#include "tuner/boot/token_edit.hpp"
#include "tuner/kernel/cmdline.hpp"
#include "tuner/system/effects.hpp"
#include "tuner/system/owned_fd.hpp"

namespace hugetune::boot {
namespace {

constexpr auto kBootloaderNames =
    enum_names<Bootloader>({{Bootloader::grub, "grub"},
                            {Bootloader::grubby, "grubby"},
                            {Bootloader::kernel_cmdline, "kernel-cmdline"},
                            {Bootloader::ostree, "ostree"}});

constexpr std::string_view kBlsDir = "/boot/loader/entries";

std::optional<std::string> grub_variable(const std::vector<GrubSource>& grub,
                                         std::string_view name) {
    auto ref = effective_assignment(grub, name);
    if (!ref)
        return std::nullopt;
    return literal_text(grub[ref->source].parsed.assignments[ref->assignment].value);
}

}  // namespace

std::string bootloader_name(Bootloader b) {
    return std::string(name_of(kBootloaderNames, b));
}

std::optional<Bootloader> parse_bootloader_name(std::string_view name) {
    return value_named(kBootloaderNames, name);
}

std::vector<BlsEntry> read_bls_entries(const KernelFs& root) {
    std::vector<BlsEntry> entries;
    for (const auto& name : root.list(kBlsDir)) {
        if (!name.ends_with(".conf"))
            continue;
        std::string path = std::string(kBlsDir) + "/" + name;
        auto text = root.read(path);
        if (!text)
            continue;
        BlsEntry e;
        e.path = path;
        std::size_t at = 0;
        while (at < text->size()) {
            std::size_t nl = text->find('\n', at);
            std::string line(
                trim(std::string_view(*text).substr(at, nl == std::string::npos ? nl : nl - at)));
            at = nl == std::string::npos ? text->size() : nl + 1;
            if (line.starts_with("linux ") || line.starts_with("linux\t"))
                e.kernel = trim(std::string_view(line).substr(5));
            if (line.starts_with("options ") || line.starts_with("options\t"))
                e.options += (e.options.empty() ? "" : " ") + line.substr(8);
        }
        e.alloc_threads = kernel_alloc_threads(std::string_view(e.options)).value;
        entries.push_back(std::move(e));
    }
    return entries;
}

Detection detect_bootloader(const KernelFs& root, const std::vector<GrubSource>& grub) {
    if (!grub.empty()) {
        // GRUB_ENABLE_BLSCFG=true: grub reads /boot/loader/entries, whose options grubby edits
        // (RHEL 8 and later, Fedora 30 and later).
        bool bls = grub_variable(grub, "GRUB_ENABLE_BLSCFG") == std::optional<std::string>("true");
        if (bls && !read_bls_entries(root).empty())
            return {Bootloader::grubby,
                    "GRUB_ENABLE_BLSCFG=true and boot entries in /boot/loader/entries"};
        return {Bootloader::grub, "/etc/default/grub"};
    }
    if (root.exists(kKernelCmdlineFile))
        return {Bootloader::kernel_cmdline, "/etc/kernel/cmdline without /etc/default/grub"};
    throw RuntimeError("no boot loader configuration under " + root.root().string() +
                       ": neither /etc/default/grub nor /etc/kernel/cmdline exists; add "
                       "hugepage_alloc_threads= to the kernel command line by hand");
}

Argv grub_regenerate_command(const KernelFs& root) {
    if (root.exists("/etc/debian_version") || root.exists("/usr/sbin/update-grub"))
        return {"update-grub"};
    for (const char* cfg : {"/boot/grub2/grub.cfg", "/boot/grub/grub.cfg"}) {
        if (!root.exists(cfg))
            continue;
        Argv argv{"grub2-mkconfig", "-o", cfg};
        // The root's own grub2-mkconfig (a shell script) names the option in its usage text
        // when it has it; no program of this machine is run to learn about the root.
        for (const char* tool : {"/usr/sbin/grub2-mkconfig", "/usr/bin/grub2-mkconfig"})
            if (const auto text = root.read(tool)) {
                if (text->find("--update-bls-cmdline") != std::string::npos)
                    argv.push_back("--update-bls-cmdline");
                break;
            }
        return argv;
    }
    throw RuntimeError("no grub.cfg under " + root.shown("/boot") +
                       " (looked for /boot/grub2/grub.cfg and /boot/grub/grub.cfg); use " +
                       Flag{"regenerate"} + " and rebuild the boot menu by hand");
}

Argv grubby_command(const std::string& kernel, const std::optional<std::string>& value) {
    // grubby replaces an existing value of the parameter; the value must not be quoted.
    if (value)
        return {"grubby", "--update-kernel=" + kernel,
                "--args=" + std::string(kAllocThreadsParam) + "=" + *value};
    return {"grubby", "--update-kernel=" + kernel,
            "--remove-args=" + std::string(kAllocThreadsParam)};
}

std::string format_command(const Argv& argv) {
    return command_text(argv);
}

std::optional<std::string> program_in_root(const KernelFs& root, const std::string& name) {
    for (const char* dir :
         {"/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"}) {
        const std::string path = std::string(dir) + "/" + name;
        // An executable regular file, as access(X_OK) finds it for root: any execute bit.
        const OwnedFd fd = root.root_dir().open_path(path, O_PATH);
        struct stat st {};
        if (fd.valid() && fstat(fd.get(), &st) == 0 && S_ISREG(st.st_mode) &&
            (st.st_mode & (S_IXUSR | S_IXGRP | S_IXOTH)) != 0)
            return path;
    }
    return std::nullopt;
}

}  // namespace hugetune::boot
