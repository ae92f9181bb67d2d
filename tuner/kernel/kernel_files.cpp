#include "tuner/kernel/kernel_files.hpp"

#include <cstdio>
#include <sstream>

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

}  // namespace hugetune
