#include "tuner/kernel/boot_log.hpp"

#include <algorithm>
#include <cmath>
#include <regex>
#include <stdexcept>

#include "model/page_sizes.hpp"
#include "tuner/kernel/boot_pool.hpp"

namespace hugetune {
namespace {

std::optional<BootAllocationLine> read_allocation_line(const std::string& message) {
    if (message.find("HugeTLB: allocation took ") == std::string::npos)
        return std::nullopt;
    static const std::regex re(
        R"(HugeTLB: allocation took (\d+)ms with hugepage_(?:allocation|alloc)_threads=(\d+)[ \t]*$)");
    std::smatch m;
    // The whole message: the same words inside another one (a device's name, say) are not the
    // kernel's line, and neither is "threads=32xyz", which no %ld prints.
    if (!std::regex_search(message, m, re, std::regex_constants::match_continuous))
        return std::nullopt;
    BootAllocationLine line;
    try {
        line.milliseconds = std::stoull(m[1]);
        line.threads = std::stoull(m[2]);
    } catch (const std::out_of_range&) {
        return std::nullopt;
    }
    line.text = message;
    return line;
}

// The kernel prints sizes with string_get_size() in binary units: "64.0 KiB", "2.00 MiB".
std::uint64_t size_kb_of(const std::string& number, char unit) {
    const std::string units = "KMGT";
    return static_cast<std::uint64_t>(
        std::llround(std::stod(number) * std::pow(1024.0, units.find(unit))));
}

std::optional<RegisteredPool> read_registered_pool(const std::string& message) {
    if (message.find(" page size, pre-allocated ") == std::string::npos)
        return std::nullopt;
    static const std::regex re(
        R"(HugeTLB:? registered ([0-9.]+) ([KMGT])iB page size, pre-allocated (\d+) pages)");
    std::smatch m;
    // At the start of the message: the same words inside another one (a device's name, say)
    // are not the kernel's line.
    if (!std::regex_search(message, m, re, std::regex_constants::match_continuous))
        return std::nullopt;
    try {
        return RegisteredPool{size_kb_of(m[1], m[2].str()[0]), std::stoull(m[3])};
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

std::optional<VmemmapFreeable> read_vmemmap_freeable(const std::string& message) {
    if (message.find(" vmemmap can be freed for a ") == std::string::npos)
        return std::nullopt;
    static const std::regex re(
        R"(HugeTLB:? (\d+) KiB vmemmap can be freed for a ([0-9.]+) ([KMGT])iB page)");
    std::smatch m;
    // At the start of the message: the same words inside another one (a device's name, say)
    // are not the kernel's line.
    if (!std::regex_search(message, m, re, std::regex_constants::match_continuous))
        return std::nullopt;
    try {
        return VmemmapFreeable{size_kb_of(m[2], m[3].str()[0]), std::stoull(m[1])};
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

std::optional<PoolShortfall> read_pool_shortfall(const std::string& message) {
    if (message.find("HugeTLB: allocating ") == std::string::npos)
        return std::nullopt;
    static const std::regex re(
        R"(HugeTLB: allocating (\d+) of page size ([0-9.]+) ([KMGT])iB failed\. +Only allocated (\d+) hugepages)");
    std::smatch m;
    // At the start of the message: the same words inside another one (a device's name, say)
    // are not the kernel's line.
    if (!std::regex_search(message, m, re, std::regex_constants::match_continuous))
        return std::nullopt;
    try {
        return PoolShortfall{size_kb_of(m[2], m[3].str()[0]), std::stoull(m[1]), std::stoull(m[4]),
                             message};
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

bool starts_boot(const std::string& message) {
    return message.starts_with("Linux version ");
}

// init/main.c prints "Kernel command line: ..." on every architecture; x86-64 prints
// "Command line: ..." before it (arch/x86/kernel/setup.c).
std::optional<std::string> logged_cmdline(const std::string& message) {
    for (const std::string marker : {"Kernel command line: ", "Command line: "})
        if (message.starts_with(marker))
            return message.substr(marker.size());
    return std::nullopt;
}

}  // namespace

std::vector<BootAllocationLine> find_boot_allocation_lines(const std::vector<std::string>& log) {
    std::vector<BootAllocationLine> lines;
    for (const auto& message : log)
        if (auto line = read_allocation_line(message))
            lines.push_back(std::move(*line));
    return lines;
}

std::vector<RegisteredPool> find_registered_pools(const std::vector<std::string>& log) {
    std::vector<RegisteredPool> pools;
    for (const auto& message : log)
        if (auto pool = read_registered_pool(message))
            pools.push_back(*pool);
    return pools;
}

std::vector<VmemmapFreeable> find_vmemmap_freeable(const std::vector<std::string>& log) {
    std::vector<VmemmapFreeable> out;
    for (const auto& message : log)
        if (auto line = read_vmemmap_freeable(message))
            out.push_back(*line);
    return out;
}

std::vector<PoolShortfall> find_pool_shortfalls(const std::vector<std::string>& log) {
    std::vector<PoolShortfall> shortfalls;
    for (const auto& message : log)
        if (auto shortfall = read_pool_shortfall(message))
            shortfalls.push_back(std::move(*shortfall));
    return shortfalls;
}

BootLogContext read_boot_log_context(const std::vector<std::string>& boot) {
    static const std::regex smp(R"(smp: Brought up (\d+) nodes?, (\d+) CPUs?)");
    BootLogContext c;
    for (const auto& message : boot) {
        std::smatch m;
        if (starts_boot(message) && !c.release) {
            auto rest = message.substr(std::string("Linux version ").size());
            c.release = rest.substr(0, rest.find(' '));
        } else if (auto cmdline = logged_cmdline(message); cmdline && !c.cmdline) {
            c.cmdline = cmdline;
        } else if (message.find("mem auto-init:") != std::string::npos) {
            // mm/mm_init.c, report_meminit() (docs/kernel-facts.md "init_on_alloc and boot
            // zeroing").
            if (message.find("heap alloc:on") != std::string::npos)
                c.init_on_alloc = true;
            else if (message.find("heap alloc:off") != std::string::npos)
                c.init_on_alloc = false;
        } else if (message.find("smp: Brought up ") != std::string::npos &&
                   std::regex_search(message, m, smp)) {
            // A count past int is no boot's; the line then says nothing.
            try {
                c.online_nodes = std::stoi(m[1]);
                c.online_cpus = std::stoi(m[2]);
            } catch (const std::out_of_range&) {
                c.online_nodes.reset();
                c.online_cpus.reset();
            }
        }
    }
    return c;
}

namespace {

// The registered sizes the allocation lines stand for, in order; empty when no pairing fits.
std::vector<RegisteredPool> pools_of_lines(const std::vector<RegisteredPool>& registered,
                                           std::size_t lines,
                                           std::uint64_t largest_buddy_block_kb) {
    std::vector<RegisteredPool> threaded, non_empty;
    for (const auto& p : registered) {
        if (model::is_gigantic(p.size_kb, largest_buddy_block_kb))
            continue;
        threaded.push_back(p);
        if (p.pages > 0)
            non_empty.push_back(p);
    }
    if (threaded.size() == lines)
        return threaded;
    if (non_empty.size() == lines)
        return non_empty;
    return {};
}

}  // namespace

std::optional<BootAllocationLine> allocation_line_for_pool(const std::vector<std::string>& boot,
                                                           std::uint64_t size_kb,
                                                           std::uint64_t largest_buddy_block_kb) {
    const auto lines = find_boot_allocation_lines(boot);
    if (lines.empty())
        return std::nullopt;
    const auto pools =
        pools_of_lines(find_registered_pools(boot), lines.size(), largest_buddy_block_kb);
    const std::string of_all = " of " + std::to_string(lines.size()) + " allocation lines";
    for (std::size_t i = 0; i < pools.size(); ++i)
        if (pools[i].size_kb == size_kb) {
            if (pools[i].pages == 0)
                return std::nullopt;
            BootAllocationLine line = lines[i];
            if (lines.size() > 1)
                line.chosen = "line " + std::to_string(i + 1) + of_all +
                              ", paired in order with the registered pools of each size";
            return line;
        }
    if (!pools.empty())
        return std::nullopt;
    if (lines.size() == 1)
        return lines.front();
    std::vector<BootAllocationLine> measured;
    std::copy_if(lines.begin(), lines.end(), std::back_inserter(measured),
                 [](const BootAllocationLine& l) { return l.milliseconds > 0; });
    BootAllocationLine line = measured.size() == 1 ? measured.front() : lines.back();
    line.chosen = measured.size() == 1
                      ? "the only one above 0 ms" + of_all + "; the others time empty pools"
                      : "the last" + of_all + ": no registered pool lines to pair them with";
    return line;
}

}  // namespace hugetune
