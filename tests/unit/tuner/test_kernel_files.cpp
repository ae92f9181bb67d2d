// The kernel file accessors (tuner/kernel/kernel_files.hpp) on a gathered fixture tree, on a
// tree that lacks the files, and on scratch trees holding one file as a kernel may write it.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "model/errors.hpp"
#include "tests/unit/support/fixtures.hpp"
#include "tuner/kernel/kernel_files.hpp"

using namespace hugetune;

namespace {

// A root holding the one file `abs` with `text`, removed when the test ends.
class ScratchTree {
  public:
    ScratchTree(const std::string& abs, const std::string& text)
        : dir_(std::filesystem::temp_directory_path() /
               ("hugetune-kernel-files-" + std::to_string(getpid()))) {
        std::filesystem::remove_all(dir_);
        const auto file = dir_ / abs.substr(1);
        std::filesystem::create_directories(file.parent_path());
        std::ofstream(file) << text;
    }
    ~ScratchTree() {
        std::error_code ec;
        std::filesystem::remove_all(dir_, ec);
    }
    KernelFs fs() const { return KernelFs(dir_); }
    const std::filesystem::path& dir() const { return dir_; }
    // Where the tree's `abs` is, for the test to write it.
    std::filesystem::path host_path(const std::string& abs) const { return dir_ / abs.substr(1); }

  private:
    std::filesystem::path dir_;
};

constexpr const char* kLockdown = "/sys/kernel/security/lockdown";

}  // namespace

TEST_CASE("release, command line and meminfo counters of a fixture tree") {
    const KernelFs fs(test::fixture("skylake-4node"));
    CHECK(running_kernel_release(fs) == "6.15.0-hugetune-fixture");
    auto cmdline = running_kernel_cmdline(fs);
    REQUIRE(cmdline);
    CHECK(cmdline->starts_with("BOOT_IMAGE=/vmlinuz-6.15.0 "));
    CHECK(system_meminfo_bytes(fs, "MemTotal") == 1342177280ULL * 1024);
    CHECK(system_meminfo_bytes(fs, "MemAvailable") == 1207959552ULL * 1024);
    CHECK(system_meminfo_bytes(fs, "Hugepagesize") == 2048ULL * 1024);
    CHECK(node_meminfo_bytes(fs, 1, "MemFree") == 301989888ULL * 1024);
    CHECK_FALSE(system_meminfo_bytes(fs, "NoSuchCounter"));
    CHECK_FALSE(node_meminfo_bytes(fs, 99, "MemFree"));
}

TEST_CASE("a tree without the files gives nothing, never a default") {
    const KernelFs fs(test::fixture("skylake-4node") / "proc" / "sys");
    CHECK_FALSE(running_kernel_release(fs));
    CHECK_FALSE(running_kernel_cmdline(fs));
    CHECK_FALSE(system_meminfo_bytes(fs, "MemTotal"));
    CHECK_FALSE(running_boot_id(fs));
    CHECK_FALSE(kernel_hostname(fs));
    CHECK_FALSE(cpuinfo_text(fs));
    CHECK_FALSE(online_cpu_list(fs));
    CHECK_FALSE(hugetlb_optimize_vmemmap(fs));
    CHECK_FALSE(dmi_id(fs, "bios_version"));
    CHECK_FALSE(running_kernel_config(fs, "6.15.0-hugetune-fixture"));
    CHECK_FALSE(kernel_lockdown_mode(fs));
    CHECK_FALSE(kexec_image_loaded(fs));
}

