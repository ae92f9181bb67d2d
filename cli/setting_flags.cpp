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
        {"init_on_alloc", "--init-on-alloc"},
        {"hugetlb_free_vmemmap", "--hugetlb-free-vmemmap"},
        {"input", "--input", true},
        {"boot_sweep", "--boot-sweep", true},
        {"sku", "--sku"},
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

std::string input_error_text(const model::InputError& error) {
    const model::InputSource& source = error.source();
    std::string where = source.name;
    if (!source.setting.empty()) {
        const auto entry = setting_flag(source.setting);
        const std::string flag = entry ? std::string(entry->flag) : source.setting;
        where = where.empty() ? flag : flag + " " + where;
    }
    if (error.line())
        where += (where.empty() ? "line " : ", line ") + std::to_string(*error.line());
    return where.empty() ? std::string(error.what()) : where + ": " + error.what();
}

}  // namespace hugetune::cli
