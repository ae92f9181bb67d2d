#include "tuner/kernel/boot_pool.hpp"

#include "model/alloc_threads.hpp"

#include <algorithm>
#include <sstream>

namespace hugetune {
namespace {

// "512" or "0:256,1:256": the pages of one hugepages= value; nothing when a count is not a
// number.
std::optional<BootRequest> read_request(const std::string& value, std::uint64_t size_kb) {
    BootRequest r;
    r.size_kb = size_kb;
    r.node_format = value.find(':') != std::string::npos;
    std::stringstream in(value);
    std::string part;
    while (std::getline(in, part, ',')) {
        auto colon = part.find(':');
        auto count = parse_kernel_ulong(colon == std::string::npos ? part : part.substr(colon + 1));
        if (!count)
            return std::nullopt;
        r.pages += *count;
    }
    return r;
}

}  // namespace

std::vector<BootRequest> read_boot_requests(const KernelCmdline& cmdline,
                                            std::uint64_t default_kb) {
    std::vector<BootRequest> out;
    if (auto d = cmdline.last("default_hugepagesz"))
        if (auto kb = parse_memsize_kb(*d))
            default_kb = *kb;
    std::uint64_t current = default_kb;
    for (const auto& p : cmdline.params) {
        if (p.name == "hugepagesz" && p.value) {
            if (auto kb = parse_memsize_kb(*p.value))
                current = *kb;
        } else if (p.name == "hugepages" && p.value) {
            auto request = read_request(*p.value, current);
            if (!request)
                continue;
            auto same = std::find_if(out.begin(), out.end(), [&](const BootRequest& b) {
                return b.size_kb == request->size_kb;
            });
            if (same != out.end())
                *same = *request;
            else
                out.push_back(*request);
        }
    }
    return out;
}

std::optional<BootRequest> threaded_request(const std::vector<BootRequest>& requests,
                                            std::optional<std::uint64_t> preferred_kb) {
    std::optional<BootRequest> chosen;
    for (const auto& r : requests) {
        if (r.pages == 0 || r.node_format || r.size_kb > kLargestBuddyBlockKb)
            continue;
        if (!chosen || preferred_kb == r.size_kb)
            chosen = r;
    }
    return chosen;
}

BootPoolFacts boot_pool_facts(const KernelCmdline& cmdline) {
    BootPoolFacts facts;
    bool any_small = false;
    for (const auto& r : read_boot_requests(cmdline, kDefaultHugePageKb)) {
        if (r.pages == 0)
            continue;
        facts.pool_requested = true;
        if (r.size_kb > kLargestBuddyBlockKb)
            continue;
        any_small = true;
        if (r.node_format)
            facts.node_format = true;
        else
            facts.threaded_pool = true;
    }
    facts.only_gigantic = facts.pool_requested && !any_small;
    return facts;
}

std::vector<model::Warning> alloc_threads_problems(const BootPoolFacts& facts,
                                                   const std::optional<std::string>& release) {
    std::vector<model::Warning> out;
    if (release && release_honours_alloc_threads(*release) == std::optional<bool>(false))
        out.push_back({"kernel_too_old", "kernel " + *release +
                                             " is older than 6.15, which ignores "
                                             "hugepage_alloc_threads="});
    if (!facts.pool_requested)
        out.push_back({"no_boot_pool",
                       "the command line requests no boot-time huge page pool (hugepages=), so "
                       "the kernel allocates nothing at boot and the parameter has no effect"});
    else if (facts.only_gigantic)
        out.push_back({"gigantic_only",
                       "only gigantic pages are requested at boot; the kernel allocates them "
                       "serially from memblock and hugepage_alloc_threads= does not apply"});
    if (facts.node_format && !facts.threaded_pool)
        out.push_back({"node_format_hugepages",
                       "the boot pool uses node-format hugepages= (node:count), which takes a "
                       "serial per-node path that ignores hugepage_alloc_threads="});
    return out;
}

std::vector<std::string> alloc_threads_caveats(const BootPoolFacts& facts,
                                               const std::optional<std::string>& release) {
    std::vector<std::string> out;
    for (auto& problem : alloc_threads_problems(facts, release))
        out.push_back(std::move(problem.message));
    return out;
}

}  // namespace hugetune
