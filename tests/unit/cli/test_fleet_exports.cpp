// Names the fleet exports give SKUs: safe for Ansible groups and Kubernetes labels, and one per
// SKU even when two keys would make the same name or a key is too long.
#include <doctest/doctest.h>

#include <regex>
#include <set>

#include "cli/fleet_exports.hpp"

using namespace hugetune::cli;

TEST_CASE("fleet exports: names are safe, and unique when keys clash or run long") {
    const std::string long_arch(64, 'a');
    const std::vector<std::string> keys = {
        "skylake/4n/28t/192g/2048k", "Sky.lake+x/4n/28t/192g/2048k", "sky-lake-x/4n/28t/192g/2048k",
        long_arch + "/4n/28t/192g/2048k"};
    const auto groups = ansible_group_names(keys);
    CHECK(groups[0] == "hugetune_skylake_4n_28t_192g_2048k");
    const auto kube = kubernetes_names(keys);
    CHECK(kube[0] == "hugetune-skylake-4n-28t-192g-2048k");
    const std::regex group("[a-z_][a-z0-9_]*"), label("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
    for (const auto& names : {groups, kube}) {
        CHECK(std::set<std::string>(names.begin(), names.end()).size() == keys.size());
        // The clashing pair each ends with its own digest; the plain key keeps its plain name.
        CHECK(names[1] != names[2]);
        CHECK(names[1].size() == names[2].size());
    }
    for (const auto& n : groups)
        CHECK(std::regex_match(n, group));
    for (const auto& n : kube) {
        CAPTURE(n);
        CHECK(n.size() <= 63);
        CHECK(std::regex_match(n, label));
    }
}

TEST_CASE("fleet exports: every SKU's value as apply takes it, in each format") {
    const std::vector<ExportSku> skus = {{"a:b #c/1n/2t/8g/2048k", 76, {"host-1", "2host"}}};
    const std::string ansible = ansible_document(skus);
    CHECK(ansible.find("        \"host-1\": {}\n        \"2host\": {}\n") != std::string::npos);
    CHECK(ansible.find("hugetune_sku: \"a:b #c/1n/2t/8g/2048k\"\n") != std::string::npos);
    CHECK(ansible.find("hugetune_hugepage_alloc_threads: 76\n") != std::string::npos);
    CHECK(ansible.find("hugetune_kernel_cmdline: \"hugepage_alloc_threads=76\"\n") !=
          std::string::npos);
    const auto files = ansible_files(skus);
    REQUIRE(files.size() == 2);
    CHECK(files[1].path == "group_vars/hugetune_a_b__c_1n_2t_8g_2048k.yml");
    CHECK(tuned_text(skus).find("\n[bootloader]\ncmdline_hugetune=+hugepage_alloc_threads=76\n") !=
          std::string::npos);
    CHECK(machineconfig_text(skus).find(
              "  kernelArguments:\n    - \"hugepage_alloc_threads=76\"\n") != std::string::npos);
    CHECK(ansible_document({}).find("  children: {}\n") != std::string::npos);
    CHECK(machineconfig_text({}).empty());
}
