#include "tuner/kernel/boot_log.hpp"

#include <regex>
#include <stdexcept>

namespace hugetune {

std::optional<BootAllocationLine> find_boot_allocation_line(const std::vector<std::string>& log) {
    static const std::regex re(
        R"(HugeTLB: allocation took (\d+)ms with hugepage_(?:allocation|alloc)_threads=(\d+))");
    for (auto it = log.rbegin(); it != log.rend(); ++it) {
        std::smatch m;
        if (!std::regex_search(*it, m, re))
            continue;
        BootAllocationLine line;
        try {
            line.milliseconds = std::stoull(m[1]);
            line.threads = std::stoull(m[2]);
        } catch (const std::out_of_range&) {
            continue;
        }
        line.text = *it;
        return line;
    }
    return std::nullopt;
}

}  // namespace hugetune