TEST_CASE("hostname, CPU, HVO, DMI and configuration files of a fixture tree") {
    const KernelFs fs(test::fixture("skylake-4node"));
    CHECK(kernel_hostname(fs) == "skylake-4node");
    CHECK(online_cpu_list(fs) == "0-143");
    CHECK(hugetlb_optimize_vmemmap(fs) == true);
    CHECK(dmi_id(fs, "bios_version") == "2.19.1");
    CHECK_FALSE(dmi_id(fs, "sys_vendor"));
    CHECK_FALSE(hypervisor_type(fs));
    auto cpuinfo = cpuinfo_text(fs);
    REQUIRE(cpuinfo);
    CHECK(cpuinfo->starts_with("processor"));
    // No /proc/config.gz in the tree: the configuration comes from /boot/config-<release>.
    auto config = running_kernel_config(fs, "6.15.0-hugetune-fixture");
    REQUIRE(config);
    CHECK(config->find("CONFIG_INIT_ON_ALLOC_DEFAULT_ON is not set") != std::string::npos);
    CHECK_FALSE(running_kernel_config(fs, "6.1.0-other"));
    CHECK_FALSE(running_kernel_config(fs, ""));
}

TEST_CASE("boot id, HVO, hypervisor and DMI files as written") {
    CHECK(running_boot_id(ScratchTree("/proc/sys/kernel/random/boot_id",
                                      "6c8e3c5a-0f3e-4c58-9d52-4f1d0f6a4b1e\n")
                              .fs()) == "6c8e3c5a-0f3e-4c58-9d52-4f1d0f6a4b1e");
    // An empty boot id is passed on for the caller to refuse, not taken for an absent file.
    CHECK(running_boot_id(ScratchTree("/proc/sys/kernel/random/boot_id", "").fs()) == "");
    CHECK(hugetlb_optimize_vmemmap(
              ScratchTree("/proc/sys/vm/hugetlb_optimize_vmemmap", "0\n").fs()) == false);
    CHECK_FALSE(hugetlb_optimize_vmemmap(
        ScratchTree("/proc/sys/vm/hugetlb_optimize_vmemmap", "on\n").fs()));
    CHECK(hypervisor_type(ScratchTree("/sys/hypervisor/type", "xen\n").fs()) == "xen");
    CHECK_FALSE(hypervisor_type(ScratchTree("/sys/hypervisor/type", "\n").fs()));
    CHECK(dmi_id(ScratchTree("/sys/class/dmi/id/sys_vendor", "QEMU\n").fs(), "sys_vendor") ==
          "QEMU");
    CHECK_FALSE(dmi_id(ScratchTree("/sys/class/dmi/id/sys_vendor", " \n").fs(), "sys_vendor"));
}

TEST_CASE("lockdown: the bracketed mode of each kind the kernel writes") {
    CHECK(parse_lockdown_mode("[none] integrity confidentiality\n") == LockdownMode::none);
    CHECK(parse_lockdown_mode("none [integrity] confidentiality\n") == LockdownMode::integrity);
    CHECK(parse_lockdown_mode("none integrity [confidentiality]\n") ==
          LockdownMode::confidentiality);
    CHECK(kernel_lockdown_mode(ScratchTree(kLockdown, "none [integrity] confidentiality\n").fs()) ==
          LockdownMode::integrity);
    CHECK(kernel_lockdown_mode(ScratchTree(kLockdown, "[none] integrity confidentiality\n").fs()) ==
          LockdownMode::none);
    // A mode a later kernel may add, not in force, does not hide the one that is.
    CHECK(parse_lockdown_mode("none [integrity] confidentiality newmode\n") ==
          LockdownMode::integrity);
}

TEST_CASE("lockdown: an absent file is unknown, not none") {
    const KernelFs fs(test::fixture("skylake-4node"));
    CHECK(kernel_lockdown_mode(fs) == std::nullopt);
    CHECK(kernel_lockdown_mode(fs) != LockdownMode::none);
}

TEST_CASE("lockdown: text without one known bracketed mode") {
    for (const char* text : {"", "none integrity confidentiality\n", "[none] [integrity]\n",
                             "[paranoid] none integrity\n", "[none integrity\n",
                             "none] integrity\n", "[] none\n", "[NONE] integrity\n"}) {
        CAPTURE(text);
        CHECK_FALSE(parse_lockdown_mode(text));
        const ScratchTree tree(kLockdown, text);
        try {
            kernel_lockdown_mode(tree.fs());
            FAIL("no error for malformed lockdown text");
        } catch (const RuntimeError& e) {
            const std::string message = e.what();
            CHECK(message.find("/sys/kernel/security/lockdown holds \"") != std::string::npos);
            CHECK(message.find("not one bracketed mode of none, integrity or confidentiality") !=
                  std::string::npos);
        }
    }
}

