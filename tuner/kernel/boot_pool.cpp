#include "tuner/kernel/boot_pool.hpp"

#include <cstdio>

#include "tuner/probe/probe.hpp"

namespace hugetune {
namespace {

// Pages larger than the buddy allocator's largest block are gigantic and come from memblock
// in a serial loop (1 GiB on x86-64; the largest buddy block there is 4 MiB).
constexpr std::uint64_t kLargestBuddyBlockKb = 4096;

}  // namespace

BootPoolFacts boot_pool_facts(const KernelCmdline& cmdline) {
    BootPoolFacts facts;
    std::uint64_t size_kb = 2048;  // x86-64 default huge page size
    if (auto d = cmdline.last("default_hugepagesz"))
        if (auto kb = parse_memsize_kb(*d))
            size_kb = *kb;
    // hugepagesz= applies to the hugepages= after it; a later hugepages= for a size
    // replaces an earlier one.
    struct Request {
        std::uint64_t size_kb;
        std::uint64_t pages;
        bool node_format;
    };
    std::vector<Request> requests;
    for (const auto& p : cmdline.params) {
        if (p.name == "hugepagesz" && p.value) {
            if (auto kb = parse_memsize_kb(*p.value))
                size_kb = *kb;
        } else if (p.name == "hugepages" && p.value) {
            Request r{size_kb, 0, p.value->find(':') != std::string::npos};
            std::size_t at = 0;
            while (at <= p.value->size()) {
                std::size_t comma = p.value->find(',', at);
                std::string part =
                    p.value->substr(at, comma == std::string::npos ? comma : comma - at);
                auto colon = part.find(':');
                if (auto n = parse_kernel_ulong(
                        colon == std::string::npos ? part : part.substr(colon + 1)))
                    r.pages += *n;
                if (comma == std::string::npos)
                    break;
                at = comma + 1;
            }
            std::erase_if(requests, [&](const Request& q) { return q.size_kb == r.size_kb; });
            requests.push_back(r);
        }
    }
    bool any_small = false;
    for (const auto& r : requests) {
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

std::optional<bool> release_honours_alloc_threads(const std::string& release) {
    int major = 0, minor = 0;
    if (std::sscanf(release.c_str(), "%d.%d", &major, &minor) != 2)
        return std::nullopt;
    return release_supports_alloc_threads(major, minor);
}

std::vector<std::string> alloc_threads_caveats(const BootPoolFacts& facts,
                                               const std::optional<std::string>& release) {
    std::vector<std::string> out;
    if (release && release_honours_alloc_threads(*release) == std::optional<bool>(false))
        out.push_back("kernel " + *release +
                      " is older than 6.15, which ignores hugepage_alloc_threads=");
    if (!facts.pool_requested)
        out.push_back(
            "the command line requests no boot-time huge page pool (hugepages=), so "
            "the kernel allocates nothing at boot and the parameter has no effect");
    else if (facts.only_gigantic)
        out.push_back(
            "only gigantic pages are requested at boot; the kernel allocates them "
            "serially from memblock and hugepage_alloc_threads= does not apply");
    if (facts.node_format && !facts.threaded_pool)
        out.push_back(
            "the boot pool uses node-format hugepages= (node:count), which takes a "
            "serial per-node path that ignores hugepage_alloc_threads=");
    return out;
}

}  // namespace hugetune
