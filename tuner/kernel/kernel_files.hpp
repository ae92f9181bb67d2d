// One accessor per kernel file that hugetune reads outside the pools' own directories, over a
// KernelFs root (the machine, or a fixture tree), in the manner of the kernel selftests'
// hugepage_settings.c: every reader of the running kernel's release, command line, memory
// counters, boot id, CPU and firmware files, lockdown or kexec state asks here, so each file is
// read and parsed in one place. The pools' own files (/sys/kernel/mm/hugepages and the nodes'
// hugepages directories) are not here: the sweep reads and changes them through
// tuner/sweep/pool_state.hpp, and the probe reads the directories it lists.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "model/hardware_identity.hpp"
#include "model/page_sizes.hpp"
#include "tuner/kernel/kernel_fs.hpp"

namespace hugetune {

// Paths as on the target machine, for the messages that name a file that is missing.
inline constexpr std::string_view kBootIdFile = "/proc/sys/kernel/random/boot_id";
inline constexpr std::string_view kCpuinfoFile = "/proc/cpuinfo";
inline constexpr std::string_view kOnlineCpusFile = "/sys/devices/system/cpu/online";

// /proc/sys/kernel/osrelease: "6.15.0-1-amd64"; nothing when it is absent or empty.
std::optional<std::string> running_kernel_release(const KernelFs& fs);

// /proc/cmdline as the kernel gives it (the trailing newline included); nothing when absent.
std::optional<std::string> running_kernel_cmdline(const KernelFs& fs);

// A counter of meminfo text in bytes: "MemAvailable:   24334624 kB" or a node's
// "Node 0 MemFree:   4288448 kB" for key "MemAvailable" or "MemFree".
std::optional<std::uint64_t> meminfo_bytes(std::string_view text, std::string_view key);

// /proc/meminfo's counter `key` in bytes ("MemTotal", "MemAvailable", "Hugepagesize").
std::optional<std::uint64_t> system_meminfo_bytes(const KernelFs& fs, std::string_view key);

// /sys/devices/system/node/node<N>/meminfo's counter `key` in bytes.
std::optional<std::uint64_t> node_meminfo_bytes(const KernelFs& fs, int node, std::string_view key);

// /proc/sys/kernel/random/boot_id, new at every boot, kexec included (docs/kernel-facts.md
// "Booting a kernel with kexec"); nothing when absent. The kernel never leaves it empty, so an
// empty file is passed on as it is for the caller to refuse.
std::optional<std::string> running_boot_id(const KernelFs& fs);

// /proc/sys/kernel/hostname; nothing when absent.
std::optional<std::string> kernel_hostname(const KernelFs& fs);

// /proc/cpuinfo as the kernel gives it; nothing when absent.
std::optional<std::string> cpuinfo_text(const KernelFs& fs);

// /sys/devices/system/cpu/online, a CPU list such as "0-3,8,10-11"; nothing when absent.
std::optional<std::string> online_cpu_list(const KernelFs& fs);

// /proc/sys/vm/hugetlb_optimize_vmemmap (docs/kernel-facts.md "HVO"): whether HVO is on;
// nothing when absent or not a number.
std::optional<bool> hugetlb_optimize_vmemmap(const KernelFs& fs);
// The same file's path, for what the sweep saves and restores, and a write of 0 or 1 to it
// (root only; the kernel applies it to pages allocated after the write). Throws what
// KernelFs::write_u64 throws.
std::string_view hugetlb_optimize_vmemmap_file();
void set_hugetlb_optimize_vmemmap(const KernelFs& fs, bool on);

// arm64: the MIDR_EL1 value of the lowest-numbered CPU that shows one under
// /sys/devices/system/cpu/cpuN/regs/identification/midr_el1 ("0x00000000410fd0c1");
// nothing where no CPU does (x86, kernels before 4.11).
std::optional<std::string> cpu_midr_text(const KernelFs& fs);

// /sys/devices/soc0/<name> ("machine", "family", "soc_id", "revision"); nothing when absent or
// empty.
std::optional<std::string> soc0_attribute(const KernelFs& fs, std::string_view name);

// The buddy allocator's largest order (MAX_PAGE_ORDER) as /proc/buddyinfo's text shows it: one
// column per order from 0 (docs/kernel-facts.md "Gigantic pages"); nothing when no line has
// counts.
std::optional<int> buddyinfo_max_page_order(std::string_view text);

// The running kernel's buddy allocator (docs/kernel-facts.md "Gigantic pages"). MAX_PAGE_ORDER
// from /proc/buddyinfo, else the kernel config's CONFIG_ARCH_FORCE_MAX_ORDER, else 10 (the
// kernel's own default); the base page of this process on the machine itself, in a tree the
// config's CONFIG_PAGE_SHIFT or CONFIG_ARM64_PAGE_SHIFT, else 4 KiB.
model::BuddyAllocator running_buddy_allocator(const KernelFs& fs);

// The running kernel's default huge page size (/proc/meminfo Hugepagesize, else x86-64's 2 MiB)
// and its buddy allocator's largest block.
model::PageSizeFacts running_page_size_facts(const KernelFs& fs);

// /sys/hypervisor/type ("xen"); nothing when absent or empty.
std::optional<std::string> hypervisor_type(const KernelFs& fs);

// /sys/class/dmi/id/<name> ("sys_vendor", "product_name", "bios_version"); nothing when absent
// or empty.
std::optional<std::string> dmi_id(const KernelFs& fs, std::string_view name);

// The files a machine's hardware identity is read from (model/hardware_identity.hpp), each with
// its first line or why it has none: /sys/class/dmi/id/product_uuid, the DMI table's UUID, which
// the kernel lets only root read and machines without a DMI table (most arm64 ones, many
// guests) lack; /etc/machine-id (machine-id(5)), which systemd writes at installation.
model::IdentityReading dmi_product_uuid(const KernelFs& fs);
model::IdentityReading machine_id_file(const KernelFs& fs);

// The running kernel's build configuration: /proc/config.gz through gzip, else
// /boot/config-<release>; nothing when neither can be read.
std::optional<std::string> running_kernel_config(const KernelFs& fs, const std::string& release);

// The lockdown LSM's modes (docs/kernel-facts.md "Kernel lockdown").
enum class LockdownMode { none, integrity, confidentiality };

// The bracketed mode of /sys/kernel/security/lockdown's text, "[none] integrity
// confidentiality\n"; nothing unless exactly one word is bracketed and it names a mode above.
std::optional<LockdownMode> parse_lockdown_mode(std::string_view text);

// /sys/kernel/security/lockdown's mode. Nothing when the file is absent or unreadable (no
// lockdown LSM, or securityfs not mounted): the mode is unknown, which is not
// LockdownMode::none. Throws RuntimeError naming the file and its text when it holds no mode
// parse_lockdown_mode knows.
std::optional<LockdownMode> kernel_lockdown_mode(const KernelFs& fs);

// /sys/kernel/kexec_loaded (docs/kernel-facts.md "Whether a kernel is loaded for kexec"):
// whether a kernel waits for `kexec -e`; nothing when absent (a kernel without kexec) or
// neither 0 nor 1.
std::optional<bool> kexec_image_loaded(const KernelFs& fs);

// A sysctl of kexec's under /proc/sys/kernel (docs/kernel-facts.md "kexec switched off"):
// nothing when the kernel has no such file; else its first line and, when that is a whole
// number, the number. The caller refuses what it cannot read rather than take it as allowed.
struct KexecSysctl {
    std::string text;
    std::optional<std::int64_t> value;
};
std::optional<KexecSysctl> kexec_sysctl(const KernelFs& fs, std::string_view name);

}  // namespace hugetune
