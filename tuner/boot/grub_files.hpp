// The files grub-mkconfig reads under a target root, as read and parsed, and which of them
// hugetune may edit.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tuner/boot/config_file.hpp"
#include "tuner/boot/grub_config.hpp"
#include "tuner/kernel/kernel_fs.hpp"

namespace hugetune::boot {

inline constexpr std::string_view kGrubMain = "/etc/default/grub";
inline constexpr std::string_view kGrubDropins = "/etc/default/grub.d";

struct GrubFiles {
    std::vector<ConfigFile> files;
    std::vector<bool> editable;  // false: a drop-in reached through a symlink
    std::vector<GrubSource> sources;
};

// The main file, then the drop-ins in the order of grub-mkconfig's `for x in
// /etc/default/grub.d/*.cfg`. Empty when the main file does not exist. Throws UsageError for
// an empty main file and for anything parse_grub_source refuses.
GrubFiles load_grub(const KernelFs& root);

// `texts` (one per file of `grub`) parsed as those files.
std::vector<GrubSource> parse_grub_texts(const GrubFiles& grub,
                                         const std::vector<std::string>& texts);

}  // namespace hugetune::boot
