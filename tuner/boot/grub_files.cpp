#include "tuner/boot/grub_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <optional>
#include <string>

#include "model/errors.hpp"
#include "tuner/system/owned_fd.hpp"

namespace hugetune::boot {

namespace {

// A drop-in reached through a symlink is read (grub-mkconfig sources it) but never edited.
std::optional<ConfigFile> read_dropin(const KernelFs& root, const std::string& target,
                                      bool& editable) {
    if (root.root_dir().directory(target))
        return std::nullopt;
    const OwnedFd entry = root.root_dir().open_path(target, O_PATH | O_NOFOLLOW);
    struct stat st {};
    editable = !(entry.valid() && fstat(entry.get(), &st) == 0 && S_ISLNK(st.st_mode));
    if (editable)
        return read_config_file(root, target);
    auto text = root.read(target);
    if (!text)
        return std::nullopt;
    return ConfigFile{target, *text};
}

}  // namespace

// Sorted by name, as the shell's glob is; hugetune sorts bytewise, as the C locale does.
GrubFiles load_grub(const KernelFs& root) {
    GrubFiles g;
    auto main = read_config_file(root, std::string(kGrubMain));
    if (!main)
        return g;
    if (main->text.find_first_not_of(" \t\r\n") == std::string::npos)
        throw UsageError(std::string(kGrubMain) +
                         " is empty; a real one sets at least GRUB_DEFAULT and "
                         "GRUB_CMDLINE_LINUX. Restore it from the grub package or its backup "
                         "before applying");
    g.sources.push_back(parse_grub_source(main->target_path, main->text));
    g.files.push_back(std::move(*main));
    g.editable.push_back(true);
    // grub-mkconfig sources grub.d/*.cfg: the shell's * matches no name that starts with a dot.
    for (const auto& name : root.list(kGrubDropins)) {
        if (!name.ends_with(".cfg") || name.starts_with("."))
            continue;
        bool editable = true;
        auto file = read_dropin(root, std::string(kGrubDropins) + "/" + name, editable);
        if (!file)
            continue;
        g.sources.push_back(parse_grub_source(file->target_path, file->text));
        g.files.push_back(std::move(*file));
        g.editable.push_back(editable);
    }
    return g;
}

std::vector<GrubSource> parse_grub_texts(const GrubFiles& grub,
                                         const std::vector<std::string>& texts) {
    std::vector<GrubSource> out;
    for (std::size_t i = 0; i < texts.size(); ++i)
        out.push_back(parse_grub_source(grub.files[i].target_path, texts[i]));
    return out;
}

}  // namespace hugetune::boot
