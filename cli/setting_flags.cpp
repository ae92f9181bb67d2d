#include "cli/setting_flags.hpp"

namespace hugetune::cli {

const std::vector<SettingFlag>& setting_flags() {
    static const std::vector<SettingFlag> all = {
        {"threads_per_node", "--threads"},
        {"repetitions", "--repetitions"},
        {"phases", "--phases"},
        {"max_memory_fraction", "--max-memory-fraction"},
        {"page_size", "--page-size"},
        {"sample_mib_per_node", "--sample-mib"},
        {"seed", "--seed"},
        {"bootloader", "--bootloader", true},
        {"report", "--report", true},
        {"value", "--value"},
        {"regenerate", "--no-regenerate"},
        {"boot_pool", "--boot-pages/--boot-gib"},
        {"root", "--root"},
        {"threads", "--threads"},
        {"pages", "--pages"},
        {"gib", "--gib"},
        {"kernel_image", "--kernel"},
        {"initrd", "--initrd"},
        {"state", "--state"},
    };
    return all;
}

std::optional<SettingFlag> setting_flag(std::string_view setting) {
    for (const auto& entry : setting_flags())
        if (entry.setting == setting)
            return entry;
    return std::nullopt;
}

std::string setting_error_text(const SettingError& error) {
    auto entry = setting_flag(error.setting);
    if (!entry)
        return error.setting + ": " + error.what();
    return std::string(entry->flag) + (entry->message_starts_with_value ? " " : ": ") +
           error.what();
}

}  // namespace hugetune::cli