TEST_CASE("kexec_loaded: 0 or 1, anything else unknown") {
    const std::string file = "/sys/kernel/kexec_loaded";
    CHECK(kexec_image_loaded(ScratchTree(file, "1\n").fs()) == true);
    CHECK(kexec_image_loaded(ScratchTree(file, "0\n").fs()) == false);
    CHECK_FALSE(kexec_image_loaded(ScratchTree(file, "2\n").fs()));
    CHECK_FALSE(kexec_image_loaded(ScratchTree(file, "yes\n").fs()));
    CHECK_FALSE(kexec_image_loaded(ScratchTree(file, "").fs()));
}

TEST_CASE("kexec sysctls: a number, text that is none, or no file at all") {
    const std::string file = "/proc/sys/kernel/kexec_load_disabled";
    CHECK(kexec_sysctl(ScratchTree(file, "1\n").fs(), "kexec_load_disabled")->value == 1);
    CHECK(kexec_sysctl(ScratchTree(file, "0\n").fs(), "kexec_load_disabled")->value == 0);
    const auto odd = kexec_sysctl(ScratchTree(file, "yes\n").fs(), "kexec_load_disabled");
    REQUIRE(odd.has_value());
    CHECK_FALSE(odd->value.has_value());
    CHECK(odd->text == "yes");
    const std::string limit = "/proc/sys/kernel/kexec_load_limit_reboot";
    CHECK(kexec_sysctl(ScratchTree(limit, "-1\n").fs(), "kexec_load_limit_reboot")->value == -1);
    CHECK_FALSE(
        kexec_sysctl(ScratchTree("/proc/sys/kernel/other", "1\n").fs(), "kexec_load_disabled"));
}

TEST_CASE("meminfo text: system and node lines, a key that is the end of another") {
    CHECK(meminfo_bytes("MemTotal:  10 kB\nMemFree:  4 kB\n", "MemFree") == 4096);
    CHECK(meminfo_bytes("Node 0 MemFree:        8 kB\n", "MemFree") == 8192);
    CHECK(meminfo_bytes("HugePages_Total:  3\n", "Total") == std::nullopt);
    CHECK(meminfo_bytes("MemFree: lots\n", "MemFree") == std::nullopt);
    CHECK(meminfo_bytes("", "MemFree") == std::nullopt);
}

TEST_CASE("buddyinfo: one column per order, 0 to MAX_PAGE_ORDER") {
    CHECK(buddyinfo_max_page_order("Node 0, zone      DMA      1      0      1      0      2      "
                                   "1      1      0      1      1      3\n") == 10);
    CHECK(buddyinfo_max_page_order("Node 0, zone   Normal 1 2 3 4 5 6 7 8 9 10 11 12 13 14\n"
                                   "Node 1, zone   Normal 1 2 3 4 5 6 7 8 9 10 11 12 13 14\n") ==
          13);
    CHECK_FALSE(buddyinfo_max_page_order(""));
    CHECK_FALSE(buddyinfo_max_page_order("Node 0, zone   Normal\n"));
    CHECK_FALSE(buddyinfo_max_page_order("Node 0, zone   Normal 1 x 3\n"));
}

