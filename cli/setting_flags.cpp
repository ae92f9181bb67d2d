#include "cli/setting_flags.hpp"

namespace hugetune::cli {

const std::vector<SettingFlag>& setting_flags() {
    static const std::vector<SettingFlag> all = {
        {"threads_per_node", "--threads"},
        {"repetitions", "--repetitions"},
        {"budget_seconds", "--budget"},
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
        {"min_hosts", "--min-hosts"},
        {"min_confidence", "--min-confidence"},
        {"accepted_warnings", "--accept-warning"},
        {"boot_pages", "--boot-pages"},
        {"db", "--db"},
        {"verification", "--verification"},
        {"out", "--out"},
        {"force_regenerate", "--regenerate"},
        {"dry_run", "--dry-run"},
        {"force", "--force"},
        {"log", "--log"},
        {"hvo_pass", "--no-hvo-pass"},
        {"nodes", "--nodes"},
        {"cpus", "--cpus"},
        {"placement", "--placement"},
        {"verbose", "--verbose"},
        {"boot_gib", "--boot-gib"},
        {"boot_record", "--boot-record"},
        {"plan_status", "--status"},
        {"plan_stop", "--stop"},
    };
    return all;
}

std::optional<SettingFlag> setting_flag(std::string_view setting) {
    for (const auto& entry : setting_flags())
        if (entry.setting == setting)
            return entry;
    return std::nullopt;
}

const SettingWords& flag_words() {
    static const SettingWords words([](std::string_view setting) {
        const auto entry = setting_flag(setting);
        return std::string(entry ? entry->flag : setting);
    });
    return words;
}

std::string setting_error_text(const SettingError& error) {
    const std::string message = error.message().text(flag_words());
    auto entry = setting_flag(error.setting);
    if (!entry)
        return error.setting + ": " + message;
    return std::string(entry->flag) + (entry->message_starts_with_value ? " " : ": ") + message;
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
    const std::string message = error.message().text(flag_words());
    return where.empty() ? message : where + ": " + message;
}

std::string error_text(const Error& error) {
    if (const auto* setting = dynamic_cast<const SettingError*>(&error))
        return setting_error_text(*setting);
    if (const auto* input = dynamic_cast<const model::InputError*>(&error))
        return input_error_text(*input);
    return error.message().text(flag_words());
}

}  // namespace hugetune::cli
