// What `fleet export` writes for the tools that configure fleets: an Ansible inventory whose
// groups are the SKUs with their group_vars, a tuned profile per SKU, an OpenShift
// MachineConfig per SKU. Each carries the one kernel parameter `hugetune apply --value N`
// takes for the SKU (docs/fleet.md "Outputs"). Text only; the command writes the files.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace hugetune::cli {

// A SKU whose answer is settled and sets a value.
struct ExportSku {
    std::string key;                 // "skylake/4n/28t/192g/2048k"
    std::uint64_t threads = 1;       // hugepage_alloc_threads, 1 to kMaxAllocThreads
    std::vector<std::string> hosts;  // hosts whose latest report is of this SKU, by name
};

// One name per key, in order, each unique among them: "hugetune_" and the key with every
// character but a letter or digit as '_' (Ansible's group names). A name two keys share, or
// one longer than Ansible needs, ends with '_' and 8 hex digits of its key's digest.
std::vector<std::string> ansible_group_names(const std::vector<std::string>& keys);
// As above for Kubernetes: "hugetune-" and the key lowercased with every other character as
// '-', at most 63 characters (a label value; the MachineConfig's name adds "99-").
std::vector<std::string> kubernetes_names(const std::vector<std::string>& keys);

struct ExportFile {
    std::filesystem::path path;  // relative to --out DIR
    std::string text;
};

// One YAML document: the inventory with each group's variables in it.
std::string ansible_document(const std::vector<ExportSku>& skus);
// inventory.yml (the groups and their hosts) and group_vars/GROUP.yml per SKU.
std::vector<ExportFile> ansible_files(const std::vector<ExportSku>& skus);

// Each SKU's profile, one after the other, each under a comment naming its SKU.
std::string tuned_text(const std::vector<ExportSku>& skus);
// GROUP/tuned.conf per SKU: the directory to install as /etc/tuned/hugetune on its hosts.
std::vector<ExportFile> tuned_files(const std::vector<ExportSku>& skus);

// A MachineConfig per SKU, as YAML documents one after the other.
std::string machineconfig_text(const std::vector<ExportSku>& skus);

}  // namespace hugetune::cli