TEST_CASE("the buddy allocator and page size facts of gathered trees") {
    // x86-64 and arm64 with 4 KiB pages: 4 MiB blocks; arm64 with 64 KiB pages: 512 MiB.
    for (const char* name : {"skylake-4node", "neoverse-n1-1node"}) {
        const auto buddy = running_buddy_allocator(KernelFs(test::fixture(name)));
        CHECK(buddy.base_page_kb == 4);
        CHECK(buddy.max_page_order == 10);
        CHECK(buddy.largest_block_kb() == 4096);
    }
    const KernelFs kunpeng(test::fixture("kunpeng920-64k"));
    const auto buddy = running_buddy_allocator(kunpeng);
    CHECK(buddy.base_page_kb == 64);
    CHECK(buddy.max_page_order == 13);
    const auto sizes = running_page_size_facts(kunpeng);
    CHECK(sizes.default_size_kb == 512 * 1024);
    CHECK(sizes.largest_buddy_block_kb == 512 * 1024);
    CHECK_FALSE(sizes.gigantic(2048));
    CHECK_FALSE(sizes.gigantic(512 * 1024));
    CHECK(sizes.gigantic(16 * 1024 * 1024));

    // Without buddyinfo the kernel config's forced order counts; without either, 10.
    ScratchTree config("/boot/config-6.15.0-t",
                       "CONFIG_ARCH_FORCE_MAX_ORDER=13\nCONFIG_PAGE_SHIFT=16\n");
    const auto release = config.host_path("/proc/sys/kernel/osrelease");
    std::filesystem::create_directories(release.parent_path());
    std::ofstream(release) << "6.15.0-t\n";
    CHECK(running_buddy_allocator(config.fs()).largest_block_kb() == 512 * 1024);
    ScratchTree bare("/proc/cmdline", "ro\n");
    CHECK(running_buddy_allocator(bare.fs()).largest_block_kb() == 4096);
    CHECK(running_page_size_facts(bare.fs()).default_size_kb == 2048);
}

TEST_CASE("identity files: the product UUID and machine ID of a tree, or why there are none") {
    const KernelFs skylake(test::fixture("skylake-4node"));
    const auto uuid = dmi_product_uuid(skylake);
    CHECK(uuid.file == "/sys/class/dmi/id/product_uuid");
    CHECK(uuid.line == "4C4C4544-0051-3010-8052-B4C04F4B4E32");
    CHECK(machine_id_file(skylake).line == "b08dfa6083e7567a1921a715000001fb");
    const KernelFs vm(test::fixture("vm-1node"));
    CHECK_FALSE(dmi_product_uuid(vm).line);
    CHECK(dmi_product_uuid(vm).problem == "is absent");
    CHECK(machine_id_file(vm).problem == "is absent");
    const ScratchTree empty("/etc/machine-id", "\n");
    CHECK_FALSE(machine_id_file(empty.fs()).line);
    CHECK(machine_id_file(empty.fs()).problem == "is empty");
}

namespace {

// 0 when the product UUID of `tree`, readable by root alone as the kernel makes it, is
// "could not be read" to nobody (65534), in a child process; 1 otherwise.
int unreadable_as_nobody(const ScratchTree& tree) {
    const pid_t pid = fork();
    if (pid == 0) {
        if (geteuid() == 0 && seteuid(65534) != 0)
            _exit(2);
        const auto reading = dmi_product_uuid(tree.fs());
        _exit(!reading.line && reading.problem == "could not be read" ? 0 : 1);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

}  // namespace

TEST_CASE("identity files: a product UUID only root may read is unreadable, not absent") {
    const ScratchTree tree("/sys/class/dmi/id/product_uuid",
                           "4C4C4544-0051-3010-8052-B4C04F4B4E32\n");
    // The tree's directories open to all (as /sys's are), the file to its owner alone; a
    // process that is not root keeps no right to its own file either.
    for (auto dir = tree.dir() / "sys/class/dmi/id"; dir != tree.dir().parent_path();
         dir = dir.parent_path())
        REQUIRE(chmod(dir.c_str(), 0755) == 0);
    const auto file = tree.dir() / "sys/class/dmi/id/product_uuid";
    REQUIRE(chmod(file.c_str(), geteuid() == 0 ? 0400 : 0) == 0);
    CHECK(unreadable_as_nobody(tree) == 0);
}
