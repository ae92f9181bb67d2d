#include "cli/fleet_exports.hpp"

#include <cctype>
#include <map>
#include <nlohmann/json.hpp>

#include "fleet_db/report_intake.hpp"
#include "model/alloc_threads.hpp"
#include "model/fleet/host_name.hpp"
#include "tuner/boot/tuned.hpp"

namespace hugetune::cli {
namespace {

// YAML's double-quoted scalar is a superset of a JSON string: any key, host name or text is
// one scalar whatever characters it holds (':', '#', '/', a leading '-' or digit).
std::string yaml_string(const std::string& text) {
    return nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::vector<std::string> unique_names(const std::vector<std::string>& keys,
                                      const std::string& prefix, char other, bool lowercase,
                                      std::size_t max_size) {
    std::vector<std::string> names;
    std::map<std::string, int> uses;
    for (const auto& key : keys) {
        std::string name = prefix;
        for (const char c : key) {
            const auto u = static_cast<unsigned char>(c);
            name += std::isalnum(u) ? (lowercase ? static_cast<char>(std::tolower(u)) : c) : other;
        }
        names.push_back(name);
        ++uses[name];
    }
    for (std::size_t i = 0; i < keys.size(); ++i)
        if (uses[names[i]] > 1 || names[i].size() > max_size)
            names[i] = names[i].substr(0, max_size - 9) + other +
                       fleet_db::content_hash(keys[i]).substr(0, 8);
    return names;
}

std::vector<std::string> keys_of(const std::vector<ExportSku>& skus) {
    std::vector<std::string> keys;
    for (const auto& s : skus)
        keys.push_back(s.key);
    return keys;
}

std::string value_text(const ExportSku& sku) {
    return std::to_string(sku.threads);
}

std::string group_vars(const ExportSku& sku, const std::string& indent) {
    return indent + "hugetune_sku: " + yaml_string(sku.key) + "\n" + indent +
           "hugetune_hugepage_alloc_threads: " + value_text(sku) + "\n" + indent +
           "hugetune_kernel_cmdline: " + yaml_string(alloc_threads_setting(sku.threads)) + "\n";
}

std::string inventory(const std::vector<ExportSku>& skus, bool with_vars) {
    const auto names = ansible_group_names(keys_of(skus));
    std::string out =
        "# hugetune fleet export --format ansible: one group per settled SKU that sets a value\n"
        "all:\n  children:";
    if (skus.empty())
        return out + " {}\n";
    out += "\n";
    for (std::size_t i = 0; i < skus.size(); ++i) {
        out += "    " + names[i] + ":\n      hosts:";
        if (skus[i].hosts.empty())
            out += " {}";
        out += "\n";
        for (const auto& host : skus[i].hosts)
            out += "        " + yaml_string(host) + ": {}\n";
        if (with_vars)
            out += "      vars:\n" + group_vars(skus[i], "        ");
    }
    return out;
}

std::string tuned_profile(const ExportSku& sku) {
    return "# SKU " + sku.key + ": /etc/tuned/" + std::string(boot::kTunedHugetuneProfile) +
           "/tuned.conf on its hosts, then 'tuned-adm profile <active profiles> " +
           std::string(boot::kTunedHugetuneProfile) + "'\n" +
           std::string(boot::kTunedBootloaderSection) + "\n" +
           boot::tuned_profile_line(value_text(sku)) + "\n";
}

}  // namespace

std::vector<std::string> ansible_group_names(const std::vector<std::string>& keys) {
    return unique_names(keys, std::string(model::fleet::kAnsibleGroupPrefix), '_', true, 128);
}

std::vector<std::string> kubernetes_names(const std::vector<std::string>& keys) {
    return unique_names(keys, "hugetune-", '-', true, 63);
}

std::string ansible_document(const std::vector<ExportSku>& skus) {
    return inventory(skus, true);
}

std::vector<ExportFile> ansible_files(const std::vector<ExportSku>& skus) {
    std::vector<ExportFile> files{{"inventory.yml", inventory(skus, false)}};
    const auto names = ansible_group_names(keys_of(skus));
    for (std::size_t i = 0; i < skus.size(); ++i)
        files.push_back({std::filesystem::path("group_vars") / (names[i] + ".yml"),
                         "# SKU " + skus[i].key + "\n" + group_vars(skus[i], "")});
    return files;
}

std::string tuned_text(const std::vector<ExportSku>& skus) {
    std::string out;
    for (const auto& sku : skus)
        out += (out.empty() ? "" : "\n") + tuned_profile(sku);
    return out;
}

std::vector<ExportFile> tuned_files(const std::vector<ExportSku>& skus) {
    std::vector<ExportFile> files;
    const auto names = ansible_group_names(keys_of(skus));
    for (std::size_t i = 0; i < skus.size(); ++i)
        files.push_back({std::filesystem::path(names[i]) / "tuned.conf", tuned_profile(skus[i])});
    return files;
}

std::string machineconfig_text(const std::vector<ExportSku>& skus) {
    const auto names = kubernetes_names(keys_of(skus));
    std::string out;
    for (std::size_t i = 0; i < skus.size(); ++i) {
        // The role is the SKU's own: a MachineConfigPool per SKU selects it and that SKU's
        // nodes, so no node gets two values.
        out += "# SKU " + skus[i].key + ": for the MachineConfigPool whose machineConfigSelector " +
               "matches role " + names[i] + "\n";
        out += "---\napiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfig\n";
        out += "metadata:\n  name: 99-" + names[i] + "\n  labels:\n";
        out += "    machineconfiguration.openshift.io/role: " + names[i] + "\n";
        out += "  annotations:\n    hugetune/sku: " + yaml_string(skus[i].key) + "\n";
        out += "spec:\n  kernelArguments:\n    - " +
               yaml_string(alloc_threads_setting(skus[i].threads)) + "\n";
    }
    return out;
}

}  // namespace hugetune::cli
