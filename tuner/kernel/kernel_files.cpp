#include "tuner/kernel/kernel_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <utility>
#include <vector>

#include "model/errors.hpp"
#include "model/text.hpp"
#include "tuner/system/owned_fd.hpp"
#include "tuner/system/process.hpp"
#include "tuner/system/root_dir.hpp"

namespace hugetune {

std::optional<std::string> running_kernel_release(const KernelFs& fs) {
    auto release = fs.read_line("/proc/sys/kernel/osrelease");
    if (!release || release->empty())
        return std::nullopt;
    return release;
}

std::optional<std::string> running_kernel_cmdline(const KernelFs& fs) {
    return fs.read("/proc/cmdline");
}

std::optional<std::uint64_t> meminfo_bytes(std::string_view text, std::string_view key) {
    const std::string label = std::string(key) + ":";
    std::istringstream in{std::string(text)};
    std::string line;
    while (std::getline(in, line)) {
        std::string_view rest = line;
        // A node's file starts each line with "Node <N> ".
        if (rest.starts_with("Node ")) {
            auto after_node = rest.find(' ', 5);
            rest = after_node == std::string_view::npos ? "" : rest.substr(after_node + 1);
        }
        if (!rest.starts_with(label))
            continue;
        unsigned long long kb = 0;
        if (std::sscanf(std::string(rest.substr(label.size())).c_str(), " %llu", &kb) == 1)
            return static_cast<std::uint64_t>(kb) * 1024;
    }
    return std::nullopt;
}

std::optional<std::uint64_t> system_meminfo_bytes(const KernelFs& fs, std::string_view key) {
    auto text = fs.read("/proc/meminfo");
    return text ? meminfo_bytes(*text, key) : std::nullopt;
}

std::optional<std::uint64_t> node_meminfo_bytes(const KernelFs& fs, int node,
                                                std::string_view key) {
    auto text = fs.read("/sys/devices/system/node/node" + std::to_string(node) + "/meminfo");
    return text ? meminfo_bytes(*text, key) : std::nullopt;
}

std::optional<std::string> running_boot_id(const KernelFs& fs) {
    return fs.read_line(kBootIdFile);
}

std::optional<std::string> kernel_hostname(const KernelFs& fs) {
    return fs.read_line("/proc/sys/kernel/hostname");
}

std::optional<std::string> cpuinfo_text(const KernelFs& fs) {
    return fs.read(kCpuinfoFile);
}

std::optional<std::string> online_cpu_list(const KernelFs& fs) {
    return fs.read_line(kOnlineCpusFile);
}

std::string_view hugetlb_optimize_vmemmap_file() {
    return "/proc/sys/vm/hugetlb_optimize_vmemmap";
}

void set_hugetlb_optimize_vmemmap(const KernelFs& fs, bool on) {
    fs.write_u64(hugetlb_optimize_vmemmap_file(), on ? 1 : 0);
}

std::optional<bool> hugetlb_optimize_vmemmap(const KernelFs& fs) {
    auto value = fs.read_u64(hugetlb_optimize_vmemmap_file());
    if (!value)
        return std::nullopt;
    return *value != 0;
}

namespace {

std::optional<std::string> non_empty_line(const KernelFs& fs, std::string_view abs) {
    auto line = fs.read_line(abs);
    if (!line || line->empty())
        return std::nullopt;
    return line;
}

}  // namespace

std::optional<std::string> hypervisor_type(const KernelFs& fs) {
    return non_empty_line(fs, "/sys/hypervisor/type");
}

std::optional<std::string> cpu_midr_text(const KernelFs& fs) {
    std::vector<int> cpus;
    for (const auto& name : fs.list("/sys/devices/system/cpu")) {
        int n = -1;
        const std::string_view digits =
            std::string_view(name).substr(std::min<std::size_t>(3, name.size()));
        if (!name.starts_with("cpu") || digits.empty() ||
            std::from_chars(digits.data(), digits.data() + digits.size(), n).ptr !=
                digits.data() + digits.size())
            continue;
        cpus.push_back(n);
    }
    std::sort(cpus.begin(), cpus.end());
    for (int n : cpus)
        if (auto midr = non_empty_line(fs, "/sys/devices/system/cpu/cpu" + std::to_string(n) +
                                               "/regs/identification/midr_el1"))
            return midr;
    return std::nullopt;
}

std::optional<int> buddyinfo_max_page_order(std::string_view text) {
    std::istringstream in{std::string(text)};
    std::string line;
    while (std::getline(in, line)) {
        const auto zone = line.find(" zone ");
        if (zone == std::string::npos)
            continue;
        std::istringstream fields(line.substr(zone + 6));
        std::string name, count;
        fields >> name;
        int orders = 0;
        while (fields >> count) {
            if (count.find_first_not_of("0123456789") != std::string::npos)
                return std::nullopt;
            ++orders;
        }
        if (orders > 0)
            return orders - 1;
    }
    return std::nullopt;
}

namespace {

// A CONFIG_NAME=number line of a kernel config.
std::optional<int> config_number(const std::string& config, std::string_view name) {
    const std::string key = "\n" + std::string(name) + "=";
    const auto at = ("\n" + config).find(key);
    if (at == std::string::npos)
        return std::nullopt;
    int value = 0;
    const char* begin = config.data() + at + key.size() - 1;
    const auto [end, ec] = std::from_chars(begin, config.data() + config.size(), value);
    return ec == std::errc() && end != begin ? std::optional(value) : std::nullopt;
}

}  // namespace

model::BuddyAllocator running_buddy_allocator(const KernelFs& fs) {
    model::BuddyAllocator buddy;
    std::optional<std::string> config;
    bool config_read = false;
    auto config_value = [&](std::string_view name) -> std::optional<int> {
        if (!config_read) {
            config = running_kernel_config(fs, running_kernel_release(fs).value_or(""));
            config_read = true;
        }
        return config ? config_number(*config, name) : std::nullopt;
    };
    auto order = buddyinfo_max_page_order(fs.read("/proc/buddyinfo").value_or(""));
    if (!order)
        order = config_value("CONFIG_ARCH_FORCE_MAX_ORDER");
    if (order && *order >= 0 && *order <= 20)
        buddy.max_page_order = *order;
    if (fs.is_live()) {
        if (const long bytes = sysconf(_SC_PAGESIZE); bytes >= 4096)
            buddy.base_page_kb = static_cast<std::uint64_t>(bytes) / 1024;
    } else {
        auto shift = config_value("CONFIG_PAGE_SHIFT");
        if (!shift)
            shift = config_value("CONFIG_ARM64_PAGE_SHIFT");
        if (shift && *shift >= 12 && *shift <= 16)  // 4 KiB to 64 KiB, what kernels build
            buddy.base_page_kb = std::uint64_t{1} << (*shift - 10);
    }
    return buddy;
}

model::PageSizeFacts running_page_size_facts(const KernelFs& fs) {
    model::PageSizeFacts facts;
    if (auto bytes = system_meminfo_bytes(fs, "Hugepagesize"); bytes && *bytes >= 1024)
        facts.default_size_kb = *bytes / 1024;
    facts.largest_buddy_block_kb = running_buddy_allocator(fs).largest_block_kb();
    return facts;
}

std::optional<std::string> soc0_attribute(const KernelFs& fs, std::string_view name) {
    return non_empty_line(fs, "/sys/devices/soc0/" + std::string(name));
}

std::optional<std::string> dmi_id(const KernelFs& fs, std::string_view name) {
    return non_empty_line(fs, "/sys/class/dmi/id/" + std::string(name));
}

namespace {

model::IdentityReading identity_file(const KernelFs& fs, std::string_view file) {
    model::IdentityReading reading{std::string(file), fs.read_line(file), ""};
    if (reading.line && reading.line->empty()) {
        reading.line.reset();
        reading.problem = "is empty";
    } else if (!reading.line) {
        reading.problem = fs.exists(file) ? "could not be read" : "is absent";
    }
    return reading;
}

}  // namespace

model::IdentityReading dmi_product_uuid(const KernelFs& fs) {
    return identity_file(fs, "/sys/class/dmi/id/product_uuid");
}

model::IdentityReading machine_id_file(const KernelFs& fs) {
    return identity_file(fs, "/etc/machine-id");
}

std::optional<std::string> running_kernel_config(const KernelFs& fs, const std::string& release) {
    // gzip reads the file from the descriptor opened inside the root, never by its name.
    // Only a regular file: gzip would wait on a FIFO's writer or read a device without end.
    const OwnedFd gz = fs.root_dir().open_path("/proc/config.gz", O_RDONLY | O_NONBLOCK);
    struct stat st {};
    if (gz.valid() && fstat(gz.get(), &st) == 0 && S_ISREG(st.st_mode) && program_exists("gzip")) {
        auto r = run_program_reading({"gzip", "-dc"}, gz.get());
        if (r.exit_code == 0 && !r.out.empty())
            return r.out;
    }
    if (!release.empty())
        return fs.read("/boot/config-" + release);
    return std::nullopt;
}

// security/lockdown/lockdown.c, lockdown_read(): each of lockdown_levels[] by its label,
// separated by blanks, the one in force in brackets, a newline last.
std::optional<LockdownMode> parse_lockdown_mode(std::string_view text) {
    static constexpr std::array<std::pair<std::string_view, LockdownMode>, 3> kModes{{
        {"none", LockdownMode::none},
        {"integrity", LockdownMode::integrity},
        {"confidentiality", LockdownMode::confidentiality},
    }};
    std::optional<LockdownMode> found;
    std::istringstream words{std::string(text)};
    std::string word;
    while (words >> word) {
        if (!word.starts_with('[') && !word.ends_with(']'))
            continue;
        if (found || word.size() < 2 || !word.starts_with('[') || !word.ends_with(']'))
            return std::nullopt;
        const std::string_view label = std::string_view(word).substr(1, word.size() - 2);
        for (const auto& [name, mode] : kModes)
            if (label == name)
                found = mode;
        if (!found)
            return std::nullopt;
    }
    return found;
}

std::optional<LockdownMode> kernel_lockdown_mode(const KernelFs& fs) {
    constexpr std::string_view file = "/sys/kernel/security/lockdown";
    auto text = fs.read(file);
    if (!text)
        return std::nullopt;
    if (auto mode = parse_lockdown_mode(*text))
        return mode;
    throw RuntimeError(fs.shown(file) + " holds \"" + std::string(trim(*text)) +
                       "\", not one bracketed mode of none, integrity or confidentiality");
}

std::optional<bool> kexec_image_loaded(const KernelFs& fs) {
    auto value = fs.read_u64("/sys/kernel/kexec_loaded");
    if (!value || *value > 1)
        return std::nullopt;
    return *value == 1;
}

std::optional<KexecSysctl> kexec_sysctl(const KernelFs& fs, std::string_view name) {
    const std::string path = "/proc/sys/kernel/" + std::string(name);
    if (!fs.exists(path))
        return std::nullopt;
    KexecSysctl out;
    out.text = fs.read_line(path).value_or("");
    std::int64_t number = 0;
    const char* end = out.text.data() + out.text.size();
    auto [ptr, ec] = std::from_chars(out.text.data(), end, number);
    if (ec == std::errc() && ptr == end && !out.text.empty())
        out.value = number;
    return out;
}

}  // namespace hugetune
